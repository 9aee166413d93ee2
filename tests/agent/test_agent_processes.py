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

"""Agents as separate processes on real RabbitMQ: the agents' own vhost,
per-board credentials, SIGKILL at every step of a load."""
import hashlib
import json
import pathlib
import time
import uuid

import oslo_messaging as messaging
import pytest

from nova_fpga.contract import agent_api as api
from nova_fpga.contract import states
from tests.agent.conftest import module_for
from tests.agent import fakekernel
from tests.agent.processes import AgentProcess
from tests.agent.processes import client_for
from tests.unit.bitstream import realfiles

# emulator operation that dies -> the load step the state file must name
CRASH_POINTS = [('decouple', 'decouple'), ('pcap_write', 'write'),
                ('couple', 'couple'), ('reset', 'reset'),
                ('read_id', 'check_id'), ('dma_start', 'start_datapath')]


@pytest.fixture
def client(rabbitmq):
    c, transport = client_for(rabbitmq.user('cloud'))
    yield c
    transport.cleanup()


@pytest.fixture
def agents(tmp_path, rabbitmq):
    started = []

    def start(board, client, options=None):
        agent = AgentProcess(tmp_path, board, rabbitmq.user(board), options)
        agent.start(client)
        started.append(agent)
        return agent
    yield start
    for agent in started:
        agent.stop()


def load(client, board, region, data, instance=None, timeout=None):
    instance = instance or str(uuid.uuid4())
    return instance, client.load({}, board, region, instance, 'img',
                                 hashlib.sha256(data).hexdigest(), data,
                                 timeout=timeout)


def region_of(client, board, name):
    return next(r for r in client.describe({}, board)['regions']
                if r['name'] == name)


def test_two_boards_side_by_side(client, agents, tmp_path):
    agents('zb0', client)
    agents('zb1', client)
    i0, r0 = load(client, 'zb0', 'rp0', module_for('rp0'))
    i1, r1 = load(client, 'zb1', 'rp0', realfiles.read('pr_0_add.bit'))
    assert r0['module_id'] == '0x4E460001' and r1['module_id'] == 'opaque'
    assert region_of(client, 'zb0', 'rp0')['instance_uuid'] == i0
    assert region_of(client, 'zb1', 'rp0')['instance_uuid'] == i1
    assert region_of(client, 'zb1', 'rp1')['state'] == states.FREE
    # each board keeps its own state directory
    for board, instance in (('zb0', i0), ('zb1', i1)):
        saved = json.loads((tmp_path / board / 'regions.json').read_text())
        assert [r['instance_uuid'] for r in saved['regions']
                if r['region'] == 'rp0'] == [instance]
    stats = client.stats({}, 'zb0', 'rp0', i0)
    assert stats['module'] == {'frames': 0, 'bytes': 0}
    assert client.power({}, 'zb0', 'rp0', i0, False)['state'] == states.STOPPED
    assert region_of(client, 'zb0', 'rp0')['decoupled']
    assert client.power({}, 'zb0', 'rp0', i0, True)['state'] == states.ACTIVE
    assert client.reset({}, 'zb0', 'rp0', i0)['state'] == states.ACTIVE
    with pytest.raises(api.RegionNotHeld):
        client.unload({}, 'zb0', 'rp0', i1)
    client.unload({}, 'zb0', 'rp0', i0)
    assert region_of(client, 'zb0', 'rp0')['state'] == states.FREE


def test_board_credentials_reach_only_the_agents_vhost(rabbitmq):
    url = rabbitmq.user('intruder').rsplit('/', 1)[0] + '/'
    c, transport = client_for(url, timeout=3)
    try:
        with pytest.raises(Exception):
            c.health({}, 'zb0', timeout=3)
    finally:
        transport.cleanup()


