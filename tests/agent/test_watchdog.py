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

"""The temperature and power watchdog on the sim backend: the agent reads
the fake kernel's XADC under [agent] sysfs_root, trips at the trip
temperature, holds through the hysteresis band and recovers below it, and
holds the regions while a supply is out of range."""
import logging
import re
import time

import pytest

from nova_fpga.contract import agent_api as api
from nova_fpga.contract import states
from nova_fpga_agent import xadc
from nova_fpga_emulator.fakekernel import iio
from tests.agent.conftest import BoardCloud
from tests.agent.conftest import module_for
from tests.agent import simple_dma
from tests.agent.test_agent import load
from tests.agent.test_agent import region_of

FRAME = bytes(range(64))


def start(cloud, tmp_path, celsius=iio.ROOM_CELSIUS, options=None):
    """An agent whose sysfs shows an XADC at celsius; (agent, fake XADC)."""
    sysfs = tmp_path / 'sys'
    sensor = iio.FakeXadc(str(sysfs)).install(celsius)
    options = dict(options or {})
    options['agent', 'sysfs_root'] = sysfs
    agent = cloud.start('b0', options)
    return agent, sensor


def heat(agent, sensor, celsius):
    sensor.set_temperature(celsius)
    agent.watchdog.check()
    return agent.manager.describe()


def test_reader_follows_the_drivers_formulas(tmp_path):
    iio.FakeXadc(str(tmp_path), index=2).install(60.0)
    found = xadc.Xadc.find(str(tmp_path))
    assert found.path.endswith('iio:device2')
    # one LSB of the 12-bit code is about 0.12 degrees
    assert found.temperature() == pytest.approx(60.0, abs=0.07)
    supplies = found.supplies()
    assert supplies['vccint'] == pytest.approx(1.0, abs=0.001)
    assert supplies['vccaux'] == pytest.approx(1.8, abs=0.001)


def test_trip_hold_in_band_recover(cloud, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger='nova_fpga_agent')
    agent, sensor = start(cloud, tmp_path)
    board = agent.manager.backend.board
    instance, _ = load(cloud, 'b0', 'rp0', module_for('rp0'))
    assert simple_dma.transfer(agent.manager.backend, 'rp0', FRAME) == [FRAME]
    assert agent.manager.describe()['temperature'] == pytest.approx(
        iio.ROOM_CELSIUS, abs=0.07)

    # the default trip temperature is 85; one LSB is about 0.12 degrees
    hot = heat(agent, sensor, 86.0)
    assert re.match(r'overheated: 8[56]\.\d degC', hot['unfit'])
    for name in ('rp0', 'rp1'):
        assert board.decoupled(name) and board.in_reset(name)
        assert region_of(hot, name)['decoupled']
    # the server keeps its region; frames no longer reach the module
    assert region_of(hot, 'rp0')['state'] == states.ACTIVE
    with pytest.raises(Exception, match='stopped'):
        simple_dma.transfer(agent.manager.backend, 'rp0', FRAME)
    assert hot['unfit'] in caplog.text
    stats = cloud.client.stats({}, 'b0', 'rp0', instance)
    assert stats['board_unfit'] == hot['unfit']
    assert 'module held in reset' in stats['log'][-1]
    with pytest.raises(api.HardwareError, match='overheated'):
        load(cloud, 'b0', 'rp1', module_for('rp1'))
    with pytest.raises(api.HardwareError, match='overheated'):
        cloud.client.reset({}, 'b0', 'rp0', instance)

    band = heat(agent, sensor, 75.5)   # recovers below 85 - 10
    assert band['unfit'] == hot['unfit']
    assert board.in_reset('rp0') and board.decoupled('rp0')

    cool = heat(agent, sensor, 73.0)
    assert cool['unfit'] is None
    assert re.search(r'cooled to 7[23]\.\d degC', caplog.text)
    assert not board.in_reset('rp0') and not board.decoupled('rp0')
    assert simple_dma.transfer(agent.manager.backend, 'rp0', FRAME) == [FRAME]
    # a free region stays decoupled
    assert board.decoupled('rp1')
    assert 'running again' in cloud.client.stats(
        {}, 'b0', 'rp0', instance)['log'][-1]
    load(cloud, 'b0', 'rp1', module_for('rp1'))


