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

"""The whole demo cloud (the session's, shared with tests/e2e), driven with
the real openstack CLI and nova-fpga-demo.  What a test creates it deletes;
the cloud is left up (the session purges it).

MariaDB and RabbitMQ are the configured ones when they answer
(NOVA_FPGA_TEST_DATABASE_URL, NOVA_FPGA_TEST_RABBIT_URL), else private ones
the stack starts; test_private_servers.py covers the private path always.
"""
import json
import os
import re
import subprocess
import time

import pytest

from nova_fpga.bitstream import builder
from nova_fpga import catalogue
from nova_fpga.cmd import manage
from nova_fpga.contract import placement
from nova_fpga.contract import shell
from nova_fpga import deployment
from nova_fpga_devtools.localcloud import keystone as localkeystone
from nova_fpga_devtools.localcloud import mariadb
from nova_fpga_devtools.localcloud import nova as localnova
from nova_fpga_devtools.localcloud import process
from nova_fpga_devtools.localcloud import rabbitmq
from tests.conftest import REPORT
from tests.localcloud.demo_cloud import DATABASE_URL
from tests.localcloud.demo_cloud import demo
from tests.localcloud.demo_cloud import RABBIT_URL
from tests.services import alive
from tests.services import CLI

REFERENCE = shell.load(shell.REFERENCE)


@pytest.fixture(scope='module')
def cloud(demo_stack):
    return demo_stack


@pytest.fixture(scope='module')
def admin(cloud):
    return CLI(cloud.openrc('admin'))


def test_configured_servers_are_used_when_they_answer(cloud):
    assert cloud.state['database']['private'] == (
        not mariadb.answers(DATABASE_URL))
    assert cloud.state['rabbitmq']['private'] == (
        rabbitmq.configured(RABBIT_URL) is None)
    names = mariadb.list_databases(cloud.state['database']['url'])
    assert set(cloud.state['databases'].values()) <= names
    # nova's bus and the agents' bus are different vhosts
    assert cloud.state['vhosts']['nova'] != cloud.state['vhosts']['agents']
    assert cloud.state['vhosts']['agents'] in \
        cloud.nova(cloud.keystone).conf()[('zynq', 'transport_url')]


def test_conductor_scheduler_and_compute_are_up(admin):
    services = admin.json('compute', 'service', 'list')
    states = {svc['Binary']: svc['State'] for svc in services}
    assert states == {'nova-conductor': 'up', 'nova-scheduler': 'up',
                      'nova-compute': 'up'}


def test_every_board_is_a_hypervisor(admin, cloud):
    hypervisors = admin.json('hypervisor', 'list')
    assert sorted(hyp['Hypervisor Hostname'] for hyp in hypervisors) == \
        ['board0', 'board1'] == cloud.boards


def test_placement_has_two_region_providers_under_each_board(cloud):
    session = cloud.keystone.session('admin')

    def get(path):
        return session.get(path, endpoint_filter={
            'service_type': 'placement', 'interface': 'public'},
            headers={'OpenStack-API-Version': 'placement 1.14'}).json()

    providers = get('/resource_providers')['resource_providers']
    roots = {rp['name']: rp['uuid'] for rp in providers
             if rp['parent_provider_uuid'] is None}
    assert sorted(roots) == ['board0', 'board1']
    for board, uuid in roots.items():
        children = sorted((rp['name'], rp['uuid']) for rp in providers
                          if rp['parent_provider_uuid'] == uuid)
        assert [name for name, _ in children] == [
            '%s:%s' % (board, region.name) for region in REFERENCE.regions]
        for _, child in children:
            inventory = get('/resource_providers/%s/inventories'
                            % child)['inventories']
            assert inventory[placement.REGION_RESOURCE_CLASS]['total'] == 1


def test_resource_provider_list_shows_boards_and_regions(admin, cloud):
    """osc-placement is installed: the install guide's placement picture with
    the CLI it names.
    """
    providers = admin.json('resource', 'provider', 'list')
    assert sorted(rp['name'] for rp in providers) == sorted(
        [board for board in cloud.boards] +
        ['%s:%s' % (board, region.name) for board in cloud.boards
         for region in REFERENCE.regions])