@pytest.mark.parametrize('operation,step', CRASH_POINTS)
def test_sigkill_at_each_step_of_a_load(client, agents, tmp_path, rabbitmq,
                                        operation, step):
    board = 'kill-%s' % operation.replace('_', '-')
    doomed = AgentProcess(tmp_path, board, rabbitmq.user(board),
                          {('emulator', 'crash_at'): operation})
    doomed.start(client)
    instance = str(uuid.uuid4())
    with pytest.raises(messaging.MessagingTimeout):
        load(client, board, 'rp0', module_for('rp0'), instance, timeout=4)
    assert doomed.wait_dead() == -9
    saved = json.loads((tmp_path / board / 'regions.json').read_text())
    rp0 = next(r for r in saved['regions'] if r['region'] == 'rp0')
    assert rp0['state'] == states.LOADING and rp0['step'] == step

    agent = agents(board, client)  # same config, no crash
    assert agent.state_dir == doomed.state_dir
    region = region_of(client, board, 'rp0')
    assert region['state'] == states.FAILED and region['decoupled']
    assert 'agent restarted during the load, at step %s' % step \
        in region['error']
    assert region_of(client, board, 'rp1')['state'] == states.FREE
    # the instance that held it loads again; the region works
    _, result = load(client, board, 'rp0', module_for('rp0'), instance)
    assert result['state'] == states.ACTIVE and not result['decoupled']


@pytest.mark.parametrize('variant', ['fpga_manager_flags', 'xdevcfg'])
def test_sigkill_mid_load_on_a_board_backend(client, agents, tmp_path,
                                             rabbitmq, variant):
    """An agent process on a board backend, its own privileged helper
    started as on a board, killed while the kernel is programming.
    """
    board = 'kill-%s' % variant.replace('_', '-')
    kernel = fakekernel.kernel(tmp_path, board, variant).start()
    try:
        options = kernel.agent_options()
        conf = tmp_path / ('%s.conf' % board)
        options[('nova_fpga_agent_privileged', 'helper_command')] = \
            '%s --config-file %s' % (fakekernel.HELPER, conf)
        options[('board', 'load_timeout')] = 60
        doomed = AgentProcess(tmp_path, board, rabbitmq.user(board), options)
        doomed.start(client)
        kernel.control('fail_state', 'hang')
        instance = str(uuid.uuid4())
        with pytest.raises(messaging.MessagingTimeout):
            load(client, board, 'rp0', module_for('rp0'), instance, timeout=3)
        # killed while the kernel is programming: once the configuration
        # port took the write (the one-shot fault switch read, and off);
        # on a loaded machine the agent may not be there yet after 3 s
        switch = pathlib.Path(kernel.root) / 'control' / 'fail_state'
        deadline = time.monotonic() + 60
        while switch.read_text().strip():
            assert time.monotonic() < deadline, \
                'the load never reached the configuration port'
            time.sleep(0.1)
        doomed.kill()
        agent = agents(board, client, options)  # the same board, restarted
        region = region_of(client, board, 'rp0')
        assert region['state'] == states.FAILED and region['decoupled']
        assert 'agent restarted during the load, at step write' \
            in region['error']
        _, result = load(client, board, 'rp0', module_for('rp0'), instance)
        assert result['state'] == states.ACTIVE and not result['decoupled']
        agent.stop()
    finally:
        kernel.stop()


def test_corrupt_state_file_no_crash_loop(client, agents, tmp_path, rabbitmq):
    board = 'corrupt0'
    (tmp_path / board).mkdir()
    (tmp_path / board / 'regions.json').write_text('{not json')
    agent = agents(board, client)
    region = region_of(client, board, 'rp0')
    assert region['state'] == states.FAILED and 'unreadable' in region['error']
    assert 'is unreadable' in agent.log_text()
    agent.stop()
    agents(board, client)  # and it starts again, cleanly
    assert region_of(client, board, 'rp0')['state'] == states.FAILED


def test_agent_refuses_to_start_on_the_wrong_device(
    tmp_path, rabbitmq, client
):
    agent = AgentProcess(tmp_path, 'wrongdev', rabbitmq.user('wrongdev'),
                         {('emulator', 'part'): 'xc7z010clg400-1'})
    with pytest.raises(RuntimeError, match='exited 1'):
        agent.start(client, timeout=30)
    assert 'shell manifest is for xc7z020' in agent.log_text()
