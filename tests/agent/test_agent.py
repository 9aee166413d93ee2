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

"""The agent's RPC API end to end over oslo.messaging's in-process transport:
the same client nova-compute uses, the same server a board runs."""
import hashlib
import threading
import time
import uuid

import oslo_messaging as messaging
import pytest

from nova_fpga import catalogue
from nova_fpga.contract import agent_api as api
from nova_fpga.contract import states
from nova_fpga_agent import state as st
from tests.agent.conftest import module_for
from tests.agent.conftest import REFERENCE
from tests.agent import simple_dma
from tests.unit.bitstream import realfiles

LOOPBACK = '0x%08X' % catalogue.module_id('loopback')


def load(cloud, board, region, data, instance=None, image='img-1'):
    instance = instance or str(uuid.uuid4())
    result = cloud.client.load({}, board, region, instance, image,
                               hashlib.sha256(data).hexdigest(), data)
    return instance, result


def region_of(description, name):
    return next(r for r in description['regions'] if r['name'] == name)


def test_describe_names_board_shell_and_regions(board_cloud):
    cloud = board_cloud
    cloud.start('b0')
    d = cloud.client.describe({}, 'b0')
    assert d['board'] == 'b0' and d['device'] == 'xc7z020'
    assert d['shell_id'] == REFERENCE.shell_id
    assert d['api_version'] == api.API_VERSION and d['agent_version']
    rp0 = region_of(d, 'rp0')
    assert rp0['footprint'] == REFERENCE.region('rp0').footprint.to_dict()
    assert rp0['state'] == states.FREE and rp0['instance_uuid'] is None


def test_load_stats_power_reset_unload(board_cloud):
    cloud = board_cloud
    agent = cloud.start('b0')
    instance, result = load(cloud, 'b0', 'rp0', module_for('rp0'))
    assert result['state'] == states.ACTIVE and result['module_id'] == LOOPBACK
    assert result['port_seconds'] > 0 and result['agent_seconds'] > 0
    frame = bytes(range(64))
    assert simple_dma.transfer(agent.manager.backend, 'rp0', frame) == [frame]

    def stats():
        return cloud.client.stats({}, 'b0', 'rp0', instance)
    assert stats()['module'] == {'frames': 1, 'bytes': 64}
    assert 'loaded image img-1' in stats()['log'][-1]

    off = cloud.client.power({}, 'b0', 'rp0', instance, False)
    assert off['state'] == states.STOPPED
    assert agent.manager.backend.is_decoupled('rp0')
    assert stats()['module'] == {}
    on = cloud.client.power({}, 'b0', 'rp0', instance, True)
    assert on['state'] == states.ACTIVE
    # power on resets the module: counters start again
    assert stats()['module']['frames'] == 0
    simple_dma.transfer(agent.manager.backend, 'rp0', frame)
    cloud.client.reset({}, 'b0', 'rp0', instance)
    assert stats()['module']['frames'] == 0

    freed = cloud.client.unload({}, 'b0', 'rp0', instance)
    assert freed['state'] == states.FREE and freed['instance_uuid'] is None
    assert agent.manager.backend.is_decoupled('rp0')
    # unloading a free region again is harmless
    assert (
        cloud.client.unload({}, 'b0', 'rp0', instance)['state'] == states.FREE
    )


