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

"""The board emulator refuses what the silicon would, takes the port's time,
and runs the declared module's real HDL."""
import threading
import time

import pytest

from nova_fpga.bitstream import builder
from nova_fpga.bitstream import container
from nova_fpga.bitstream import footprint as fp
from nova_fpga import catalogue
from nova_fpga_emulator import board
from nova_fpga_emulator import modules
from tests.agent.conftest import module_for
from tests.agent.conftest import opaque_for
from tests.agent.conftest import REFERENCE
from tests.conftest import HDL
from tests.unit.bitstream import mutate
from tests.unit.bitstream import realfiles

COMMON = catalogue.load().common.registers


@pytest.fixture
def emu(tmp_path):
    return board.EmulatedBoard(REFERENCE, 'xc7z020clg400-1', str(tmp_path),
                               pcap_rate=1000.0, hdl_dir=HDL)


@pytest.mark.parametrize('data,message', [
    (lambda: realfiles.read('prio.bit'), 'full bitstream'),
    (lambda: realfiles.read('ov5640_lcd_7010.bit'), 'IDCODE error'),
    (lambda: module_for('rp0', part='7z010clg400'), 'IDCODE error'),
    (lambda: mutate.flip_bit(module_for('rp0'), 300000), 'CRC check word'),
    (lambda: realfiles.read('NEGATIVE_microblaze_pmod_mailbox.bin'),
     'not a Xilinx bitstream'),
    (lambda: builder.build_partial('7z020clg400', 'x', 1, fp.Footprint(
        (fp.Block(0x00400000, 101 * 10),))), 'frames outside every'),
])
def test_port_refuses_what_the_pcap_would(emu, data, message):
    with pytest.raises(board.PcapError, match=message):
        emu.pcap_write(data())
    assert emu.module_in('rp0') is None and emu.module_in('rp1') is None


def test_port_refuses_a_coupled_region(emu):
    emu.set_decoupled('rp0', False)
    with pytest.raises(board.PcapError, match='not decoupled'):
        emu.pcap_write(module_for('rp0'))


def test_port_takes_size_over_rate(tmp_path):
    slow = board.EmulatedBoard(REFERENCE, 'xc7z020clg400-1', str(tmp_path),
                               pcap_rate=20.0)
    data = opaque_for('rp0')
    started = time.monotonic()
    modelled = slow.pcap_write(data)
    elapsed = time.monotonic() - started
    assert modelled == pytest.approx(len(data) / 20e6)
    assert elapsed >= modelled


def test_declared_module_runs_its_hdl(emu):
    emu.pcap_write(module_for('rp0'))
    assert emu.module_in('rp0') == catalogue.module_id('loopback')
    with pytest.raises(board.AxiError, match='DECERR'):
        emu.axil_read('rp0', COMMON.MODULE_ID)
    emu.set_decoupled('rp0', False)
    assert emu.axil_read('rp0', 0) == catalogue.module_id('loopback')
    emu.dma_start('rp0')
    frame = bytes(range(60))
    assert emu.dma_transfer('rp0', frame) == [frame]
    assert emu.axil_read('rp0', COMMON.FRAMES_LO) == 1


def test_real_partial_is_an_opaque_module(emu):
    emu.pcap_write(realfiles.read('pr_0_add.bit'))
    assert emu.module_in('rp0') == 0xFFFFFFFF
    emu.set_decoupled('rp0', False)
    with pytest.raises(board.AxiError, match='no module'):
        emu.axil_read('rp0', 0)
    with pytest.raises(board.AxiError):
        emu.dma_start('rp0')


def test_unknown_module_cannot_run(emu):
    with pytest.raises(board.PcapError, match='no HDL for module 0x12345678'):
        emu.pcap_write(module_for('rp0', module_id=0x12345678))


