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

"""RFC 2544 throughput (section 26.1) and latency (26.2) of the board's data
path: the C data mover (agent/datamover) with engines behind it, and the
Python per-frame path of before issue 31 as the reference.

    make bench-rfc2544        (or: python benchmarks/rfc2544.py --help)

Set-up: a network namespace stands for the board; a veth pair links it to
this namespace, where nova-fpga-nfgen (agent/datamover/bench/nfgen.c, C on
TPACKET rings, not the mover) sends frames tagged with the region's ingress
VLAN (100, priority 5) and receives what comes back on the egress VLAN
(200).  Frame sizes as RFC 2544 counts them: with the 802.1Q tag and the
FCS (a veth carries no FCS: size - 4 bytes are sent).

Throughput: the highest offered rate at which every frame of a trial comes
back (zero loss), by binary search between 0 and --ceiling times 1 GbE line
rate (the board's Ethernet), first trial at the ceiling; a trial also fails
when the generator could not offer the rate.  Latency: one more trial at the
throughput rate, every frame measured (min/avg/p99/max) from its send time
stamped in its payload to the kernel's receive timestamp on the way back.
The mover's CPU: its run time (/proc/PID/schedstat: user + system, ns)
during that trial per forwarded frame, and times the CPU clock in cycles
(`perf stat` has no cycle counter in this VM; see the output).
"""
import argparse
import datetime
import json
import mmap
import os
import pathlib
import secrets
import signal
import struct
import subprocess
import sys
import time

import results as results_writer

ROOT = pathlib.Path(__file__).resolve().parents[1]
DM = ROOT / 'agent' / 'datamover'
BUILD = DM / 'build'

SIZES = (64, 128, 256, 512, 1024, 1280, 1518, 9018)
LINE_RATE_BPS = 1e9
ETHERNET_OVERHEAD_BYTES = 20   # preamble, start delimiter, inter-frame gap
INGRESS_VLAN, EGRESS_VLAN = 100, 200
SHM_SIZE = 16 << 20
PHYS = 0x1F000000
SGEMU_STATS_OFF = 0x1100   # agent/datamover/src/pg021.h

# Cortex-A9 estimate: cycles per frame here times a factor at 667 MHz.
A9_HZ = 667e6
# CoreMark per MHz per core, both from one published table that ran the same
# CoreMark build on each system (score / MHz over all cores; both are
# dual-core): fm4dd/sbc-benchmarks, cm-benchmark.md (March 2017),
# https://github.com/fm4dd/sbc-benchmarks/blob/master/cm-benchmark.md
A9_COREMARK_PER_MHZ = 7.13 / 2    # Altera Atlas SoC, Cyclone V, 2x Cortex-A9
X86_COREMARK_PER_MHZ = 7.21 / 2   # Core 2 Duo T7200 (Apple Mac mini 2007)
A9_FACTOR = X86_COREMARK_PER_MHZ / A9_COREMARK_PER_MHZ
# a conservative second figure: twice the A9 cycles
A9_FACTOR_CONSERVATIVE = 2.0
A9_SOURCE = (
    'factor %.2f = CoreMark/MHz per core of an x86 core over a Cortex-A9, '
    'from one published table (same CoreMark build on each system, score / '
    'MHz over both cores of each): Core 2 Duo T7200 7.21 / 2 = %.2f, '
    'Cortex-A9 (Altera Atlas SoC, Cyclone V, 925 MHz) 7.13 / 2 = %.2f; '
    'fm4dd/sbc-benchmarks "Coremark performance tests for single-board '
    'systems" (March 2017), '
    'https://github.com/fm4dd/sbc-benchmarks/blob/master/cm-benchmark.md . '
    'The table has no core newer than that Core 2 (its Xeon E5-2680 VM row, '
    '4.68/MHz, does not say how many vCPUs ran), and WikiChip '
    '(https://en.wikichip.org/w/index.php?title=coremark-mhz) warns that '
    'CoreMark/MHz '
    'flatters simple in-order cores against out-of-order ones; it models '
    'neither the A9\'s uncached u-dma-buf copies nor its slower kernel '
    'network stack. So the CoreMark estimate is an optimistic bound, and '
    'the second column (factor %.1f, an assumption, not sourced) a '
    'conservative one' % (A9_FACTOR, X86_COREMARK_PER_MHZ,
                          A9_COREMARK_PER_MHZ, A9_FACTOR_CONSERVATIVE))