def _shell(cloud, script, cwd, env=None):
    """script in bash, in cwd, in a shell already holding admin's OS_*
    variables (an old-style openrc sourced earlier) unless env; the
    venv's bin on PATH.  Its stdout.
    """
    if env is None:
        env = dict(localkeystone.without_client_variables(os.environ),
                   **cloud.openrc('admin'))
    env['PATH'] = '%s:%s' % (process.BIN, env.get('PATH', ''))
    out = subprocess.run(['bash', '-c', 'set -e; ' + script], cwd=cwd,
                         env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def _token(cloud, script, cwd):
    """(user name, project name) of the token script's openstack CLI
    gets.
    """
    token = json.loads(_shell(cloud, script + ' token issue -f json', cwd))
    ks = cloud.keystone.admin
    return (ks.users.get(token['user_id']).name,
            ks.projects.get(token['project_id']).name)


def test_each_openrc_clears_the_shell_and_selects_its_user(cloud, tmp_path):
    """openrc-<user> in a shell holding admin's OS_* variables, run away
    from the state directory: the CLI is that user.
    """
    for user in ('alice', 'bob', 'admin'):
        assert _token(cloud, '. %s; openstack' % cloud.credentials_file(
            user), tmp_path) == (user, localkeystone.USERS[user][0])
    rc = cloud.credentials_file().read_text()
    assert rc == cloud.credentials_file('admin').read_text()
    # only a cloud's name and where clouds.yaml is, no password; and
    # where the boards' nova.conf is, for nova-fpga-manage board list/show
    exported = [line for line in rc.splitlines()
                if line.startswith('export ')]
    nova_conf = localnova.Nova.conf_file_in(cloud.dir)
    assert exported == [
        'export OS_CLIENT_CONFIG_FILE=%s' % cloud.clouds_file(),
        'export OS_CLOUD=nova-fpga-admin',
        'export %s=%s' % (manage.NOVA_CONF_VARIABLE, nova_conf)], rc
    assert nova_conf.is_file()
    env = _shell(cloud, '. %s; env' % cloud.credentials_file('alice'),
                 tmp_path, env=dict(os.environ, OS_TOKEN='stale',
                                    OS_SOMETHING_ELSE='x'))
    assert sorted(line.split('=')[0] for line in env.splitlines()
                  if localkeystone.is_client_variable(line.split('=')[0])
                  ) == ['OS_CLIENT_CONFIG_FILE', 'OS_CLOUD'], env


def test_os_cloud_switches_user_after_openrc_from_any_directory(
        cloud, tmp_path):
    rc = cloud.credentials_file()
    assert _token(cloud, '. %s; openstack' % rc, tmp_path) == (
        'admin', 'admin')
    assert _token(cloud, '. %s; openstack --os-cloud nova-fpga-alice' % rc,
                  tmp_path) == ('alice', 'demo')
    assert _token(cloud, '. %s; openstack --os-cloud nova-fpga-bob' % rc,
                  '/') == ('bob', 'fpga-builders')
    # The trap the openrc files avoid, as the warning describes it:
    # OS_* variables beat --os-cloud.
    assert _token(cloud, 'export OS_CLIENT_CONFIG_FILE=%s; openstack '
                  '--os-cloud nova-fpga-alice' % cloud.clouds_file(),
                  tmp_path) == ('admin', 'admin')


def test_status_warns_of_os_variables_that_override_os_cloud(cloud):
    clean = dict(localkeystone.without_client_variables(os.environ),
                 **cloud.cloud_env('alice'))
    _, err = demo(cloud, 'status', env=clean, stderr=True)
    assert 'WARNING' not in err
    _, err = demo(cloud, 'status', stderr=True, env=dict(
        clean, OS_USERNAME='admin', OS_PASSWORD='admin-secret',
        OS_TEST_TIMEOUT='60'))
    assert 'WARNING: OS_PASSWORD, OS_USERNAME set in this shell' in err
    assert '. %s' % cloud.credentials_file() in err


def test_neutron_answers(admin):
    assert admin.json('network', 'agent', 'list') == []
    assert isinstance(admin.json('port', 'list'), list)


def _loopback_image(admin, cli, name, tmp_path):
    """The fpga.region flavor and an imported loopback image for rp0,
    created as ``cli``'s user.
    """
    flavor = subprocess.run(
        [str(process.BIN / 'nova-fpga-manage'), 'flavor', 'create'],
        env=admin.env, capture_output=True, text=True, timeout=120)
    assert flavor.returncode == 0, flavor.stderr
    path = tmp_path / 'loopback_rp0.bit'
    path.write_bytes(builder.build_partial(
        '7z020clg400', 'loopback_rp0', catalogue.module_id('loopback'),
        REFERENCE.region('rp0').footprint))
    image = cli.json('image', 'create', name, '--file', path,
                     '--disk-format', 'raw', '--container-format', 'bare',
                     '--import', '--property',
                     'fpga_shell_id=%s' % REFERENCE.shell_id)
    image = cli.wait_import(image['id'])
    assert image['status'] == 'active', image
    return image


def test_a_bitstream_server_goes_active_and_delete_frees_its_region(
        cloud, admin, tmp_path):
    bob = CLI(cloud.openrc('bob'))
    image = _loopback_image(admin, bob, 'loopback-rp0', tmp_path)

    server = bob.json('server', 'create', '--flavor', 'fpga.region',
                      '--image', image['id'], '--nic', 'none', '--wait',
                      'loop1')
    assert server['status'] == 'ACTIVE'
    shown = admin.json('server', 'show', server['id'])
    board = shown['OS-EXT-SRV-ATTR:hypervisor_hostname']
    regions = {region['name']: region
               for region in cloud.describe_boards()[board]['regions']}
    assert regions['rp0']['state'] == 'ACTIVE'
    assert regions['rp0']['instance_uuid'] == server['id']
    assert 'server loop1 (%s)' % server['id'] in demo(cloud, 'status')

    bob.run('server', 'delete', '--wait', server['id'])
    regions = {region['name']: region
               for region in cloud.describe_boards()[board]['regions']}
    assert regions['rp0']['state'] == 'FREE'
    assert regions['rp0']['instance_uuid'] is None
    bob.run('image', 'delete', image['id'])


def _until(check, timeout=30):
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, 'timed out'
        time.sleep(0.5)


def test_temperature_overheats_a_board_and_its_server_shows_why(
        cloud, admin, tmp_path):
    image = _loopback_image(admin, admin, 'loopback-hot', tmp_path)
    server = admin.json('server', 'create', '--flavor', 'fpga.region',
                        '--image', image['id'], '--nic', 'none', '--wait',
                        'hot1')
    board = admin.json('server', 'show', server['id'])[
        'OS-EXT-SRV-ATTR:hypervisor_hostname']

    def unfit():
        return cloud.describe_boards()[board].get('unfit')

    try:
        assert 'XADC reads 95.0' in demo(cloud, 'temperature', board, '95')
        _until(unfit)
        console = admin.run('console', 'log', 'show', server['id']).stdout
        assert 'while the board is unfit: overheated: 95.' in console
        assert 'overheated' in cloud.board(board).log.read_text()
    finally:
        demo(cloud, 'temperature', board, '45')
    _until(lambda: not unfit())
    assert 'region running again' in admin.run(
        'console', 'log', 'show', server['id']).stdout
    admin.run('server', 'delete', '--wait', server['id'])
    admin.run('image', 'delete', image['id'])


def test_status_shows_each_service_running_and_each_region(cloud):
    out = demo(cloud, 'status')
    rows = {line.split()[0]: line.split()[1] for line in out.splitlines()
            if '/' in line.split()[0]}
    assert set(rows) == {
        'keystone/keystone', 'barbican/barbican-api', 'glance/glance-api',
        'placement/placement-api', 'neutron/neutron-server',
        'neutron/neutron-rpc-server', 'nova/nova-api', 'nova/nova-conductor',
        'nova/nova-scheduler', 'nova/nova-compute', 'boards/board0/agent',
        'boards/board1/fakekernel', 'boards/board1/agent'} | {
            # each region's emulated AXI DMA and module (nova-fpga-sgemu,
            # started by the sim backend, or by board1's fake kernel)
            'boards/board0/state/engines/rp0',
            'boards/board0/state/engines/rp1',
            'boards/board1/fakekernel/board/engines/rp0',
            'boards/board1/fakekernel/board/engines/rp1'} | (
            {'mariadb/mariadb'} if cloud.state['database']['private']
            else set()) | ({'rabbitmq/rabbitmq', 'rabbitmq/epmd'}
                           if cloud.state['rabbitmq']['private'] else
                           {'agents-bus/rabbitmq/rabbitmq',
                            'agents-bus/rabbitmq/epmd'})
    assert set(rows.values()) == {'running'}, out
    # the agents' bus: TLS, a user and a vhost per board with only the
    # board's rights, as status says and as the node and the files are
    port = cloud._agents_tls_port()
    assert "agents' bus: TLS on 127.0.0.1:%d" % port in out
    assert 'verify_peer, fail_if_no_peer_cert' in out
    broker = cloud._agents_broker()
    agents_vhost = cloud.state['vhosts']['agents']
    for board in cloud.boards:
        login = cloud.state['mq_users'][board][0]
        vhost = deployment.board_vhost(agents_vhost, board)
        assert '%s: user %s on vhost %s' % (board, login, vhost) in out
        granted = [line.split('\t') for line in broker.rabbitmqctl(
            'list_user_permissions', login, '--no-table-headers'
        ).splitlines() if line.strip()]
        assert granted == [[vhost, *deployment.board_permissions(board)]]
        conf = cloud.board(board).conf()
        assert conf[('oslo_messaging_rabbit', 'ssl')] is True
        assert ':%d/' % port in conf[('DEFAULT', 'transport_url')]
        assert conf[('DEFAULT', 'transport_url')].endswith(
            '/' + vhost)
    nova_conf = cloud.nova(cloud.keystone).conf()
    assert nova_conf[('zynq', 'ssl')] is True
    assert nova_conf[('zynq', 'vhost_per_board')] is True
    assert 'board0: agent answers (sim backend' in out
    assert 'board1: agent answers (fpga_manager backend' in out
    assert out.count('  rp0  FREE') == out.count('  rp1  FREE') == 2


def test_logs_prints_the_tail_of_one_service(cloud):
    out = demo(cloud, 'logs', 'nova-compute', '-n', '3')
    assert out.splitlines() == (cloud.dir / 'nova' / 'nova-compute.log') \
        .read_text().splitlines()[-3:]


def test_a_stopped_board_is_shown_and_up_restarts_only_it(cloud):
    assert cloud.stop('boards/board1/agent')
    out = demo(cloud, 'status')
    assert re.search(r'\nboards/board1/agent +stopped', out)
    assert 'board1: agent does not answer' in out
    out = demo(cloud, 'up')
    assert 'starting board1 ... ok' in out
    assert 'starting board0' not in out and 'starting keystone' not in out
    assert cloud.describe_boards()['board1']['board'] == 'board1'


def test_up_again_starts_no_second_copy(cloud):
    before = cloud.pids()
    out, err = demo(cloud, 'up', stderr=True, env=dict(
        localkeystone.without_client_variables(os.environ),
        OS_AUTH_URL='http://elsewhere/v3'))
    assert 'WARNING: OS_AUTH_URL set in this shell' in err
    started = [line.split(' ...')[0] for line in out.splitlines()
               if line.startswith('starting ')]
    # only the steps without a process of their own run again
    assert started == ['starting databases and vhosts', 'starting nova set-up',
                       'starting nova services'], out
    assert 'board0: already running' in out
    assert 'emulated modules (Verilator, once per HDL change) ... already ' \
        'built' in out
    assert cloud.pids() == before


def test_down_stops_everything_and_up_resumes_the_same_cloud(cloud, admin):
    pids = [pid for group in cloud.pids().values() for pid in group]
    assert len(pids) >= 10
    out = demo(cloud, 'down')
    assert 'stopped keystone/keystone' in out
    assert [pid for pid in pids if alive(pid)] == []
    assert cloud.pids() == {}
    status = demo(cloud, 'status')
    states = {line.split()[1] for line in status.splitlines()
              if '/' in line.split()[0]}
    assert states == {'stopped'}, status
    assert 'board0: agent does not answer' in status
    if not cloud.state['database']['private']:
        # a configured server is left alone, with the cloud's databases
        assert set(cloud.state['databases'].values()) <= \
            mariadb.list_databases(cloud.state['database']['url'])

    cloud.up()
    REPORT.append('demo stack: resumed after down in %.0f s'
                  % cloud.timings['total'])
    assert 'fpga.region' in [flavor['Name'] for flavor in
                             admin.json('flavor', 'list')]
    assert sorted(hyp['Hypervisor Hostname'] for hyp in admin.json(
        'hypervisor', 'list')) == ['board0', 'board1']