def test_port_failure_mid_write_leaves_partial_frames(emu):
    emu.pcap_write(module_for('rp1'))
    emu.port_fail_after = 1000
    with pytest.raises(board.PcapError, match='after 1000 of'):
        emu.pcap_write(module_for('rp0'))
    assert emu.module_in('rp0') is None
    assert emu.decoupled('rp0')
    assert emu.module_in('rp1') == catalogue.module_id('loopback')  # untouched


def test_fabric_outlives_the_agent(tmp_path):
    first = board.EmulatedBoard(REFERENCE, 'xc7z020clg400-1', str(tmp_path),
                                pcap_rate=1000.0, hdl_dir=HDL)
    first.pcap_write(module_for('rp1'))
    first.set_decoupled('rp1', False)
    again = board.EmulatedBoard(REFERENCE, 'xc7z020clg400-1', str(tmp_path),
                                hdl_dir=HDL)
    assert again.module_in('rp1') == catalogue.module_id('loopback')
    assert not again.decoupled('rp1') and again.decoupled('rp0')
    assert again.axil_read('rp1', 0) == catalogue.module_id('loopback')


def test_loads_of_two_regions_at_once_both_persist(tmp_path):
    """Two regions of one board load at the same time (the agent's RPC
    threads do, one per region): each load writes the board's fabric
    state file, and neither fails on the other's write (the soak of
    2026-11-29 lost a load to `FileNotFoundError: emulated-pl.json.tmp`);
    the file holds both modules after.
    """
    emu = board.EmulatedBoard(REFERENCE, 'xc7z020clg400-1', str(tmp_path),
                              pcap_rate=1e9, hdl_dir=HDL)
    streams = {'rp0': module_for('rp0'), 'rp1': module_for('rp1')}
    failures = []
    start = threading.Barrier(2)

    def load(region):
        start.wait()
        try:
            for _ in range(150):
                emu.pcap_write(streams[region])
        except Exception as exc:  # the race: reported, not raised here
            failures.append(exc)
    threads = [threading.Thread(target=load, args=(region,))
               for region in streams]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    again = board.EmulatedBoard(REFERENCE, 'xc7z020clg400-1', str(tmp_path),
                                hdl_dir=HDL)
    assert again.module_in('rp0') == again.module_in('rp1') == \
        catalogue.module_id('loopback')


def test_decoupling_is_the_decoupler_hdl(emu):
    """The loaded module runs behind region_decoupler.v: DECERR comes from
    the HDL, and a frame the shell offers while decoupled waits for the
    region to be coupled (doc/source/contributor/hdl.rst), then comes back.
    """
    from nova_fpga_emulator import hdl_bridge
    emu.pcap_write(module_for('rp0'))
    bridge = emu._regions['rp0'].bridge
    assert bridge.module.top == modules.SLOT_TOP and bridge.decoupled
    with pytest.raises(hdl_bridge.AxiLiteError) as exc:
        bridge.axil_read(COMMON.MODULE_ID)
    assert exc.value.resp == hdl_bridge.DECERR
    frame = bytes(range(64))
    bridge.push_frame(frame)
    bridge.clock(200)
    assert bridge.pull_frames() == [] and bridge.pending_input == 1
    emu.set_decoupled('rp0', False)
    assert not bridge.decoupled
    bridge.clock_until_idle()
    assert bridge.pull_frames() == [frame]
    assert emu.axil_read('rp0', 0) == catalogue.module_id('loopback')


def test_without_hdl_dir_only_opaque_modules_load(tmp_path):
    """No source tree configured: an undeclared module still loads, a
    declared one fails with an error naming the option.
    """
    emu = board.EmulatedBoard(REFERENCE, 'xc7z020clg400-1', str(tmp_path),
                              pcap_rate=1000.0)
    emu.pcap_write(opaque_for('rp0'))
    assert emu.module_in('rp0') == container.NO_USER_ID
    with pytest.raises(board.PcapError, match=r'\[emulator\] hdl_dir'):
        emu.pcap_write(module_for('rp1'))
    assert emu.module_in('rp1') is None