def line_rate_pps(size):
    return LINE_RATE_BPS / ((size + ETHERNET_OVERHEAD_BYTES) * 8)


def cpu_hz():
    try:
        for line in open('/proc/cpuinfo'):
            if line.startswith('cpu MHz'):
                return float(line.split(':')[1]) * 1e6
    except OSError:
        pass
    return 2e9


def perf_cycles_available():
    try:
        out = subprocess.run(['perf', 'stat', '-x,', '-e', 'cycles', 'true'],
                             capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and 'not supported' not in out.stderr \
        and '<not' not in out.stderr


def run_ns(pid):
    """CPU time of a process (all threads), ns: /proc/PID/schedstat."""
    total = 0
    try:
        for tid in os.listdir('/proc/%d/task' % pid):
            with open('/proc/%d/task/%s/schedstat' % (pid, tid)) as f:
                total += int(f.read().split()[0])
    except OSError:
        pass
    return total


def ip(*args, check=True):
    return subprocess.run(['ip', *args], check=check, capture_output=True)


def wait_for(predicate, what, timeout=20):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit('timed out waiting for %s' % what)
        time.sleep(0.02)


def stop(proc):
    if proc and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def taskset(cpus):
    return ['taskset', '-c', cpus] if cpus else []


def nice(value):
    """the scheduling prefix: an int is a nice value; 'rt' is SCHED_FIFO
    priority 1 (chrt), which no ordinary (CFS) task preempts
    """
    if value == 'rt':
        return ['chrt', '-f', '1']
    return ['nice', '-n', str(value)] if value else []


class Link:
    """The board's namespace and the veth pair, removed by name.  Its MTU
    carries the largest frame of the run and no more (at least 1,500), as
    a board's interface would be set: a veth takes an XDP program in its
    driver (native mode) only up to an MTU of about 3,500.
    """

    def __init__(self, mtu=9000):
        self.mtu = str(mtu)
        tag = secrets.token_hex(3)
        self.netns = 'nfb-%s' % tag
        self.board_if, self.peer_if = 'nfb%sb' % tag, 'nfb%sp' % tag

    def __enter__(self):
        ip('netns', 'add', self.netns)
        try:
            ip('link', 'add', self.board_if, 'type', 'veth', 'peer', 'name',
               self.peer_if)
            ip('link', 'set', self.board_if, 'netns', self.netns)
            for prefix, iface in (([], self.peer_if),
                                  (['ip', 'netns', 'exec', self.netns],
                                   self.board_if)):
                subprocess.run([*prefix, 'sysctl', '-qw',
                                'net.ipv6.conf.%s.disable_ipv6=1' % iface],
                               capture_output=True)
            ip('netns', 'exec', self.netns, 'ip', 'link', 'set',
               self.board_if, 'mtu', self.mtu, 'up')
            ip('link', 'set', self.peer_if, 'mtu', self.mtu, 'up')
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc):
        ip('link', 'del', self.peer_if, check=False)
        ip('netns', 'del', self.netns, check=False)