def test_stats_show_the_holder_only_its_own_history(cloud):
    agent = cloud.start('b0')
    first, _ = load(cloud, 'b0', 'rp0', module_for('rp0'), image='img-first')
    simple_dma.transfer(agent.manager.backend, 'rp0', bytes(64))
    cloud.client.power({}, 'b0', 'rp0', first, False)
    cloud.client.power({}, 'b0', 'rp0', first, True)
    cloud.client.reset({}, 'b0', 'rp0', first)
    assert len(cloud.client.stats({}, 'b0', 'rp0', first)['log']) == 4
    cloud.client.unload({}, 'b0', 'rp0', first)

    second, _ = load(cloud, 'b0', 'rp0', module_for('rp0'),
                     image='img-second')
    stats = cloud.client.stats({}, 'b0', 'rp0', second)
    assert len(stats['log']) == 1
    assert 'loaded image img-second' in stats['log'][0]
    assert not [line for line in stats['log']
                if first in line or 'img-first' in line]
    assert stats['module'] == {'frames': 0, 'bytes': 0}
    assert stats['dataplane'] == {}  # this board has no data interface
    # the earlier holder, another region's and a stranger are refused
    other, _ = load(cloud, 'b0', 'rp1', module_for('rp1'))
    for instance in (first, other, str(uuid.uuid4())):
        with pytest.raises(api.RegionNotHeld):
            cloud.client.stats({}, 'b0', 'rp0', instance)
    cloud.client.unload({}, 'b0', 'rp0', second)
    with pytest.raises(api.RegionNotHeld):
        cloud.client.stats({}, 'b0', 'rp0', second)  # a free region


def test_stats_without_an_instance_are_refused(cloud):
    cloud.start('b0')
    instance, _ = load(cloud, 'b0', 'rp0', module_for('rp0'))
    old = api.AgentAPI(cloud.transport, version_cap='1.1')
    with pytest.raises(api.InvalidRequest, match='API 1.2'):
        old.stats({}, 'b0', 'rp0', instance)  # the client refuses
    # a client before 1.2 names no instance: the agent refuses it
    cctxt = cloud.client.client.prepare(server='b0', version='1.1')
    with pytest.raises(api.InvalidRequest, match='not a UUID'):
        cctxt.call({}, 'stats', region='rp0')


def test_real_partial_loads_as_an_opaque_module(board_cloud):
    cloud = board_cloud
    cloud.start('b0')
    instance, result = load(cloud, 'b0', 'rp0',
                            realfiles.read('pr_0_add.bit'))
    assert result['state'] == states.ACTIVE and result['module_id'] == 'opaque'
    assert cloud.client.stats({}, 'b0', 'rp0', instance)['module'] == {}


@pytest.mark.parametrize('region,data,message', [
    ('rp1', lambda: realfiles.read('pr_0_add.bit'),
     'does not match region rp1'),
    ('rp1', lambda: realfiles.read('pr_0_sub.bit'),
     'does not match region rp1'),
    ('rp0', lambda: realfiles.read('ov5640_lcd_7010.bit'),
     'bitstream is for xc7z010, the board is xc7z020'),
    ('rp0', lambda: realfiles.read('NEGATIVE_microblaze_pmod_mailbox.bin'),
     'not a Xilinx bitstream'),
    ('rp0', lambda: realfiles.read('prio.bit'), 'full bitstream'),
])
def test_refused_loads_name_step_and_cause(cloud, region, data, message):
    agent = cloud.start('b0')
    _, ok = load(cloud, 'b0', 'rp0' if region == 'rp1' else 'rp1',
                 module_for('rp0' if region == 'rp1' else 'rp1'))
    with pytest.raises(api.LoadFailed) as exc:
        load(cloud, 'b0', region, data())
    assert 'step validate' in str(exc.value) and message in str(exc.value)
    assert exc.value.step == 'validate'
    rs = agent.manager.states[region]
    assert rs.state == states.FAILED and message in rs.error
    assert agent.manager.backend.is_decoupled(region)
    # the other region kept running
    other = 'rp0' if region == 'rp1' else 'rp1'
    assert agent.manager.states[other].state == states.ACTIVE
    assert not agent.manager.backend.is_decoupled(other)


def test_digest_mismatch_is_refused(cloud):
    cloud.start('b0')
    data = module_for('rp0')
    with pytest.raises(api.LoadFailed, match='SHA-256'):
        cloud.client.load({}, 'b0', 'rp0', str(uuid.uuid4()), 'img',
                          hashlib.sha256(b'other').hexdigest(), data)


