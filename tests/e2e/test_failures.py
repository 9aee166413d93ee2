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

"""Failures on the demo cloud: a board whose agent is killed keeps its
servers ACTIVE with power state NOSTATE while new servers go to the other
board, and they run again when it is back; a nova-compute restart keeps
every server's state."""
import datetime
import os
import signal
import time

import pytest

from tests.e2e.conftest import reserved_regions
from tests.e2e.conftest import wait_for_details
from tests.localcloud.demo_cloud import demo
from tests.services import alive

#: nova's power states as the CLI's JSON gives them
NOSTATE, RUNNING = 0, 1


def agent_pid(cloud, board):
    pids = cloud.pids().get('boards/%s/agent' % board)
    assert pids, 'board %s has no agent running' % board
    return pids[0]


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, 'not within %d s: %s' % (
            timeout, what)
        time.sleep(0.5)


# nova's functional harness runs the same in CI (SilentAgentTest); here on
# real processes, a few minutes: beyond CI's budget (make test-beyond-ci)
@pytest.mark.beyond_ci
def test_a_dead_board_keeps_its_servers_and_new_ones_go_elsewhere(
        cloud, servers, images, report):
    first = servers.create('e2e-survivor', images['e2e-loopback-rp0'])
    shown = servers.show(first)
    board = shown['OS-EXT-SRV-ATTR:hypervisor_hostname']
    other, = set(cloud.boards) - {board}
    host_status = {'before': shown['host_status']}

    client, transport = cloud.agent_client()
    killed = agent_pid(cloud, board)
    os.kill(killed, signal.SIGKILL)
    try:
        wait_until(lambda: not alive(killed), 10, 'agent %d gone' % killed)
        # at once, the board's last report still fresh: ACTIVE on the other
        # board within 30 s (the driver's health call before a load turns
        # the dead board away in [zynq] rpc_timeout), not load_timeout
        started = time.monotonic()
        right_after = servers.create('e2e-right-after',
                                     images['e2e-loopback-rp1'])
        took = time.monotonic() - started
        shown = servers.show(right_after)
        assert shown['OS-EXT-SRV-ATTR:hypervisor_hostname'] == other, shown
        assert took < 30, took
        report('a create right after the SIGKILL of board %s\'s agent: '
               'ACTIVE on %s in %.1f s' % (board, other, took))
        servers.cli.run('server', 'delete', '--wait', right_after)
        servers.ids.remove(right_after)
        shown = servers.wait_for(
            first, lambda s: s['OS-EXT-STS:power_state'] == NOSTATE,
            timeout=60)
        assert shown['OS-EXT-STS:power_state'] == NOSTATE, shown
        assert shown['status'] == 'ACTIVE', shown
        host_status['agent killed'] = shown['host_status']
        # nova derives host_status from the nova-compute service's
        # heartbeat; the proxy still serves the other board (admin guide:
        # UNKNOWN would need the proxy silent, and then nothing would
        # report NOSTATE)
        assert shown['host_status'] == 'UP', shown
        # nova-compute's resource update reserves the silent board's
        # regions in placement: the scheduler cannot pick them
        wait_until(lambda: reserved_regions(cloud, board) == 2, 60,
                   "%s's regions reserved" % board)

        second = servers.create('e2e-elsewhere', images['e2e-loopback-rp1'])
        assert servers.show(second)['OS-EXT-SRV-ATTR:hypervisor_hostname'] \
            == other
        # the dead board's rp1 is free but cannot be had: no host at all
        third = servers.create('e2e-nowhere', images['e2e-loopback-rp1'],
                               wait=False)
        server = servers.wait_for(third, lambda s: s['status'] != 'BUILD')
        assert server['status'] == 'ERROR', server
        assert 'No valid host was found' in server['fault']['message']
        assert servers.show(first)['status'] == 'ACTIVE'

        # the member who stops it reads why it could not be
        servers.cli.run('server', 'stop', first)
        wait_for_details(servers.cli, first, 'stop', (
            'Failed to power off instance: board %s: the agent does not '
            'answer, so the server could not be stopped; try again once '
            'the board answers' % board), timeout=90)
        shown = servers.wait_for(
            first, lambda s: s['OS-EXT-STS:task_state'] is None)
        assert shown['status'] == 'ACTIVE', shown
    finally:
        if not cloud.pids().get('boards/%s/agent' % board):
            cloud.board(board).start(client)
        transport.cleanup()

    shown = servers.wait_for(
        first, lambda s: s['OS-EXT-STS:power_state'] == RUNNING,
        timeout=60)
    assert (shown['status'], shown['OS-EXT-STS:power_state']) == \
        ('ACTIVE', RUNNING), shown
    host_status['agent back'] = shown['host_status']
    assert cloud.region_holding(board, first) == 'rp0'
    # usable again for whatever test comes next
    wait_until(lambda: reserved_regions(cloud, board) == 0, 60,
               "%s's regions usable again" % board)
    report(
        'e2e: host_status of a server on %s (microversion 2.16): %s'
        % (board, ', '.join('%s %r' % item for item in host_status.items()))
    )


def server_states(cloud, servers, ids):
    states = {}
    described = cloud.describe_boards()
    for server_id in ids:
        shown = servers.show(server_id)
        board = shown['OS-EXT-SRV-ATTR:hypervisor_hostname']
        regions = [r['name'] for r in described[board]['regions']
                   if r['instance_uuid'] == server_id]
        states[server_id] = (shown['status'], shown['OS-EXT-STS:power_state'],
                             shown['OS-EXT-SRV-ATTR:host'], board, regions)
    return states


# the functional harness's restarts run in CI (TwoBoardsTest)
@pytest.mark.beyond_ci
def test_a_nova_compute_restart_keeps_every_server_state(cloud, servers,
                                                         images, admin):
    ids = [servers.create('e2e-kept%d' % index, images[image]) for index,
           image in enumerate(['e2e-loopback-rp0', 'e2e-loopback-rp0',
                               'e2e-loopback-rp1'])]
    before = server_states(cloud, servers, ids)
    assert {state[:2] for state in before.values()} == {('ACTIVE', RUNNING)}
    assert all(len(state[4]) == 1 for state in before.values()), before

    compute = cloud.pids()['nova/nova-compute'][0]
    stopped_at = datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None)
    assert cloud.stop('nova/nova-compute')
    assert not alive(compute)
    assert 'starting nova-compute ... ok' in demo(cloud, 'up')
    assert cloud.pids()['nova/nova-compute'][0] != compute

    def reported_since_restart():
        service, = admin.json('compute', 'service', 'list', '--service',
                              'nova-compute')
        return datetime.datetime.fromisoformat(
            service['Updated At']) > stopped_at and service['State'] == 'up'
    # the first heartbeat comes after init_host (which reconciles regions)
    wait_until(reported_since_restart, 90, 'nova-compute reporting again')
    time.sleep(6)  # and one power-state sync
    assert server_states(cloud, servers, ids) == before