class Mover:
    """The C mover in the board's namespace with the emulated SG engine
    (nova-fpga-sgemu) behind it; extra engine arguments select its module.
    """

    name = 'sgemu'

    def __init__(self, link, args, engine_args=(), label=None):
        self.link, self.args = link, args
        self.engine_args = list(engine_args)
        self.label = label or 'C mover + emulated SG DMA (loopback)'
        shm = '/dev/shm/nfb-%s' % secrets.token_hex(3)
        self.regs, self.buf, self.irq = shm + '-regs', shm + '-buf', \
            shm + '-irq'
        self.counters, self.control = shm + '-counters', shm + '-control'
        self.engine = self.proc = None
        self.forwarding = None

    def __enter__(self):
        try:
            self.engine = subprocess.Popen(
                [*taskset(self.args.engine_cpus), *nice(self.args.nice),
                 str(BUILD / 'nova-fpga-sgemu'), '--regs', self.regs,
                 '--buf', self.buf, '--size', str(SHM_SIZE), '--phys',
                 hex(PHYS), '--irq', self.irq, *self.engine_args],
                stderr=subprocess.PIPE, text=True)
            wait_for(lambda: os.path.exists(self.irq)
                     or self.engine.poll() is not None, 'the engine', 600)
            if self.engine.poll() is not None:
                raise SystemExit('engine: %s' % self.engine.stderr.read())
            self.proc = subprocess.Popen(
                ['ip', 'netns', 'exec', self.link.netns,
                 *taskset(self.args.mover_cpus), *nice(self.args.nice),
                 str(BUILD / 'nova-fpga-datamover'), '--interface',
                 self.link.board_if, '--counters', self.counters,
                 '--control', self.control, '--region',
                 'r0,regs=%s,buf=%s,phys=%s,size=%d,irq=%s'
                 % (self.regs, self.buf, hex(PHYS), SHM_SIZE, self.irq),
                 '--route', '%d:r0:%d' % (INGRESS_VLAN, EGRESS_VLAN),
                 *self.args.mover_arg],
                stderr=subprocess.PIPE, text=True)
            wait_for(lambda: os.path.exists(self.control)
                     or self.proc.poll() is not None, 'the mover')
            if self.proc.poll() is not None:
                raise SystemExit('mover: %s' % self.proc.stderr.read())
        except BaseException:
            self.__exit__()
            raise
        return self

    def pids(self):
        return {'mover': self.proc.pid, 'engine': self.engine.pid}

    def sim_stats(self):
        """(simulated cycles, frames into, out of the module) the engine
        publishes with --module (zeros without).
        """
        with open(self.regs, 'rb') as f:
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
                return struct.unpack_from('<QQQ', m, SGEMU_STATS_OFF)

    def __exit__(self, *exc):
        stop(self.proc)
        stop(self.engine)
        if self.proc is not None:
            # what the mover says it runs on ("forwarding on ...: AF_XDP
            # queue 0, native mode, copy" or "RX ring TPACKET_V3")
            for line in self.proc.stderr.read().splitlines():
                if 'forwarding on' in line:
                    self.forwarding = line.split(': ', 1)[-1].split(
                        '; control')[0]
        for path in (self.regs, self.buf, self.irq, self.counters,
                     self.control, self.counters + '.tmp'):
            if os.path.exists(path):
                os.unlink(path)


class PythonPath:
    """The reference: the Python per-frame path (rfc2544_python_path.py)
    with its instant-answer stub DMA, in the board's namespace.
    """

    name = 'python'
    label = 'Python per-frame path (reference) + instant stub DMA'

    def __init__(self, link, args):
        self.link, self.args = link, args
        self.proc = None

    def __enter__(self):
        self.proc = subprocess.Popen(
            ['ip', 'netns', 'exec', self.link.netns,
             *taskset(self.args.mover_cpus), *nice(self.args.nice),
             sys.executable,
             str(ROOT / 'benchmarks' / 'rfc2544_python_path.py'),
             self.link.board_if, str(INGRESS_VLAN), str(EGRESS_VLAN)],
            stdout=subprocess.PIPE, text=True)
        if self.proc.stdout.readline().strip() != 'ready':
            stop(self.proc)
            raise SystemExit('the Python path did not start')
        time.sleep(0.3)
        return self

    def pids(self):
        return {'mover': self.proc.pid}

    def fresh(self):
        """A new process (a new socket) for each trial: one frame at a time,
        it would still be working through an overloaded trial's 8 MiB
        socket buffer when the next trial starts.
        """
        stop(self.proc)
        self.__enter__()

    def __exit__(self, *exc):
        stop(self.proc)


