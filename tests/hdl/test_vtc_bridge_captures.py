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

"""The vTC's RTL equals its model on nDPI's own test captures.

The cocotb suites (hdl/tests/test_region_vtc.py) replay pcaps/ndpi and
pcaps/ndpi-more through the RTL on both simulators; the hundreds of
captures of pcaps/ndpi-tuning and pcaps/ndpi-heldout, which the accuracy
benchmark measures the signatures on, go through the same RTL compiled by
Verilator (the emulated boards' bridge, nova_fpga_emulator.hdl_bridge),
every policy enabled so that every frame's class shows in its DSCP: every
output frame equal to the model's, in order, and every counter register
equal to the model's after each folder.
"""
import sys

import pytest

from nova_fpga import catalogue
from nova_fpga_emulator import hdl_bridge
from tests.conftest import HDL
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / 'hdl' / 'tests'))
import vtc_captures  # noqa: E402  (hdl/tests holds the cocotb suites' helpers)
import vtc_model  # noqa: E402

pytestmark = pytest.mark.hdl

VTC = catalogue.load().by_name('vtc')
REGS = VTC.registers
#: clock cycles between pushes: the flow table clears a bucket a cycle after
#: a reset, and a folder is pushed a capture at a time
CLEAR_CYCLES = 4096


def read_u64(bridge, lo_offset):
    lo = bridge.axil_read(lo_offset)
    return bridge.axil_read(lo_offset + 4) << 32 | lo


def read_counters(bridge):
    """Every counter register, by the model's names."""
    counters = {}
    for name in vtc_model.COUNTER_NAMES:
        if name.startswith(('CLASS_PACKETS_', 'CLASS_BYTES_')):
            array, klass = name.rsplit('_', 1)
            counters[name] = read_u64(bridge, REGS.at(array, klass.lower()))
        elif name.startswith(('CLASS_FLOWS_', 'CLASS_GUESSES_')):
            array, klass = name.rsplit('_', 1)
            counters[name] = bridge.axil_read(REGS.at(array, klass.lower()))
        elif hasattr(REGS, name + '_LO'):
            counters[name] = read_u64(bridge, getattr(REGS, name + '_LO'))
        else:
            counters[name] = bridge.axil_read(getattr(REGS, name))
    return counters


@pytest.fixture(scope='module')
def vtc():
    with hdl_bridge.HdlBridge.for_module_id(VTC.module_id, HDL) as bridge:
        yield bridge


@pytest.mark.parametrize('folder', [vtc_captures.TUNING_FOLDER,
                                    vtc_captures.HELD_OUT_FOLDER])
def test_ndpi_test_captures_through_the_rtl_equal_the_model(
        vtc, folder, report):
    vtc.reset()
    vtc.clock(CLEAR_CYCLES)
    assert not vtc.axil_read(REGS.STATUS) & REGS.bit('STATUS',
                                                     'TABLE_CLEARING')
    model = vtc_model.VtcModel(
        flow_table_depth=vtc.axil_read(REGS.FLOW_TABLE_DEPTH),
        inspect_packets=vtc.axil_read(REGS.INSPECT_PACKETS),
        flow_timeout=vtc.axil_read(REGS.FLOW_TIMEOUT))
    # every class marked with its own DSCP: a frame's class shows in it
    for number, klass in enumerate(vtc_model.CLASSES[1:], start=1):
        value = REGS.bit('POLICY', 'ENABLE') | number
        vtc.axil_write(REGS.at('POLICY', klass), value)
        model.set_policy(klass, value)
    frames = marked = 0
    for path in vtc_captures.ndpi_capture_paths(folder):
        sent = vtc_captures.read_frames(path)
        # the tick counter moves every 2**20 cycles and a flow ages out
        # after 4,096 ticks: a folder's replay never reaches that, so the
        # model's clock stays at the timestamp the replay starts at
        now = vtc.axil_read(REGS.TIMESTAMP)
        expected = [model.process(frame, now) for frame in sent]
        for frame in sent:
            vtc.push_frame(frame)
        vtc.clock_until_idle()
        assert vtc.pending_input == 0
        got = vtc.pull_frames()
        assert len(got) == len(sent), path.name
        for number, (out, want) in enumerate(zip(got, expected)):
            assert out == want, '%s frame %d differs from the model' % (
                path.name, number)
        frames += len(sent)
        marked += sum(e != f for e, f in zip(expected, sent))
    assert read_counters(vtc) == model.counters
    assert marked > 0
    classified = {k[len('CLASS_FLOWS_'):].lower(): v
                  for k, v in model.counters.items()
                  if k.startswith('CLASS_FLOWS_') and v}
    report('Verilated vTC == model on pcaps/%s: %d frames of %d captures, '
           '%d marked; flows per class %s'
           % (folder, frames, len(vtc_captures.ndpi_capture_paths(folder)),
              marked, classified))