def test_a_supply_out_of_range_holds_the_regions_until_it_is_back(
        cloud, tmp_path, caplog):
    caplog.set_level(logging.INFO, logger='nova_fpga_agent')
    agent, sensor = start(cloud, tmp_path)
    board = agent.manager.backend.board
    load(cloud, 'b0', 'rp0', module_for('rp0'))
    # the DDR's I/O supply depends on the memory: not checked
    sensor.set_supply('vccoddr', 1.2)
    assert heat(agent, sensor, iio.ROOM_CELSIUS)['unfit'] is None

    sensor.set_supply('vccint', 0.9)
    low = heat(agent, sensor, iio.ROOM_CELSIUS)
    assert re.match(r'supply out of range: vccint 0\.9\d\d V outside '
                    r'0\.950-1\.050 V$', low['unfit'])
    assert low['unfit'] in caplog.text
    assert board.in_reset('rp0') and board.decoupled('rp0')

    sensor.set_supply('vccint', 1.0)
    assert heat(agent, sensor, iio.ROOM_CELSIUS)['unfit'] is None
    assert 'has its supplies back in range' in caplog.text
    assert simple_dma.transfer(agent.manager.backend, 'rp0', FRAME) == [FRAME]


def test_supply_tolerance_0_checks_no_supply(cloud, tmp_path):
    agent, sensor = start(cloud, tmp_path,
                          options={('watchdog', 'supply_tolerance'): 0})
    sensor.set_supply('vccint', 0.5)
    assert heat(agent, sensor, iio.ROOM_CELSIUS)['unfit'] is None
    assert heat(agent, sensor, iio.OVERHEAT_CELSIUS)['unfit']


def test_a_stopped_server_stays_off_and_cannot_start_while_hot(
        cloud, tmp_path):
    agent, sensor = start(cloud, tmp_path)
    instance, _ = load(cloud, 'b0', 'rp0', module_for('rp0'))
    cloud.client.power({}, 'b0', 'rp0', instance, False)
    heat(agent, sensor, iio.OVERHEAT_CELSIUS)
    with pytest.raises(api.HardwareError, match='overheated'):
        cloud.client.power({}, 'b0', 'rp0', instance, True)
    heat(agent, sensor, iio.ROOM_CELSIUS)
    assert agent.manager.backend.board.decoupled('rp0')
    assert region_of(agent.manager.describe(), 'rp0')['state'] == \
        states.STOPPED
    on = cloud.client.power({}, 'b0', 'rp0', instance, True)
    assert on['state'] == states.ACTIVE


def test_a_board_hot_at_start_holds_its_regions_before_serving(cloud,
                                                               tmp_path):
    agent, sensor = start(cloud, tmp_path)
    load(cloud, 'b0', 'rp0', module_for('rp0'))
    sensor.overheat()
    cloud.stop('b0')
    agent = cloud.start('b0', {('agent', 'sysfs_root'): tmp_path / 'sys'})
    assert agent.manager.describe()['unfit'].startswith('overheated')
    assert agent.manager.backend.board.in_reset('rp0')
    assert agent.manager.backend.board.decoupled('rp0')


def test_the_report_loop_polls_the_temperature(cloud, tmp_path):
    agent, sensor = start(cloud, tmp_path,
                          options={('watchdog', 'poll_interval'): 1})
    sensor.overheat()
    deadline = time.monotonic() + 10
    while agent.manager.unfit is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert agent.manager.unfit is not None


def test_no_xadc_no_watchdog_said_once(cloud, caplog):
    caplog.set_level(logging.INFO, logger='nova_fpga_agent')
    agent = cloud.start('b0')
    assert agent.watchdog is None
    assert caplog.text.count('no temperature and power watchdog') == 1
    assert agent.manager.describe()['temperature'] is None


@pytest.mark.parametrize('variant', ['fpga_manager', 'xdevcfg'])
def test_board_backends_read_the_fake_kernels_xadc(tmp_path, kernels,
                                                   variant):
    cloud = BoardCloud(tmp_path, variant, kernels)
    try:
        agent = cloud.start('b0')
        backend = agent.manager.backend
        instance, _ = load(cloud, 'b0', 'rp0', module_for('rp0'))
        sensor = iio.control(cloud.kernel('b0').root)
        sensor.overheat()
        agent.watchdog.check()
        assert agent.manager.describe()['unfit'].startswith('overheated')
        assert backend.is_decoupled('rp0') and backend.is_decoupled('rp1')
        sensor.set_temperature(iio.ROOM_CELSIUS)
        agent.watchdog.check()
        assert agent.manager.describe()['unfit'] is None
        assert not backend.is_decoupled('rp0')
        assert cloud.client.stats({}, 'b0', 'rp0', instance)['module'][
            'frames'] == 0
    finally:
        cloud.close()
