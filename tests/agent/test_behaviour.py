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

"""Behavioural boards answer as the emulator running the Verilog does: the
same refusals from the configuration port, the same register answers and
frames from a loaded loopback, and through an agent the same RPC answers."""
import hashlib
import uuid

import pytest

from nova_fpga.bitstream import builder
from nova_fpga.bitstream import footprint as fp
from nova_fpga import catalogue
from nova_fpga.contract import states
from nova_fpga_emulator import behaviour
from nova_fpga_emulator import board
from tests.agent.conftest import module_for
from tests.agent.conftest import REFERENCE
from tests.conftest import HDL
from tests.unit.bitstream import mutate
from tests.unit.bitstream import realfiles

COMMON = catalogue.load().common.registers
PART = 'xc7z020clg400-1'


@pytest.fixture
def pair(tmp_path):
    """(the emulator running the Verilog, the behavioural board)."""
    (tmp_path / 'hdl').mkdir()
    (tmp_path / 'model').mkdir()
    return (board.EmulatedBoard(REFERENCE, PART, str(tmp_path / 'hdl'),
                                pcap_rate=1000.0, hdl_dir=HDL),
            behaviour.BehaviouralBoard(REFERENCE, PART,
                                       str(tmp_path / 'model'),
                                       pcap_rate=1000.0))


def answer(call, *args):
    """A call's value, or its error's class and message."""
    try:
        return call(*args)
    except (board.AxiError, board.PcapError) as exc:
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize('data', [
    lambda: realfiles.read('prio.bit'),
    lambda: module_for('rp0', part='7z010clg400'),
    lambda: mutate.flip_bit(module_for('rp0'), 300000),
    lambda: builder.build_partial('7z020clg400', 'x', 1, fp.Footprint(
        (fp.Block(0x00400000, 101 * 10),))),
    lambda: module_for('rp0', module_id=0x12345678),
])
def test_the_port_refuses_alike(pair, data):
    hdl, model = pair
    refused = answer(hdl.pcap_write, data())
    assert refused[0] == 'PcapError'
    assert answer(model.pcap_write, data()) == refused
    assert model.module_in('rp0') is None


def test_registers_and_frames_answer_as_the_loopbacks_hdl(pair):
    data = module_for('rp0')
    offsets = range(0, 0x40, 4)
    for emu in pair:
        emu.pcap_write(data)
    reads = [[answer(emu.axil_read, 'rp0', o) for o in offsets]
             for emu in pair]
    assert reads[0] == reads[1]          # decoupled: DECERR
    for emu in pair:
        emu.set_decoupled('rp0', False)
        emu.reset('rp0')
        emu.dma_start('rp0')
    frames = [bytes(range(60)), bytes(range(200))]
    outputs = [[emu.dma_transfer('rp0', f) for f in frames] for emu in pair]
    assert outputs[0] == outputs[1] == [[f] for f in frames]
    reads = [[answer(emu.axil_read, 'rp0', o) for o in offsets]
             for emu in pair]
    assert reads[0] == reads[1]
    assert reads[1][COMMON.FRAMES_LO // 4] == 2
    assert reads[1][COMMON.BYTES_LO // 4] == 260
    writes = [[answer(emu.axil_write, 'rp0', o, 0) for o in offsets]
              for emu in pair]
    assert writes[0] == writes[1]
    for emu in pair:
        emu.axil_write('rp0', COMMON.CONTROL,
                       COMMON.bit('CONTROL', 'CLEAR_COUNTERS'))
    assert ([emu.axil_read('rp0', COMMON.FRAMES_LO) for emu in pair]
            == [0, 0])


def test_an_agent_serves_a_behavioural_board(cloud):
    cloud.start('b0', {('agent', 'backend'): 'behavioural',
                       ('emulator', 'hdl_dir'): None})
    data = module_for('rp1')
    instance = str(uuid.uuid4())
    result = cloud.client.load({}, 'b0', 'rp1', instance, 'img',
                               hashlib.sha256(data).hexdigest(), data)
    assert result['state'] == states.ACTIVE
    stats = cloud.client.stats({}, 'b0', 'rp1', instance)
    assert stats['module'] == {'frames': 0, 'bytes': 0}
    cloud.client.power({}, 'b0', 'rp1', instance, False)
    cloud.client.power({}, 'b0', 'rp1', instance, True)
    assert cloud.client.unload({}, 'b0', 'rp1', instance)[
        'state'] == states.FREE
    assert cloud.client.describe({}, 'b0')['backend'] == 'behavioural'


@pytest.mark.hdl
def test_the_vtc_policy_reads_back_as_its_hdl(pair):
    """A tenant's settings (the vTC's POLICY) read back from the model as
    from the Verilog: what the agent checks after writing them.
    """
    vtc = catalogue.load().by_name('vtc')
    regs = vtc.registers
    offsets = [regs.at('POLICY', c) for c in regs.labels('POLICY')[1:]]
    for emu in pair:
        emu.pcap_write(module_for('rp1', vtc.module_id))
        emu.set_decoupled('rp1', False)
        emu.reset('rp1')
        for number, offset in enumerate(offsets):
            emu.axil_write('rp1', offset, 0xFFFFFF00 | number * 11)
    reads = [[emu.axil_read('rp1', o) for o in offsets] for emu in pair]
    assert reads[0] == reads[1]
    assert reads[1][6] == 66 & 0xBF == 2  # bit 6 and above read 0
    for emu in pair:
        emu.reset('rp1')
    assert [[emu.axil_read('rp1', o) for o in offsets] for emu in pair] \
        == [[0] * len(offsets)] * 2
