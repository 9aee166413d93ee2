# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

"""The one invariant checker every fault case and the soak share.

After a fault the cloud must settle into a state a user and an operator
can trust, whatever was in flight:

* servers: every server is ACTIVE (or SHUTOFF) with its region held for it
  on the board placement allocated, or ERROR with a fault that says why,
  or gone; none is left building or deleting;
* regions: every placement allocation of a region belongs to a live
  server, and so does every region an agent reports in use;
* images: nothing half-stored: every file in Glance's store directories
  is an active image's data, nothing is left in the staging area, and no
  image is left saving or importing;
* processes: every process of the cloud runs, and is the one the checker
  last knew of (a case that restarts a service tells the checker, so a
  death nobody noticed is what is left).

Each read goes to the real service (compute, placement and image APIs as
admin, each board's agent over the agents' bus, the state directory), so
a defect injected behind any service's back shows.
"""
import pathlib
import time

from nova_fpga.contract import placement
from nova_fpga.contract import states
from nova_fpga_devtools.localcloud import process

#: server statuses that are still moving
MOVING = ('BUILD', 'DELETING', 'REBOOT', 'HARD_REBOOT')
#: image statuses a finished upload or import never leaves behind
IMAGE_MOVING = ('saving', 'importing', 'uploading')
PLACEMENT = {'OpenStack-API-Version': 'placement 1.28'}
COMPUTE = {'OpenStack-API-Version': 'compute 2.88'}


class Checker:
    """Invariants of one demo cloud (localcloud.stack.Stack)."""

    def __init__(self, cloud):
        self.cloud = cloud
        self.session = cloud.keystone.session('admin')
        self.known = self.leaders()

    # -- reads -------------------------------------------------------------

    def _get(self, service, path, headers=None):
        response = self.session.get(path, endpoint_filter={
            'service_type': service, 'interface': 'public'},
            headers=headers or {})
        assert response.status_code == 200, (path, response.text)
        return response.json()

    def servers(self):
        """{id: server} of every project's servers (admin view)."""
        return {server['id']: server for server in self._get(
            'compute', '/servers/detail?all_tenants=1', COMPUTE)['servers']}

    def regions(self):
        """{provider uuid: 'board:region'} of the region providers."""
        return {rp['uuid']: rp['name'] for rp in self._get(
            'placement', '/resource_providers', PLACEMENT)[
            'resource_providers'] if rp['parent_provider_uuid']}

    def region_allocations(self):
        """{'board:region': {consumer uuid}} holding CUSTOM_FPGA_REGION."""
        held = {}
        for uuid, name in self.regions().items():
            allocations = self._get(
                'placement', '/resource_providers/%s/allocations' % uuid,
                PLACEMENT)['allocations']
            held[name] = {
                consumer for consumer, alloc in allocations.items()
                if alloc['resources'].get(placement.REGION_RESOURCE_CLASS)}
        return held

    def images(self):
        """{id: image} of every image, hidden ones included."""
        found = {}
        for hidden in ('false', 'true'):
            found.update((image['id'], image) for image in self._get(
                'image', '/v2/images?limit=1000&os_hidden=%s' % hidden)[
                'images'])
        return found

    def leaders(self):
        """{service: pid of its group leader, or None if not running}."""
        running = self.cloud.pids()
        leaders = {}
        for name in self.cloud.expected():
            pid_file = self.cloud.dir / ('%s.pid' % name)
            try:
                leader = int(pid_file.read_text())
            except (OSError, ValueError):
                leader = None
            leaders[name] = leader if leader in running.get(name, []) \
                else None
        return leaders

    def rss_kib(self):
        """{service: resident memory of its processes, KiB}."""
        return {name: sum(process.rss_kib(pid) for pid in pids)
                for name, pids in self.cloud.pids().items()}

    # -- what a case tells the checker -------------------------------------

    def restarted(self):
        """A case restarted services on purpose: take the new pids as the
        ones to keep.
        """
        self.known = self.leaders()

    # -- the invariants ----------------------------------------------------

    def settle(self, timeout=180):
        """Servers and images once nothing is moving (or timeout ran out:
        then what is still moving is a violation).
        """
        deadline = time.monotonic() + timeout
        while True:
            servers, images = self.servers(), self.images()
            moving = [s for s in servers.values() if s['status'] in MOVING
                      or s['OS-EXT-STS:task_state']] + \
                [i for i in images.values() if i['status'] in IMAGE_MOVING]
            if not moving or time.monotonic() > deadline:
                return servers, images
            time.sleep(1)

    def violations(self, timeout=180):
        """[what is wrong], after waiting up to timeout for the cloud to
        settle.
        """
        servers, images = self.settle(timeout)
        found = self.process_violations()
        described = self.cloud.describe_boards()
        allocations = self.region_allocations()
        found += server_violations(servers, described, allocations)
        found += region_violations(servers, described, allocations)
        found += image_violations(images, self.cloud.dir / 'glance')
        return found

    def process_violations(self):
        found = []
        for name, leader in self.leaders().items():
            known = self.known.get(name)
            if leader is None:
                found.append('process %s: not running (was pid %s)' % (
                    name, known))
            elif known is not None and leader != known:
                found.append('process %s: pid %s replaced pid %s behind the '
                             'checker\'s back' % (name, leader, known))
        return found

    def check(self, timeout=180):
        """Assert every invariant holds."""
        found = self.violations(timeout)
        assert not found, 'invariants violated:\n  ' + '\n  '.join(found)


