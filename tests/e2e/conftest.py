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

"""Fixtures for the end-to-end tests: the session's demo cloud (the same one
tests/localcloud drives), its boards wired to data links, the fpga.region
flavor and builder-made bitstream images imported with Glance's import flow.

Everything a test creates it deletes again, so the cloud stays usable for
the next test (and for tests/localcloud, which runs after this package).
"""
import subprocess
import time

import pytest

from nova_fpga.bitstream import builder
from nova_fpga import catalogue
from nova_fpga.contract import placement
from nova_fpga.contract import shell
from nova_fpga.contract import traits
from nova_fpga_devtools.localcloud import process
from tests.services import CLI

REFERENCE = shell.load(shell.REFERENCE)
PART = '7z020clg400'
#: name -> (region, module ID) of the images the tests boot
IMAGES = {'e2e-loopback-rp0': ('rp0', catalogue.module_id('loopback')),
          'e2e-loopback-rp1': ('rp1', catalogue.module_id('loopback')),
          'e2e-vtc-rp1': ('rp1', catalogue.module_id('vtc'))}


@pytest.fixture(scope='session')
def cloud(demo_stack):
    return demo_stack


@pytest.fixture(scope='session')
def admin(cloud):
    return CLI(cloud.openrc('admin'))


@pytest.fixture(scope='session')
def bob(cloud):
    """A member of fpga-builders: may create bitstream images."""
    return CLI(cloud.openrc('bob'))


@pytest.fixture(scope='session')
def data_links(cloud):
    """{board: DataLink}: each board's data interface, a veth whose board
    end is in the board's netns (the stack wires every board to one, named
    after the cloud).
    """
    links = {name: cloud.data_link(name) for name in cloud.boards}
    missing = [name for name, link in links.items() if not link.exists()]
    assert not missing, 'boards without a data link: %s' % missing
    return links


@pytest.fixture(scope='session')
def flavor(admin):
    out = subprocess.run([str(process.BIN / 'nova-fpga-manage'), 'flavor',
                          'create'], env=admin.env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return 'fpga.region'


@pytest.fixture(scope='session')
def images(bob, tmp_path_factory):
    """{name: image id} of IMAGES, imported by bob with nova-fpga-manage
    image create (Glance's import flow derives the fpga_* properties).
    """
    work = tmp_path_factory.mktemp('bitstreams')
    made = {}
    try:
        for name, (region, module_id) in IMAGES.items():
            path = work / ('%s.bit' % name)
            path.write_bytes(builder.build_partial(
                PART, name.replace('-', '_'), module_id,
                REFERENCE.region(region).footprint))
            out = subprocess.run(
                [str(process.BIN / 'nova-fpga-manage'), 'image', 'create',
                 name, str(path), '--shell-id', REFERENCE.shell_id],
                env=bob.env, capture_output=True, text=True, timeout=300)
            assert out.returncode == 0, out.stdout + out.stderr
            made[name] = bob.json('image', 'show', name)['id']
        yield made
    finally:
        for image_id in made.values():
            bob.run('image', 'delete', image_id, check=False)


class Servers:
    """Servers a test creates, deleted (and waited for) at its end."""

    def __init__(self, cli, admin, flavor):
        self.cli, self.admin, self.flavor = cli, admin, flavor
        self.ids = []

    def create(self, name, image, wait=True):
        args = ['server', 'create', '--flavor', self.flavor, '--image', image,
                '--nic', 'none', name]
        server = self.cli.json(*args, *(['--wait'] if wait else []))
        self.ids.append(server['id'])
        return server['id']

    def show(self, server_id, microversion='2.16'):
        """The server as an admin sees it (host, node, host_status)."""
        return self.admin.json('--os-compute-api-version', microversion,
                               'server', 'show', server_id)

    def wait_for(self, server_id, done, timeout=120, interval=0.5):
        """Poll server show until done(server) or time runs out; the last
        server shown either way.
        """
        deadline = time.monotonic() + timeout
        while True:
            server = self.show(server_id)
            if done(server) or time.monotonic() > deadline:
                return server
            time.sleep(interval)

    def delete_all(self):
        if self.ids:
            self.cli.run('server', 'delete', '--wait', *self.ids, check=False)
            self.ids = []


@pytest.fixture
def servers(bob, admin, flavor):
    made = Servers(bob, admin, flavor)
    yield made
    made.delete_all()


def placement_get(cloud, path):
    """GET path of the placement API as admin (JSON)."""
    session = cloud.keystone.session('admin')
    response = session.get(path, endpoint_filter={
        'service_type': 'placement', 'interface': 'public'},
        headers={'OpenStack-API-Version': 'placement 1.28'})
    assert response.status_code == 200, response.text
    return response.json()


def reserved_regions(cloud, board):
    """How many of the board's region providers placement has reserved
    (nova-compute reserves those of a board whose agent is silent).
    """
    (root,) = placement_get(cloud, '/resource_providers?name=%s' % board)[
        'resource_providers'
    ]
    return sum(
        placement_get(
            cloud, '/resource_providers/%s/inventories' % rp['uuid']
        )['inventories'][placement.REGION_RESOURCE_CLASS]['reserved']
        for rp in placement_get(
            cloud, '/resource_providers?in_tree=%s' % root['uuid']
        )['resource_providers']
        if rp['parent_provider_uuid']
    )


def import_error(image):
    return (image.get('properties') or {}).get(traits.IMPORT_ERROR_PROPERTY)


def event_details(cli, server_id, action):
    """The details of the events of the server's latest action of that
    kind, as the user reads them (microversion 2.84).
    """
    actions = cli.json('--os-compute-api-version', '2.84', 'server', 'event',
                       'list', server_id)
    latest = next(a for a in actions if a['Action'] == action)
    shown = cli.json('--os-compute-api-version', '2.84', 'server', 'event',
                     'show', server_id, latest['Request ID'])
    return [event.get('details') or '' for event in shown['events']]


def wait_for_details(cli, server_id, action, expected, timeout=60):
    """Until the latest such action's events show the expected details
    (nova records them when the compute manager's call ends).
    """
    deadline = time.monotonic() + timeout
    while True:
        details = event_details(cli, server_id, action)
        if expected in details:
            return
        assert time.monotonic() < deadline, (action, details)
        time.sleep(1)
