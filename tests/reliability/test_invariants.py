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

"""The invariant checker can fail: each invariant is broken on purpose,
behind the services' backs, and the checker must name it; with the
defect undone, the checker passes again (the fixture checks)."""
import hashlib
import os
import signal
import uuid

from nova_fpga.contract import placement
from nova_fpga.virt import agents
from tests.reliability import invariants
from tests.reliability import workload
from tests.services import alive


def named(violations, *words):
    return [line for line in violations if all(w in line for w in words)]


def free_region(checker):
    """(provider uuid, 'board:region') of a region nobody holds."""
    held = checker.region_allocations()
    for uuid_, name in sorted(checker.regions().items(),
                              key=lambda item: item[1]):
        if not held[name]:
            return uuid_, name
    assert False, 'no free region: %s' % held


def test_an_allocation_with_no_server_is_caught(checker):
    provider, name = free_region(checker)
    consumer = str(uuid.uuid4())
    session = checker.session
    endpoint = {'service_type': 'placement', 'interface': 'public'}
    project = session.get_project_id()
    response = session.put(
        '/allocations/%s' % consumer, endpoint_filter=endpoint,
        headers=invariants.PLACEMENT, json={
            'allocations': {provider: {'resources': {
                placement.REGION_RESOURCE_CLASS: 1}}},
            'project_id': project, 'user_id': session.get_user_id(),
            'consumer_generation': None})
    assert response.status_code == 204, response.text
    try:
        assert named(checker.violations(), name, consumer, 'no server')
    finally:
        session.delete('/allocations/%s' % consumer,
                       endpoint_filter=endpoint, headers=invariants.PLACEMENT)
    assert not checker.violations()


def test_a_stray_file_in_the_store_and_in_staging_is_caught(
        checker, fault_cloud):
    glance = fault_cloud.dir / 'glance'
    stray = glance / 'images' / 'fpga' / str(uuid.uuid4())
    staged = glance / 'staging' / str(uuid.uuid4())
    staged.parent.mkdir(exist_ok=True)
    stray.write_bytes(b'half a bitstream')
    staged.write_bytes(b'half an import')
    try:
        found = checker.violations()
        assert named(found, 'glance store fpga', stray.name), found
        assert named(found, 'glance staging', staged.name), found
    finally:
        stray.unlink()
        staged.unlink()


def test_a_killed_process_is_caught(checker, fault_cloud):
    board = fault_cloud.boards[0]
    pid = fault_cloud.pids()['boards/%s/agent' % board][0]
    os.kill(pid, signal.SIGKILL)
    workload.wait_until(lambda: not alive(pid), 10, 'agent %d gone' % pid)
    client, transport = fault_cloud.agent_client()
    try:
        found = checker.violations()
        assert named(found, 'process boards/%s/agent' % board,
                     'not running'), found
        assert named(found, 'board %s' % board, 'does not answer'), found
        fault_cloud.board(board).start(client)
    finally:
        transport.cleanup()
    # restarted behind the checker's back: caught too, until it is told
    assert named(checker.violations(), 'boards/%s/agent' % board,
                 'behind the checker')
    checker.restarted()


def test_a_region_loaded_behind_novas_back_is_caught(
        checker, fault_cloud, images, tmp_path):
    _, name = free_region(checker)
    board, region = name.split(':')
    intruder = str(uuid.uuid4())
    data = workload.bitstream(tmp_path / 'intruder.bit',
                              'rel-loopback-%s' % region)
    client, transport = fault_cloud.agent_client(timeout=60)
    try:
        client.load(agents.rpc_context(), board, region, intruder,
                    images['rel-loopback-%s' % region],
                    hashlib.sha256(data.read_bytes()).hexdigest(),
                    data.read_bytes())
        try:
            found = checker.violations()
            assert named(found, 'agent', name, intruder, 'no server'), found
        finally:
            client.unload(agents.rpc_context(), board, region, intruder)
    finally:
        transport.cleanup()


def test_a_server_whose_region_was_unloaded_is_caught(
        checker, fault_cloud, bob, images):
    flight = workload.Flight(bob, images, 'rel-unloaded')
    server_id, = flight.create_and_wait(['rel-loopback-rp0'])
    try:
        board, region, _ = invariants._holders(
            fault_cloud.describe_boards())[server_id]
        client, transport = fault_cloud.agent_client()
        try:
            client.unload(agents.rpc_context(), board, region, server_id)
        finally:
            transport.cleanup()
        found = checker.violations()
        assert named(found, server_id, 'no agent reports its region'), found
    finally:
        bob.run('server', 'delete', '--wait', server_id)


def test_an_error_server_without_a_fault_and_a_stuck_one_are_caught():
    """What no real service can be made to do on demand: nova always
    writes a fault with ERROR.  The checker's own rules, on its inputs.
    """
    base = {'OS-EXT-STS:task_state': None,
            'OS-EXT-SRV-ATTR:hypervisor_hostname': 'board0'}
    servers = {'a': dict(base, id='a', status='ERROR'),
               'b': dict(base, id='b', status='BUILD',
                         **{'OS-EXT-STS:task_state': 'spawning'}),
               'c': dict(base, id='c', status='ERROR',
                         fault={'message': 'No valid host was found.'})}
    found = invariants.server_violations(servers, {'board0': {}}, {})
    assert found == ['server a: ERROR with no fault',
                     'server b: still BUILD (task spawning)']


def test_a_vm_on_an_ordinary_compute_host_is_no_violation():
    """A VM-host server holds no region: the board rules are not its
    (a VM booted beside the boards was reported as "ACTIVE with region
    allocations []"); a board's ACTIVE server without a region still is.
    """
    base = {'OS-EXT-STS:task_state': None, 'status': 'ACTIVE'}
    servers = {
        'vm': dict(base, id='vm',
                   **{'OS-EXT-SRV-ATTR:hypervisor_hostname': 'vm-host'}),
        'r': dict(base, id='r',
                  **{'OS-EXT-SRV-ATTR:hypervisor_hostname': 'board0'})}
    found = invariants.server_violations(servers, {'board0': {}}, {})
    assert found == ['server r: ACTIVE with region allocations []']