class Runner:
    def __init__(self, link, args):
        self.link, self.args = link, args
        self.trial_no = secrets.randbelow(1 << 30)

    def trial(self, path, size, rate, seconds):
        self.trial_no += 1
        if hasattr(path, 'fresh'):
            path.fresh()
        pids = path.pids()
        sim = path.sim_stats if path.name in ('loopback', 'vtc') else None
        sim_before = sim() if sim else None
        before = {k: run_ns(p) for k, p in pids.items()}
        out = subprocess.run(
            [*taskset(self.args.gen_cpus), *nice(self.args.nice),
             str(BUILD / 'nova-fpga-nfgen'),
             '--interface', self.link.peer_if, '--size', str(size),
             '--rate', '%.1f' % rate, '--seconds', str(seconds),
             '--vlan', str(INGRESS_VLAN), '--expect-vlan', str(EGRESS_VLAN),
             '--trial', str(self.trial_no), '--drain-ms',
             str(self.args.drain_ms)],
            capture_output=True, text=True, timeout=seconds * 3 + 60)
        if out.returncode:
            raise SystemExit('nfgen: %s' % out.stderr)
        r = json.loads(out.stdout)
        r['cpu_ns'] = {k: run_ns(p) - before[k] for k, p in pids.items()}
        if sim:
            r['sim'] = [b - a for a, b in zip(sim_before, sim())]
        r['passed'] = (r['lost'] == 0 and r['wrong_vlan'] == 0
                       and r['sent'] >= 0.99 * rate * seconds
                       and r['offered_pps'] >= 0.98 * rate)
        if self.args.verbose:
            print('    %-6s %5d B %10.0f pps: sent %d received %d lost %d '
                  'offered %.0f pps%s' % (path.name, size, rate, r['sent'],
                                          r['received'], r['lost'],
                                          r['offered_pps'],
                                          '' if r['passed'] else '  FAIL'),
                  flush=True)
        return r

    def throughput(self, path, size):
        """RFC 2544 26.1: the highest zero-loss rate.  First trial at the
        ceiling; if it fails, just below what came back overloaded; from a
        rate that passed, doubling up to the first failure (the ceiling
        may be 10x what the path does: bisecting from there would spend
        the trials far above it), then binary search to --resolution.
        """
        seconds = self.args.trial_seconds
        ceiling = (self.args.python_ceiling if path.name == 'python'
                   else self.args.ceiling)
        hi = line_rate_pps(size) * ceiling
        lo, best, rate, hint, trials = 0.0, None, hi, None, 0
        bracketed = False   # a failure below the ceiling
        self.generator_short = False
        self.retried = 0
        while trials < self.args.max_trials:
            r = self.trial(path, size, rate, seconds)
            trials += 1
            # a small loss on a shared host is often another task's time
            # slice, not the path's limit: such a trial is repeated (up to
            # --retries times) and the rate fails only if every one loses
            for _ in range(self.args.retries):
                if r['passed'] or not 0 < r['lost'] <= 0.01 * r['sent']:
                    break
                self.retried += 1
                r = self.trial(path, size, rate, seconds)
                trials += 1
            # failed with nothing lost: the generator could not offer it
            self.generator_short |= (not r['passed'] and r['lost'] == 0
                                     and r['wrong_vlan'] == 0)
            if r['passed']:
                lo, best = rate, r
            else:
                bracketed |= trials > 1
                hi = rate
                hint = r['received'] / seconds
            if hi - lo <= self.args.resolution * hi:
                break
            if best is None:
                # nothing passed yet: after the ceiling, just below what
                # came back overloaded; then halve
                if trials == 1 and hint:
                    rate = max(hint * 0.9, hi / 1024)
                else:
                    rate = rate / 2
                if rate >= hi:
                    rate = hi / 2
            elif not bracketed:
                rate = min(lo * 2, (lo + hi) / 2)
            else:
                rate = (lo + hi) / 2
        return lo, best, trials

    def measure(self, path, size):
        rate, best, trials = self.throughput(path, size)
        result = {'size': size, 'throughput_pps': rate, 'trials': trials,
                  'generator_limited': self.generator_short,
                  'retried': self.retried}
        if not rate:
            return result
        lat = self.trial(path, size, rate, self.args.trial_seconds)
        forwarded = max(lat['received'], 1)
        result.update({
            'latency_trial': lat,
            'latency_trial_lost': lat['lost'],
            'lat_ns': [lat['lat_min_ns'], lat['lat_avg_ns'],
                       lat['lat_p99_ns'], lat['lat_max_ns']],
            'cpu_ns_per_frame': {k: v / forwarded
                                 for k, v in lat['cpu_ns'].items()},
        })
        if 'sim' in lat:
            cycles, into, out = lat['sim']
            seconds = self.args.trial_seconds
            result['sim'] = {'cycles_per_s': cycles / seconds,
                             'frames_in': into, 'frames_out': out,
                             'cycles_per_frame': cycles / max(out, 1)}
        return result


