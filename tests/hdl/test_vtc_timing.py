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

"""The timing benchmark's tool chain (yosys, nextpnr-ecp5) works: the
loopback is placed and routed (seconds) and its Fmax and critical path are
printed.  The vTC takes minutes: `make timing`, not CI.
"""
import json
import re
import subprocess
import sys

import pytest

from tests.conftest import HDL
from tests.conftest import ROOT

pytestmark = pytest.mark.hdl


def test_loopback_fmax_and_critical_path_are_printed(report):
    out = subprocess.run([sys.executable,
                          str(ROOT / 'benchmarks' / 'vtc_timing.py'),
                          '--module', 'loopback'],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:] + out.stdout[-2000:]
    fmax = re.search(r'\nloopback +([\d.]+) MHz .*\((met|NOT MET)\)',
                     out.stdout)
    assert fmax and float(fmax.group(1)) > 0, out.stdout
    path = re.search(r'critical path ([\d.]+) ns \(([\d.]+) ns logic, '
                     r'([\d.]+) ns routing.*\): (\S+) -> (\S+)', out.stdout)
    assert path, out.stdout
    total, logic, routing = (float(path.group(n)) for n in (1, 2, 3))
    assert total == pytest.approx(logic + routing, abs=0.02)
    # each end is a cell of the module (instance dut in the harness), named
    # after an instance or a register of its Verilog, or the harness's own
    # register on that side (its input shift register at the start, its
    # output signature at the end: the loopback's registered outputs and
    # counted handshakes leave paths that short); at least one end is the
    # module's
    source = (HDL / 'rtl' / 'region_loopback.v').read_text()
    start, end = path.group(4, 5)
    harness = {start: 'in_shift', end: 'out_signature'}
    assert start.startswith('dut.') or end.startswith('dut.'), path.group(0)
    for cell in (start, end):
        if not cell.startswith('dut.'):
            assert cell.startswith(harness[cell] + '_TRELLIS_FF'), cell
            continue
        assert re.search(r'\b%s\b' % re.escape(
            re.split(r'[.$]|_TRELLIS', cell[4:])[0]), source), cell
    report('nextpnr-ecp5 loopback: %s MHz, critical path %s ns'
           % (fmax.group(1), path.group(1)))


def test_several_seeds_are_summed_up_per_module():
    """make timing places each module at three seeds: each seed's figures,
    then one line per module with its Fmax at every seed, met only when
    every seed meets the goal.
    """
    out = subprocess.run([sys.executable,
                          str(ROOT / 'benchmarks' / 'vtc_timing.py'),
                          '--module', 'loopback', '--seeds', '1,2'],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:] + out.stdout[-2000:]
    runs = re.findall(r'\nloopback +([\d.]+) MHz', out.stdout)
    assert len(runs) == 2, out.stdout
    line = re.search(r'Fmax per seed \(goal 156\.25 MHz at every seed\):\n'
                     r'  loopback +seed 1 ([\d.]+), seed 2 ([\d.]+) MHz '
                     r'\((met|NOT MET)\)', out.stdout)
    assert line, out.stdout
    assert [float(line.group(1)), float(line.group(2))] == [
        float(f) for f in runs]
    assert line.group(3) == ('met' if min(map(float, runs)) >= 156.25
                             else 'NOT MET')


@pytest.mark.parametrize('name', ['vtc_name_match', 'vtc_name_extract',
                                  'vtc_names'])
def test_a_part_is_wired_into_the_harness_by_its_own_ports(tmp_path, name):
    """A part (the name matcher, the name extractor: not catalogue
    modules) gets its clock and every port in the harness, and yosys
    elaborates the harness with the RTL without a missing or mis-sized port.
    """
    sys.path.insert(0, str(ROOT / 'benchmarks'))
    try:
        import vtc_timing
    finally:
        sys.path.pop(0)
    part = vtc_timing.Part(name)
    verilog, harness_ffs = vtc_timing.harness(part)
    assert '.clk(clk)' in verilog and '.aclk' not in verilog
    assert harness_ffs == sum(width for _, _, width in part.ports)
    (tmp_path / 'harness.v').write_text(verilog)
    out = subprocess.run(
        ['yosys', '-q', '-p', 'read_verilog -defer %s %s; hierarchy -check '
         '-top %s' % (' '.join(map(str, part.source_paths(HDL / 'rtl'))),
                      tmp_path / 'harness.v', vtc_timing.HARNESS_TOP)],
        capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert 'Warning' not in out.stderr, out.stderr[-2000:]


TWICE_REGISTERED = '''`default_nettype none
module twice_registered (input wire clk, input wire [3:0] a,
                         output reg [3:0] y = 4'd0);
reg [3:0] a_q = 4'd0;
always @(posedge clk) begin
    a_q <= a;
    y <= a_q;
end
endmodule
'''


def test_the_harness_keeps_the_modules_input_registers(tmp_path):
    """The harness's input shift register holds each input bit a cycle
    later in its next bit: had it the module's power-up values, yosys would
    merge the module's registers of its inputs into the shift register
    (until d450c45 it did: the vTC's name-extractor input registers sat in
    the harness's chain, not by the extractor). Every flip-flop of the
    module's and the harness's is there after synthesis.
    """
    sys.path.insert(0, str(ROOT / 'benchmarks'))
    try:
        import vtc_timing
    finally:
        sys.path.pop(0)
    source = tmp_path / 'twice_registered.v'
    source.write_text(TWICE_REGISTERED)

    class TwiceRegistered(vtc_timing.Part):
        """A module that holds its input two cycles, as the vTC's name
        extractor's input registers do (measured as a part is).
        """

        def __init__(self):
            self.name = self.top = 'twice_registered'
            self.clock = 'clk'
            self.ports = [('in', 'a', 4), ('out', 'y', 4)]

        def source_paths(self, rtl):
            return [source]

    netlist, harness_ffs = vtc_timing.synthesize(TwiceRegistered(), tmp_path)
    cells = json.loads(netlist.read_text())['modules'][
        vtc_timing.HARNESS_TOP]['cells']
    flip_flops = [name for name, cell in cells.items()
                  if cell['type'] == 'TRELLIS_FF']
    assert harness_ffs == 8
    assert len(flip_flops) == harness_ffs + 8, sorted(flip_flops)
