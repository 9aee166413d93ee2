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

"""What a tenant sees, as a non-admin project member with the real CLI:
every refusal in words that name the cause and the fix, nothing of other
projects' servers, and a region that runs the image's own data whatever
its properties say."""
import time

import pytest

from glance_store_bitstream import snapshots
from nova_fpga.bitstream import builder
from nova_fpga import catalogue
from nova_fpga.virt import unsupported
from tests.e2e.conftest import PART
from tests.e2e.conftest import placement_get
from tests.e2e.conftest import REFERENCE
from tests.e2e.conftest import Servers
from tests.e2e.conftest import wait_for_details
from tests.services import CLI

#: nova's power state RUNNING as the CLI's JSON gives it
RUNNING = 1
ALT_FLAVOR = 'fpga.region.alt'


@pytest.fixture(scope='module')
def alice(cloud):
    """A member of the demo project: may boot, not build, bitstreams."""
    return CLI(cloud.openrc('alice'))


@pytest.fixture(scope='module')
def alt_flavor(admin, flavor):
    """A second region flavor, something to resize to."""
    specs = admin.json('flavor', 'show', flavor)['properties']
    args = ['flavor', 'create', '--vcpus', '1', '--ram', '1', '--disk', '1']
    for key, value in specs.items():
        args += ['--property', '%s=%s' % (key, value)]
    admin.run(*args, ALT_FLAVOR)
    yield ALT_FLAVOR
    admin.run('flavor', 'delete', ALT_FLAVOR)


def settled(servers, server_id):
    """The server once nova has no task running on it."""
    return servers.wait_for(
        server_id, lambda s: s['OS-EXT-STS:task_state'] is None
        and s['status'] not in ('BUILD', 'RESIZE', 'VERIFY_RESIZE'),
        timeout=60)


def held(cloud, server_id):
    """What the server holds in placement, by provider."""
    return {rp: alloc['resources'] for rp, alloc in placement_get(
        cloud, '/allocations/%s' % server_id)['allocations'].items()}


def assert_still_running(cloud, servers, server_id, board, region):
    shown = settled(servers, server_id)
    assert (shown['status'], shown['OS-EXT-STS:power_state']) == \
        ('ACTIVE', RUNNING), shown
    assert cloud.region_holding(board, server_id) == region
    described = cloud.describe_boards()[board]['regions']
    assert [r['state'] for r in described if r['name'] == region] == \
        ['ACTIVE']


# four minutes of CLI round trips: beyond CI's budget (make test-beyond-ci);
# tests/functional/test_server_actions.py runs the refusals in CI
@pytest.mark.beyond_ci
def test_refused_actions_tell_the_member_why_and_change_nothing(
        cloud, bob, admin, servers, images, alt_flavor):
    server = servers.create('e2e-refusals', images['e2e-loopback-rp0'])
    shown = servers.show(server)
    board = shown['OS-EXT-SRV-ATTR:hypervisor_hostname']
    region = cloud.region_holding(board, server)
    flavor = shown['flavor']
    allocations = held(cloud, server)
    images_before = {i['ID'] for i in bob.json('image', 'list')}

    # refused at the API: Glance refuses the image nova asks for
    snapshot = bob.run('server', 'image', 'create', '--name', 'e2e-snap',
                       server, check=False)
    assert snapshot.returncode != 0
    assert snapshots.REFUSAL % images['e2e-loopback-rp0'] in snapshot.stderr
    assert_still_running(cloud, servers, server, board, region)

    # refused by the driver: the member reads why in the action's event
    for command, action, refused in [
            (('server', 'pause', server), 'pause', 'pause'),
            (('server', 'suspend', server), 'suspend', 'suspend'),
            (('server', 'shelve', server), 'shelve', 'shelve'),
            (('server', 'resize', '--flavor', alt_flavor, server), 'resize',
             'migrate or resize')]:
        bob.run(*command)
        wait_for_details(bob, server, action,
                         unsupported.error(refused).format_message())
        assert_still_running(cloud, servers, server, board, region)
    # a power-state sync later (5 s in the demo) it still runs: nothing
    # was stopped behind nova's back
    time.sleep(6)
    assert_still_running(cloud, servers, server, board, region)
    assert servers.show(server)['flavor'] == flavor
    assert held(cloud, server) == allocations

    # shelve's image stays queued: nova makes it before it asks the driver
    # and never removes it when shelving fails
    left = [i for i in bob.json('image', 'list')
            if i['ID'] not in images_before]
    assert [i['Name'] for i in left] == ['e2e-refusals-shelved'], left
    bob.run('image', 'delete', left[0]['ID'])

    # migrate is for admins (nova's policy says so, in words); an admin's
    # is refused by the driver, in words the member reads too
    migrate = bob.run('server', 'migrate', server, check=False)
    assert migrate.returncode != 0
    assert "Policy doesn't allow os_compute_api:os-migrate-server:migrate" \
        in migrate.stderr
    admin.run('server', 'migrate', server)
    wait_for_details(bob, server, 'migrate', unsupported.error(
        'migrate or resize').format_message())
    assert_still_running(cloud, servers, server, board, region)
    assert held(cloud, server) == allocations