def loadavg():
    with open('/proc/loadavg') as f:
        return ' '.join(f.read().split()[:3])


def fmt_row(engine, size, r, ref, hz):
    if r is None:
        return '%-10s %5d  %s' % (engine, size, 'not measured')
    pps = r['throughput_pps']
    gbps = pps * size * 8 / 1e9
    line = pps / line_rate_pps(size)
    vs = ('%7.0fx' % (pps / ref)) if ref else '      - '
    if 'lat_ns' in r:
        lat = '%6.1f %6.1f %7.1f %7.1f' % tuple(v / 1e3 for v in r['lat_ns'])
        ns = r['cpu_ns_per_frame']['mover']
        cyc = ns * hz / 1e9
        a9_kpps = A9_HZ / (cyc * A9_FACTOR) / 1e3
        a9_cons = A9_HZ / (cyc * A9_FACTOR_CONSERVATIVE) / 1e3
        cpu = '%7.0f %7.0f %8.0f %6.0f' % (ns, cyc, a9_kpps, a9_cons)
    else:
        lat = '%6s %6s %7s %7s' % ('-', '-', '-', '-')
        cpu = '%7s %7s %8s %6s' % ('-', '-', '-', '-')
    return '%-10s %5d %9.1f %7.3f %7.3f %s %s %s' % (
        engine, size, pps / 1e3, gbps, line, vs, lat, cpu)


HEADER = ('%-10s %5s %9s %7s %7s %8s %6s %6s %7s %7s %7s %7s %8s %6s' % (
    'engine', 'frame', 'kpps', 'Gb/s', 'x1GbE', 'xPython', 'lat', 'avg',
    'p99', 'max', 'ns/fr', 'cyc/fr', 'A9 kpps', 'A9 x2')
    + '\n' + '%-10s %5s %9s %7s %7s %8s %6s %6s %7s %7s %7s %7s %8s %6s' % (
        '', 'B', '', '', '', '', 'min us', 'us', 'us', 'us', 'mover',
        'mover', 'CoreMark', 'kpps'))