def test_port_failure_mid_write(cloud):
    agent = cloud.start('b0')
    instance, _ = load(cloud, 'b0', 'rp1', module_for('rp1'))
    agent.manager.backend.board.port_fail_after = 4096
    mine = str(uuid.uuid4())
    with pytest.raises(api.LoadFailed) as exc:
        load(cloud, 'b0', 'rp0', module_for('rp0'), instance=mine)
    assert exc.value.step == 'write'
    assert 'after 4096 of' in str(exc.value)
    assert agent.manager.states['rp0'].state == states.FAILED
    assert agent.manager.backend.is_decoupled('rp0')
    assert agent.manager.states['rp1'].state == states.ACTIVE
    # the failed region belongs to its instance until it is unloaded;
    # the same instance may retry at once
    with pytest.raises(api.RegionBusy):
        load(cloud, 'b0', 'rp0', module_for('rp0'))
    _, again = load(cloud, 'b0', 'rp0', module_for('rp0'), instance=mine)
    assert again['state'] == states.ACTIVE


def test_busy_region(cloud):
    agent = cloud.start('b0')
    instance, _ = load(cloud, 'b0', 'rp0', module_for('rp0'))
    with pytest.raises(api.RegionBusy, match='held by instance %s' % instance):
        load(cloud, 'b0', 'rp0', module_for('rp0'))
    with pytest.raises(api.RegionNotHeld):
        cloud.client.unload({}, 'b0', 'rp0', str(uuid.uuid4()))
    # an operation in progress makes a second one busy, not queued
    lock = agent.manager._locks['rp1']
    lock.acquire()
    try:
        with pytest.raises(api.RegionBusy, match='in progress'):
            load(cloud, 'b0', 'rp1', module_for('rp1'))
    finally:
        lock.release()


