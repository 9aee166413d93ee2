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

"""An operator's board tools and a project's region quota on the demo
cloud, with the real commands: nova-fpga-manage board list/show/drain/
undrain (drained boards take no new server, running ones finish and are
deleted, freed regions stay reserved through a nova-compute restart, undrain
gives them back) and nova's unified limits refusing alice's second region
server (her project's keystone limit on class:CUSTOM_FPGA_REGION is 1).
"""
import json
import os
import signal
import subprocess

import pytest

from nova_fpga.contract import placement
from nova_fpga_devtools.localcloud import process
from nova_fpga_emulator.fakekernel import process as fkprocess
from tests.e2e.conftest import reserved_regions
from tests.e2e.conftest import Servers
from tests.e2e.test_failures import agent_pid
from tests.e2e.test_failures import wait_until
from tests.localcloud.demo_cloud import demo
from tests.services import alive
from tests.services import CLI


def manage(cloud, admin, *args):
    """nova-fpga-manage board ... as admin, with nova-compute's nova.conf
    for list and show; the finished process.
    """
    extra = ([] if args[0] in ('drain', 'undrain') else
             ['--config-file', str(cloud.nova(cloud.keystone).conf_file)])
    return subprocess.run(
        [str(process.BIN / 'nova-fpga-manage'), 'board', *args, *extra],
        env=admin.env, capture_output=True, text=True, timeout=120)


def agent_backend(cloud, board):
    """The backend the board's agent runs (the session's cloud runs one
    board over a fake kernel).
    """
    variant = cloud.board(board).backend
    return fkprocess.VARIANTS[variant][0] if variant in fkprocess.VARIANTS \
        else variant


def shown(cloud, admin, board):
    out = manage(cloud, admin, 'show', board, '--json')
    assert out.returncode == 0, out.stdout + out.stderr
    return json.loads(out.stdout)


# beyond CI: nova's functional harness runs the same drain, restart and
# undrain (tests/functional/test_board_drain.py) in CI
@pytest.mark.beyond_ci
def test_drain_lets_servers_finish_and_undrain_gives_regions_back(
        cloud, admin, servers, images):
    running = servers.create('e2e-draining', images['e2e-loopback-rp1'])
    board = servers.show(running)['OS-EXT-SRV-ATTR:hypervisor_hostname']
    other, = set(cloud.boards) - {board}

    out = manage(cloud, admin, 'drain', board)
    assert out.returncode == 0, out.stderr
    try:
        assert 'board %s drained' % board in out.stdout
        assert reserved_regions(cloud, board) == 2
        listed = manage(cloud, admin, 'list')
        assert listed.returncode == 0, listed.stderr
        rows = {line.split()[0]: line for line in listed.stdout.splitlines()}
        assert rows[board].split()[1:3] == ['up', agent_backend(cloud, board)]
        assert ' yes ' in rows[board] and ' no ' in rows[other]
        details = shown(cloud, admin, board)
        held = {r['name']: r for r in details['regions']}['rp1']
        assert (details['drained'], held['instance_uuid'], held['reserved'],
                held['used']) == (True, running, 1, 1)

        # nothing new there: rp0 servers go to the other board, then none
        elsewhere = servers.create('e2e-elsewhere', images['e2e-loopback-rp0'])
        assert servers.show(elsewhere)[
            'OS-EXT-SRV-ATTR:hypervisor_hostname'] == other
        refused = servers.create('e2e-refused', images['e2e-loopback-rp0'],
                                 wait=False)
        refused = servers.wait_for(refused, lambda s: s['status'] == 'ERROR')
        assert 'No valid host' in refused['fault']['message']

        # the running server finishes; its region stays reserved, also
        # through a nova-compute restart
        servers.cli.run('server', 'delete', '--wait', running)
        assert cloud.stop('nova/nova-compute')
        assert 'starting nova-compute ... ok' in demo(cloud, 'up')
        wait_until(lambda: not shown(cloud, admin, board)['regions'][1][
            'instance_uuid'], 30, 'rp1 unloaded')
        assert reserved_regions(cloud, board) == 2
        assert shown(cloud, admin, board)['drained'] is True
    finally:
        out = manage(cloud, admin, 'undrain', board)
    assert out.returncode == 0 and 'undrained' in out.stdout, out.stderr
    # nova-compute re-reads the traits every 10 s in the demo cloud
    wait_until(lambda: reserved_regions(cloud, board) == 0, 60,
               'board %s released' % board)


# tests/functional/test_board_drain.py names a silent and an unknown board
# in CI; this form, with a real agent killed and restarted, runs beyond it
@pytest.mark.beyond_ci
def test_silent_and_unknown_boards_are_named(cloud, admin):
    board = cloud.boards[0]
    killed = agent_pid(cloud, board)
    os.kill(killed, signal.SIGKILL)
    try:
        wait_until(lambda: not alive(killed), 10, 'agent %d gone' % killed)
        out = manage(cloud, admin, 'show', board, '--timeout', '1')
        assert out.returncode == 1
        assert 'agent:       no answer (MessagingTimeout)' in out.stdout
        assert 'placement:   ok' in out.stdout
        assert 'no full answer for %s' % board in out.stderr
    finally:
        assert 'starting %s ... ok' % board in demo(cloud, 'up')
    # back in nova's view before the next test: its regions unreserved
    wait_until(lambda: reserved_regions(cloud, board) == 0, 60,
               'board %s back' % board)
    # a board the agents' bus does not know: its vhost is missing
    out = manage(cloud, admin, 'show', 'board9', '--timeout', '1')
    assert out.returncode == 1
    assert 'vhost' in out.stdout and 'board9 not found' in out.stdout
    assert 'board board9 has no resource provider' in out.stdout


def test_over_quota_region_server_is_refused_by_nova(cloud, admin, bob,
                                                     flavor, images):
    alice = CLI(cloud.openrc('alice'))
    loopback = images['e2e-loopback-rp0']
    (limit,) = [item for item in admin.json('limit', 'list', '--project',
                                            'demo')
                if item['Resource Name'] == placement.REGION_LIMIT]
    assert limit['Resource Limit'] == 1
    mine = Servers(alice, admin, flavor)
    bob.run('image', 'set', '--community', loopback)
    try:
        mine.create('e2e-quota1', loopback)
        out = alice.run('server', 'create', '--flavor', flavor, '--image',
                        loopback, '--nic', 'none',
                        'e2e-quota2', check=False)
        assert out.returncode == 1
        assert ('403' in out.stderr and 'is over a limit for [Resource '
                'class:%s is over limit of 1 due to current usage 1 and '
                'delta 1]' % placement.REGION_RESOURCE_CLASS
                in out.stderr), out.stderr
        assert [s['Name'] for s in alice.json('server', 'list')] == [
            'e2e-quota1']
    finally:
        mine.delete_all()
        bob.run('image', 'set', '--private', loopback)