def arguments():
    """The command line, read before the run is recorded (--help, or an
    argument refused, is no run and leaves no results file).
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--trial-seconds', type=float, default=10.0,
                        help='length of each trial (RFC 2544 asks 60 s)')
    parser.add_argument('--sizes', default=','.join(map(str, SIZES)))
    parser.add_argument('--engines', default='sgemu,python,loopback,vtc',
                        help='sgemu: C mover + emulated SG DMA (loopback); '
                        'python: the reference; loopback, vtc: C mover + '
                        'emulated SG DMA + the Verilated module')
    parser.add_argument('--ceiling', type=float, default=10.0,
                        help='highest rate tried for the C mover engines, '
                        'times 1 GbE line rate (the search may find more '
                        'than the board\'s Ethernet carries)')
    parser.add_argument('--python-ceiling', type=float, default=1.0,
                        help='highest rate tried for the Python path')
    parser.add_argument('--resolution', type=float, default=0.02,
                        help='binary search stops within this fraction')
    parser.add_argument('--max-trials', type=int, default=14)
    parser.add_argument('--retries', type=int, default=1,
                        help='repeats of a trial that lost at most 1%% of '
                        'its frames before its rate counts as failed (0: '
                        'strict RFC 2544)')
    parser.add_argument('--drain-ms', type=int, default=300)
    parser.add_argument('--mover-cpus', default='1',
                        help='taskset CPU list for the mover ("" for none)')
    parser.add_argument('--engine-cpus', default='1')
    parser.add_argument('--gen-cpus', default='0')
    parser.add_argument('--nice', type=int, default=0,
                        help='nice value of the mover, engine, Python path '
                        'and generator (a board runs nothing else; on a '
                        'shared host a negative value keeps other work '
                        'from preempting the path)')
    parser.add_argument('--rt', dest='nice', action='store_const',
                        const='rt', help='run them SCHED_FIFO priority 1 '
                        'instead (chrt): ordinary tasks of the host no '
                        'longer preempt them (they get what the path leaves, '
                        'and the kernel\'s RT throttling 5%%)')
    parser.add_argument('--mover-arg', action='append', default=[],
                        help='extra argument for nova-fpga-datamover')
    parser.add_argument('--verbose', '-v', action='store_true')
    return parser.parse_args()


def main(args, run=None):
    if os.geteuid() != 0:
        raise SystemExit('needs root (network namespaces, packet sockets)')
    # stopped with SIGTERM: unwind, so the netns, veth, processes and
    # /dev/shm files are removed
    signal.signal(signal.SIGTERM, lambda *_: sys.exit('terminated'))
    subprocess.run(['make', '-s', '-C', str(DM)], check=True)
    sizes = [int(s) for s in args.sizes.split(',')]
    engines = args.engines.split(',')
    hz = cpu_hz()
    perf = perf_cycles_available()
    started = datetime.datetime.now(datetime.timezone.utc)
    loads = [loadavg()]
    results = {}
    notes = {}
    # the frame size counts the 802.1Q tag, the Ethernet header and FCS
    with Link(max(1500, max(sizes) - 22)) as link:
        runner = Runner(link, args)
        for engine in engines:
            print('engine %s ...' % engine, flush=True)
            if engine == 'sgemu':
                path = Mover(link, args)
            elif engine == 'python':
                path = PythonPath(link, args)
            elif engine in ('loopback', 'vtc'):
                module_lib, why = verilated_library(engine)
                if module_lib is None:
                    notes[engine] = 'not measured: %s' % why
                    results[engine] = {s: None for s in sizes}
                    continue
                path = Mover(link, args, ['--module', engine,
                                          '--module-lib', str(module_lib)],
                             'C mover + emulated SG DMA + Verilated %s'
                             % engine)
                path.name = engine
            else:
                raise SystemExit('unknown engine %s' % engine)
            results[engine] = {}
            with path:
                for size in sizes:
                    results[engine][size] = runner.measure(path, size)
                    loads.append(loadavg())
                    print('  ' + fmt_row(
                        engine, size, results[engine][size],
                        None, hz), flush=True)
            if getattr(path, 'forwarding', None):
                notes.setdefault(engine, 'mover: %s' % path.forwarding)
    finished = datetime.datetime.now(datetime.timezone.utc)
    report(args, sizes, engines, results, notes, hz, perf, started, finished,
           loads, run)


def verilated_library(engine):
    """(path of the module's Verilated library in its region slot, built by
    the emulator's hdl_bridge if not cached, None) or (None, why).
    """
    for sub in ('', 'agent', 'agent/emulator', 'tools/devtools'):
        if str(ROOT / sub) not in sys.path:
            sys.path.insert(0, str(ROOT / sub))
    try:
        from nova_fpga import catalogue
        from nova_fpga_emulator import hdl_bridge
        from nova_fpga_emulator import modules
        module = catalogue.load().by_name(engine)
        return hdl_bridge.build(modules.HdlModule.of(module).in_slot,
                                ROOT / 'hdl'), None
    except Exception as e:   # the table says why instead
        return None, 'no Verilated library: %s: %s' % (type(e).__name__, e)


def report(args, sizes, engines, results, notes, hz, perf, started,
           finished, loads, run=None):
    lines = [
        'RFC 2544 (sections 26.1 throughput, 26.2 latency) of the board\'s '
        'data path, %s to %s UTC' % (started.strftime('%Y-%m-%d %H:%M:%S'),
                                     finished.strftime('%H:%M:%S')),
        'host: %d CPUs at %.0f MHz, load average (1/5/15 min) during the '
        'run: %s' % (os.cpu_count(), hz / 1e6, ' | '.join(loads)),
        'trial %.1f s (RFC 2544 asks 60 s), zero loss; first trial at '
        '%.2fx 1 GbE line rate (Python path: %.2fx), then doubling from the '
        'first pass and binary search to within %.0f%%, at most %d trials; '
        'a trial that lost <= 1%% is repeated up to %d time(s) and its rate '
        'fails only if every one loses (a shared host: another task\'s time '
        'slice is not the path\'s limit; --retries 0 is strict); '
        'latency: one more trial at the throughput rate, every frame' % (
            args.trial_seconds, args.ceiling, args.python_ceiling,
            args.resolution * 100,
            args.max_trials, args.retries),
        'frame size with 802.1Q tag and FCS (veth: size - 4 bytes sent); '
        'ingress VLAN %d, egress %d; generator/receiver nova-fpga-nfgen '
        '(TPACKET rings) on the peer of a veth, the path in a netns' % (
            INGRESS_VLAN, EGRESS_VLAN),
        'CPUs (taskset): mover %s, engine %s, generator %s; scheduling: %s' % (
            args.mover_cpus or 'any', args.engine_cpus or 'any',
            args.gen_cpus or 'any',
            'SCHED_FIFO 1 (--rt)' if args.nice == 'rt' else
            'nice %d' % args.nice),
        'mover CPU: %s; cycles = ns x %.0f MHz' % (
            'perf stat cycles available but schedstat used' if perf else
            '`perf stat -e cycles` not supported here (no PMU in the VM): '
            'run time from /proc/PID/schedstat (user + system)', hz / 1e6),
        'A9 estimate: 667 MHz / (cycles x %.2f) ("A9 kpps"), and / (cycles x '
        '%.1f) ("A9 x2"): %s' % (A9_FACTOR, A9_FACTOR_CONSERVATIVE,
                                 A9_SOURCE),
        'mover options: %s' % (' '.join(args.mover_arg) or 'defaults'),
        '',
        HEADER,
    ]
    for engine in engines:
        for size in sizes:
            r = results[engine][size]
            ref = None
            if engine != 'python' and 'python' in results:
                pr = results['python'].get(size)
                ref = pr and pr['throughput_pps'] or None
            lines.append(fmt_row(engine, size, r, ref, hz))
        if engine in notes:
            lines.append('  %s: %s' % (engine, notes[engine]))
    engine_lines = []
    for engine in engines:
        for size in sizes:
            r = results[engine][size]
            if r and r.get('latency_trial_lost'):
                engine_lines.append(
                    '  note: %s %d B: the latency trial at the throughput '
                    'rate lost %d frames' % (engine, size,
                                             r['latency_trial_lost']))
            if r and r.get('generator_limited'):
                engine_lines.append(
                    '  note: %s %d B: a trial failed with zero loss because '
                    'the generator could not offer its rate: the path may '
                    'sustain more' % (engine, size))
            if r and 'sim' in r:
                sim = r['sim']
                engine_lines.append(
                    '  %s %d B: Verilator sustains %.0f frames/s zero-loss, '
                    '%.0f simulated cycles/s (%.0f cycles a frame, idle '
                    'quiet cycles included; module frames in/out %d/%d in '
                    'the latency trial)' % (
                        engine, size, r['throughput_pps'],
                        sim['cycles_per_s'], sim['cycles_per_frame'],
                        sim['frames_in'], sim['frames_out']))
            if r and 'engine' in r.get('cpu_ns_per_frame', {}):
                engine_lines.append(
                    '  %s %d B: engine CPU %.0f ns/frame' % (
                        engine, size, r['cpu_ns_per_frame']['engine']))
    text = '\n'.join(lines + [''] + engine_lines) + '\n'
    print()
    print(text)
    if run is not None:
        run.figures.update({
            'started': started.isoformat(), 'finished': finished.isoformat(),
            'args': vars(args), 'cpu_hz': hz, 'loadavg': loads,
            'a9': {'hz': A9_HZ, 'factor': A9_FACTOR,
                   'factor_conservative': A9_FACTOR_CONSERVATIVE,
                   'source': A9_SOURCE},
            'notes': notes,
            'results': {e: {str(s): v for s, v in rs.items()}
                        for e, rs in results.items()},
        })


if __name__ == '__main__':
    parsed = arguments()
    with results_writer.recorded('rfc2544') as recording:
        main(parsed, recording)