def test_concurrent_loads_into_one_region_one_wins(cloud):
    cloud.start('b0')
    results = []

    def attempt():
        try:
            results.append(load(cloud, 'b0', 'rp1', module_for('rp1'))[1])
        except api.RegionBusy as exc:
            results.append(exc)
    threads = [threading.Thread(target=attempt) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(isinstance(r, dict) for r in results) == 1
    assert sum(isinstance(r, api.RegionBusy) for r in results) == 3


@pytest.mark.parametrize('kwargs,message', [
    (dict(region='../../etc/passwd'), 'has no region'),
    (dict(region=['rp0']), 'region must be a name'),
    (dict(instance_uuid='not-a-uuid'), 'not a UUID'),
    (dict(image_id='../x'), 'not an image ID'),
    (dict(sha256='abc'), 'not a hex SHA-256'),
    (dict(bitstream='***'), 'not valid base64'),
    (dict(bitstream=123), 'base64 text'),
])
def test_bad_rpc_arguments(cloud, kwargs, message):
    cloud.start('b0')
    data = module_for('rp0')
    args = dict(region='rp0', instance_uuid=str(uuid.uuid4()),
                image_id='img', sha256=hashlib.sha256(data).hexdigest(),
                bitstream=api.encode_bitstream(data))
    args.update(kwargs)
    cctxt = cloud.client.client.prepare(server='b0')
    with pytest.raises(api.InvalidRequest, match=message):
        cctxt.call({}, 'load', **args)


def test_size_limit_both_sides(cloud):
    cloud.start('b0', {('agent', 'max_bitstream_bytes'): 100000})
    data = module_for('rp0')
    with pytest.raises(api.InvalidRequest, match='limit'):
        load(cloud, 'b0', 'rp0', data)  # the agent refuses
    small_client = api.AgentAPI(cloud.transport, max_bitstream_bytes=1000)
    with pytest.raises(api.InvalidRequest, match='exceeds'):
        small_client.load({}, 'b0', 'rp0', str(uuid.uuid4()), 'i', 'a' * 64,
                          data)  # the client refuses before sending


def test_version_cap_is_honoured(cloud):
    cloud.start('b0')
    old = api.AgentAPI(cloud.transport, version_cap='1.0')
    assert old.describe({}, 'b0')['board'] == 'b0'
    assert not old.client.can_send_version('1.1')


def test_restart_keeps_state_and_running_modules(board_cloud):
    cloud = board_cloud
    cloud.start('b0')
    instance, _ = load(cloud, 'b0', 'rp1', module_for('rp1'))
    cloud.stop('b0')
    agent = cloud.start('b0')
    rp1 = region_of(cloud.client.describe({}, 'b0'), 'rp1')
    assert rp1['state'] == states.ACTIVE and rp1['instance_uuid'] == instance
    frame = bytes(100)
    assert simple_dma.transfer(agent.manager.backend, 'rp1', frame) == [frame]


def test_corrupt_state_file_starts_safe(board_cloud, tmp_path):
    cloud = board_cloud
    cloud.start('b0')
    load(cloud, 'b0', 'rp0', module_for('rp0'))
    cloud.stop('b0')
    (tmp_path / 'b0' / st.FILE_NAME).write_text('{"version": 1, "regio')
    agent = cloud.start('b0')
    d = cloud.client.describe({}, 'b0')
    for region in d['regions']:
        assert region['state'] == states.FAILED
        assert 'unreadable' in region['error']
        assert agent.manager.backend.is_decoupled(region['name'])
    assert list((tmp_path / 'b0').glob('regions.json.corrupt-*'))
    # an operator (or nova) clears a region, then it loads again
    cloud.client.unload({}, 'b0', 'rp0', str(uuid.uuid4()))
    assert (
        load(cloud, 'b0', 'rp0', module_for('rp0'))[1]['state']
        == states.ACTIVE
    )


def test_board_reboot_is_noticed(board_cloud):
    cloud = board_cloud
    cloud.start('b0')
    load(cloud, 'b0', 'rp0', module_for('rp0'))
    cloud.stop('b0')
    cloud.reboot('b0')  # the fabric lost power
    cloud.start('b0')
    rp0 = region_of(cloud.client.describe({}, 'b0'), 'rp0')
    assert rp0['state'] == states.FAILED
    assert 'no longer holds module %s' % LOOPBACK in rp0['error']


def test_state_reports_are_published(cloud):
    seen = threading.Event()
    reports = []

    class Endpoint:
        def info(self, ctxt, publisher_id, event_type, payload, metadata):
            if event_type == api.REPORT_EVENT:
                reports.append((publisher_id, payload))
                seen.set()
    listener = messaging.get_notification_listener(
        cloud.notifications, [messaging.Target(topic=api.REPORT_TOPIC)],
        [Endpoint()], executor='threading')
    listener.start()
    try:
        cloud.start('b0', {('agent', 'report_interval'): 1})
        assert seen.wait(10)
    finally:
        listener.stop()
        listener.wait()
    publisher, payload = reports[0]
    assert publisher == 'nova-fpga-agent.b0'
    assert payload['board'] == 'b0' and len(payload['regions']) == 2


def test_a_state_change_is_reported_at_once_and_numbered(cloud):
    reports = []

    class Endpoint:
        def info(self, ctxt, publisher_id, event_type, payload, metadata):
            reports.append(payload)

    def wait_for_report(boot_id, state):
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            for report in reports:
                if (report['boot_id'] == boot_id
                        and report['regions'][0]['state'] == state):
                    return report
            time.sleep(0.05)
        raise AssertionError('no report of boot %s with rp0 %s'
                             % (boot_id, state))

    listener = messaging.get_notification_listener(
        cloud.notifications,
        [messaging.Target(exchange=api.EXCHANGE, topic=api.REPORT_TOPIC)],
        [Endpoint()], executor='threading')
    listener.start()
    try:
        # the next periodic report is an hour away
        agent = cloud.start('b0', {('agent', 'report_interval'): 3600})
        boot_id = agent.manager.boot_id
        first = wait_for_report(boot_id, states.FREE)
        _, answer = load(cloud, 'b0', 'rp0', module_for('rp0'))
        last = wait_for_report(boot_id, states.ACTIVE)
    finally:
        listener.stop()
        listener.wait()
    assert answer['boot_id'] == boot_id
    assert first['sequence'] < answer['sequence'] < last['sequence']
    assert last['booted_at'] == first['booted_at']


def test_agent_refuses_a_manifest_for_another_device(cloud):
    with pytest.raises(RuntimeError, match='IDCODE'):
        cloud.start('b0', {('emulator', 'part'): 'xc7z010clg400-1'})