def _holders(described):
    """{server id: (board, region, state)} the agents report."""
    held = {}
    for board, answer in described.items():
        for region in (answer or {}).get('regions', []):
            if region.get('instance_uuid'):
                held[region['instance_uuid']] = (
                    board, region['name'], region['state'])
    return held


def server_violations(servers, described, allocations):
    found = []
    held = _holders(described)
    for board, answer in described.items():
        if answer is None:
            found.append('board %s: its agent does not answer' % board)
    for server_id, server in servers.items():
        status = server['status']
        if status in MOVING or server['OS-EXT-STS:task_state']:
            found.append('server %s: still %s (task %s)' % (
                server_id, status, server['OS-EXT-STS:task_state']))
        elif status == 'ERROR':
            if not (server.get('fault') or {}).get('message'):
                found.append('server %s: ERROR with no fault' % server_id)
        elif status in ('ACTIVE', 'SHUTOFF'):
            if server['OS-EXT-SRV-ATTR:hypervisor_hostname'] in described:
                found += _placed_server(server, held, allocations)
            # else a VM on an ordinary compute host (the VM host): no
            # region of it to check (issue 33: it was reported as "ACTIVE
            # with region allocations []")
        else:
            found.append('server %s: unexpected status %s' % (
                server_id, status))
    return found


def _placed_server(server, held, allocations):
    """An ACTIVE (or SHUTOFF) server: its region held by the agent of the
    board placement allocated it on, running (or stopped).
    """
    server_id = server['id']
    board = server['OS-EXT-SRV-ATTR:hypervisor_hostname']
    wanted = states.ACTIVE if server['status'] == 'ACTIVE' \
        else states.STOPPED
    allocated = [name for name, consumers in allocations.items()
                 if server_id in consumers]
    if len(allocated) != 1:
        return ['server %s: %s with region allocations %s' % (
            server_id, server['status'], allocated)]
    alloc_board, alloc_region = allocated[0].split(':', 1)
    if alloc_board != board:
        return ['server %s: on %s, but placement allocated %s' % (
            server_id, board, allocated[0])]
    if server_id not in held:
        return ['server %s: %s, but no agent reports its region' % (
            server_id, server['status'])]
    if held[server_id] != (alloc_board, alloc_region, wanted):
        return ['server %s: %s on %s, but the agent reports %s' % (
            server_id, server['status'], allocated[0],
            '%s:%s %s' % held[server_id])]
    return []


def region_violations(servers, described, allocations):
    found = []
    for region, consumers in sorted(allocations.items()):
        for consumer in sorted(consumers - set(servers)):
            found.append('placement: %s allocated to %s, which is no '
                         'server' % (region, consumer))
    for server_id, (board, region, state) in sorted(
            _holders(described).items()):
        server = servers.get(server_id)
        if server is None:
            found.append('agent: %s:%s %s for %s, which is no server' % (
                board, region, state, server_id))
        elif server['OS-EXT-SRV-ATTR:hypervisor_hostname'] != board:
            found.append('agent: %s:%s held for %s, a server on %s' % (
                board, region, server_id,
                server['OS-EXT-SRV-ATTR:hypervisor_hostname']))
    return found


def image_violations(images, glance_dir):
    """Store files that are not an active image's data, anything in the
    staging area, images left half-way.
    """
    found = []
    glance_dir = pathlib.Path(glance_dir)
    for image_id, image in sorted(images.items()):
        if image['status'] in IMAGE_MOVING:
            found.append('image %s: left %s' % (image_id, image['status']))
    for store in sorted((glance_dir / 'images').iterdir()):
        for path in sorted(store.iterdir()):
            image = images.get(path.name)
            if image is None or image['status'] != 'active':
                found.append('glance store %s: %s is no active image\'s '
                             'data (%s)' % (store.name, path.name, 'no image'
                                            if image is None
                                            else image['status']))
    staging = glance_dir / 'staging'
    for path in sorted(staging.iterdir()) if staging.exists() else []:
        found.append('glance staging: %s left behind' % path.name)
    return found