def test_plain_uploads_are_refused_with_the_reason(bob, tmp_path):
    """A plain upload of an image that declares its shell goes to the
    bitstream store, which refuses it (VM images, declaring none, go to
    Glance's default store: tests/glance).
    """
    shell = '--property', 'fpga_shell_id=%s' % REFERENCE.shell_id
    bad = tmp_path / 'bad.bit'
    bad.write_bytes(b'\0' * 4096)
    out = bob.run('image', 'create', '--file', bad, *shell, 'e2e-bad',
                  check=False)
    assert out.returncode != 0
    assert 'not a valid bitstream: not a Xilinx bitstream' in out.stderr
    good = tmp_path / 'good.bit'
    good.write_bytes(builder.build_partial(
        PART, 'e2e_plain', catalogue.module_id('loopback'),
        REFERENCE.region('rp0').footprint))
    out = bob.run('image', 'create', '--file', good, *shell, 'e2e-plain',
                  check=False)
    assert out.returncode != 0
    assert 'bitstreams must be uploaded with --import' in out.stderr
    assert not [i for i in bob.json('image', 'list')
                if i['Name'] in ('e2e-bad', 'e2e-plain')]


def module_of(cloud, server_id):
    for board in cloud.describe_boards().values():
        for region in board['regions']:
            if region['instance_uuid'] == server_id:
                return region['module_id']
    raise AssertionError('server %s holds no region' % server_id)


# beyond CI: nova's functional harness runs the same case in CI
# (test_zynq_servers.py, test_properties_cannot_make_a_region_run_other_data)
@pytest.mark.beyond_ci
def test_properties_cannot_make_a_region_run_other_data(
        cloud, admin, servers, images):
    """An admin gives the loopback image the vTC image's properties (its
    digest property included) while both boards cache the vTC: the region
    still runs the loopback's own data, the data Glance stored.
    """
    loopback, vtc = images['e2e-loopback-rp1'], images['e2e-vtc-rp1']
    vtc_props = admin.json('image', 'show', vtc)['properties']
    own_props = admin.json('image', 'show', loopback)['properties']
    copied = {k: v for k, v in vtc_props.items() if k.startswith('fpga_')}
    vtc_servers = [servers.create('e2e-vtc-%d' % n, vtc) for n in range(2)]
    assert {module_of(cloud, s) for s in vtc_servers} == {
        copied['fpga_module_id']}
    servers.delete_all()
    cached = {name: [entry['sha256'] for entry in board['cached']]
              for name, board in cloud.describe_boards().items()}
    assert all(vtc_props['os_hash_value'] in digests
               for digests in cached.values()), cached

    def set_props(props):
        args = ['image', 'set']
        for key, value in props.items():
            args += ['--property', '%s=%s' % (key, value)]
        admin.run(*args, loopback)
    set_props(copied)
    try:
        server = servers.create('e2e-integrity', loopback)
        assert module_of(cloud, server) == own_props['fpga_module_id']
    finally:
        set_props({k: v for k, v in own_props.items()
                   if k.startswith('fpga_')})


# beyond CI: nova's functional harness shows another project's server's
# console gives nothing away in CI (test_console_privacy.py); the list and
# show refusals are nova's own API
@pytest.mark.beyond_ci
def test_a_member_sees_nothing_of_another_projects_servers(
        cloud, bob, alice, admin, servers, images):
    """bob's servers come and go in both boards' rp1; alice's server in
    one of those regions shows her own history and counters only.
    """
    vtc = images['e2e-vtc-rp1']
    bobs = [servers.create('e2e-bob-%d' % n, vtc) for n in range(2)]
    servers.delete_all()
    loopback = images['e2e-loopback-rp1']
    bob.run('image', 'set', '--community', loopback)
    try:
        mine = Servers(alice, admin, servers.flavor)
        try:
            server = mine.create('e2e-alice', loopback)
            log = alice.run('console', 'log', 'show', server).stdout
            assert server in log
            diagnostics = admin.run('--os-compute-api-version', '2.48',
                                    'server', 'show', '--diagnostics',
                                    server).stdout
            for text in (log, diagnostics):
                for secret in bobs + [vtc]:
                    assert secret not in text, (secret, text)
        finally:
            mine.delete_all()
    finally:
        bob.run('image', 'set', '--private', loopback)
