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

"""The soak: create/delete cycles, several at a time, mixed images (one in
ten the bad image, whose servers must fail cleanly), then the invariant
checker, and every long-running process's resident memory: sampled every
SAMPLE_EVERY cycles, its growth after the first WARM_UP cycles as a slope
(least squares, MB per 100 cycles).  The goal of MAX_SLOPE_MB holds for
the processes that run nova-fpga's code (PROJECT); the others (MariaDB,
RabbitMQ, keystone, placement, nova-api, nova-conductor) are printed beside
them, not judged.

``make soak`` runs 1,500 cycles, 10 at a time, on a cloud of its own with
five boards (ten regions), its output recorded in benchmarks/results/
(soak-*.txt); tests/reliability/test_soak.py a short one on the suite's
cloud in CI.  Servers are driven with openstacksdk (the CLI's
own library, without a process per call: the soak measures the cloud, not
the client).
"""
import argparse
import concurrent.futures
import fnmatch
import itertools
import pathlib
import shutil
import sys
import tempfile
import threading
import time

import openstack
import openstack.config
import openstack.connection
import openstack.exceptions

from tests.reliability import invariants
from tests.reliability import memtrace
from tests.reliability import workload

#: every tenth cycle boots the bad image
MIX = ['rel-loopback-rp0', 'rel-loopback-rp1', 'rel-vtc-rp1',
       'rel-loopback-rp0', 'rel-loopback-rp1', 'rel-vtc-rp1',
       'rel-loopback-rp0', 'rel-loopback-rp1', 'rel-vtc-rp1', workload.BAD]
NO_HOST = 'No valid host was found'
#: resident memory sampled every this many finished cycles
SAMPLE_EVERY = 50
#: cycles before a process's growth counts (caches, pools, imports)
WARM_UP = 100
#: the goal: growth per 100 cycles after warm-up, per process, MB
MAX_SLOPE_MB = 1.0
#: the cloud's processes (as Stack.pids() names them) that run nova-fpga's
#: code: the boards' agents and fake kernels, nova-compute (the Zynq
#: driver), nova-scheduler (the filter and weigher), glance-api (the store,
#: the import plugin, the paste filters), neutron's servers (the ML2 driver)
PROJECT = ('boards/*/agent', 'boards/*/fakekernel', 'nova/nova-compute',
           'nova/nova-scheduler', 'glance/glance-api',
           'neutron/neutron-server', 'neutron/neutron-rpc-server')


def of_the_project(name):
    """Whether the goal holds for a process (PROJECT)."""
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in PROJECT)


def slope(samples):
    """Least-squares slope of [(cycle, KiB)], in MB per 100 cycles (None
    with fewer than two samples).
    """
    if len(samples) < 2:
        return None
    n = len(samples)
    mx = sum(c for c, _ in samples) / n
    my = sum(k for _, k in samples) / n
    sxx = sum((c - mx) ** 2 for c, _ in samples)
    if not sxx:
        return None
    sxy = sum((c - mx) * (k - my) for c, k in samples)
    return sxy / sxx * 100 / 1024


class Soak:
    """cycles create/delete cycles, concurrency at a time, as bob."""

    def __init__(self, cloud, images, cycles, concurrency):
        self.cloud, self.images = cloud, images
        self.cycles, self.concurrency = cycles, concurrency
        config = openstack.config.OpenStackConfig(
            config_files=[str(cloud.clouds_file())]).get_one(
            cloud=cloud.cloud_name('bob'))
        self.conn = openstack.connection.Connection(config=config)
        self.flavor = self.conn.compute.find_flavor(workload.FLAVOR,
                                                    ignore_missing=False)
        self.outcomes = {}
        self.problems = []
        self._lock = threading.Lock()
        self._done = 0
        self._checker = None
        #: [(cycles finished, {process: KiB})]
        self.samples = []
        #: where traced processes write their tracemalloc snapshots
        self.trace_dir = None

    def _count(self, key):
        with self._lock:
            self.outcomes[key] = self.outcomes.get(key, 0) + 1

    def cycle(self, index, image):
        """One server created, waited for, checked, deleted."""
        server = self.conn.compute.create_server(
            name='soak-%d' % index, image_id=self.images[image],
            flavor_id=self.flavor.id, networks='none')
        try:
            server = self.conn.compute.wait_for_server(
                server, status='ACTIVE', failures=['ERROR'], interval=1,
                wait=600)
        except openstack.exceptions.ResourceFailure:
            server = self.conn.compute.get_server(server.id)
        status = server.status
        fault = (server.fault or {}).get('message', '')
        if image == workload.BAD:
            if status != 'ERROR' or NO_HOST not in fault:
                self.problems.append('bad image %s: %s %s' % (
                    server.id, status, fault))
            self._count('bad image: ERROR, ' + NO_HOST)
        elif status == 'ERROR':
            # all regions taken by the other cycles: a clean refusal
            if NO_HOST not in fault:
                self.problems.append('%s %s: ERROR %s' % (
                    image, server.id, fault))
            self._count('%s: ERROR, %s' % (image, fault[:60]))
        else:
            self._count('%s: ACTIVE' % image)
        self.conn.compute.delete_server(server)
        self.conn.compute.wait_for_delete(server, interval=1, wait=300)

    def _guarded(self, index, image):
        try:
            self.cycle(index, image)
        except Exception as exc:  # a cycle the cloud failed: counted
            with self._lock:
                self.problems.append('cycle %d (%s): %s: %s' % (
                    index, image, type(exc).__name__, exc))
        with self._lock:
            self._done += 1
            done = self._done
        if done % SAMPLE_EVERY == 0:
            rss = self._checker.rss_kib()
            with self._lock:
                self.samples.append((done, rss))
            if self.trace_dir is not None:
                memtrace.request(self.trace_dir, done)

    def run(self, checker):
        """{figure: value} of the soak; checker's invariants at the end."""
        before = checker.rss_kib()
        self._checker = checker
        self.samples = [(0, before)]
        began = time.monotonic()
        plan = zip(range(self.cycles), itertools.cycle(MIX))
        with concurrent.futures.ThreadPoolExecutor(self.concurrency) as pool:
            list(pool.map(lambda args: self._guarded(*args), plan))
        seconds = time.monotonic() - began
        violations = checker.violations()
        after = checker.rss_kib()
        return {'cycles': self.cycles, 'concurrency': self.concurrency,
                'seconds': seconds, 'outcomes': self.outcomes,
                'problems': self.problems, 'violations': violations,
                'rss_kib': {name: (before.get(name, 0), after.get(name, 0))
                            for name in sorted(set(before) | set(after))},
                'rss_samples': sorted(self.samples, key=lambda s: s[0])}


def slopes(figures, since=WARM_UP):
    """{process: MB per 100 cycles from cycle `since` on} from the samples
    (None where fewer than two samples are that late).
    """
    names = sorted({n for _, rss in figures['rss_samples'] for n in rss})
    return {name: slope([(c, rss[name]) for c, rss in figures['rss_samples']
                         if c >= since and name in rss])
            for name in names}


def late_slopes(figures):
    """{process: MB per 100 cycles over the second half of the run}: beside
    the slope after warm-up it tells growth that levels off (the late slope
    smaller) from growth that does not.
    """
    return slopes(figures, since=figures['cycles'] // 2)


def summary(figures):
    """The soak's figures as lines of text."""
    cycles = figures['cycles']
    lines = ['soak: %d cycles, %d at a time, %.0f s' % (
        cycles, figures['concurrency'], figures['seconds'])]
    lines += ['  %5d  %s' % (count, what)
              for what, count in sorted(figures['outcomes'].items())]
    lines.append('  problems: %s' % (figures['problems'] or 'none'))
    lines.append('  invariant violations (leaked allocations, regions, '
                 'files, processes): %s' % (figures['violations'] or 'none'))
    lines.append('  RSS per process, MB: before -> after (growth per 100 '
                 'cycles)')
    total = [0, 0]
    for name, (before, after) in figures['rss_kib'].items():
        total[0] += before
        total[1] += after
        lines.append('    %-36s %7.1f -> %7.1f (%+.1f)' % (
            name, before / 1024, after / 1024,
            (after - before) / 1024 * 100 / cycles))
    lines.append('    %-36s %7.1f -> %7.1f (%+.1f)' % (
        'all', total[0] / 1024, total[1] / 1024,
        (total[1] - total[0]) / 1024 * 100 / cycles))
    found, late = slopes(figures), late_slopes(figures)
    lines.append('  RSS growth after the first %d cycles (sampled every %d; '
                 'least squares), MB per 100 cycles; goal <= %.1f for the '
                 'processes that run nova-fpga\'s code; in brackets the '
                 'same over the second half of the run (from cycle %d):' % (
                     WARM_UP, SAMPLE_EVERY, MAX_SLOPE_MB,
                     figures['cycles'] // 2))
    others = []
    for name, value in found.items():
        if value is None:
            shown = 'too few samples'
        else:
            shown = '%+.2f' % value
            if late.get(name) is not None:
                shown += ' [%+.2f]' % late[name]
            if value > MAX_SLOPE_MB and of_the_project(name):
                shown += '  OVER THE GOAL'
        if of_the_project(name):
            lines.append('    %-36s %s' % (name, shown))
        else:
            others.append('    %-36s %s' % (name, shown))
    if others:
        lines.append('  the others (no nova-fpga code in them; not judged):')
        lines += others
    samples = figures['rss_samples']
    lines.append('  RSS of the processes that run nova-fpga\'s code at each '
                 'sample, MB (cycles %s):' % ', '.join(
                     str(cycle) for cycle, _ in samples))
    for name in found:
        if of_the_project(name):
            lines.append('    %-36s %s' % (name, ' '.join(
                '%.1f' % (rss[name] / 1024) if name in rss else '-'
                for _, rss in samples)))
    return lines


def over_goal(figures):
    """The processes of the project whose growth after warm-up is over
    the goal.
    """
    return sorted(name for name, value in slopes(figures).items()
                  if value is not None and value > MAX_SLOPE_MB
                  and of_the_project(name))


def keep_logs(cloud, directory):
    """Copy every log of the stopped cloud under `directory` (emptied
    first), by the names Stack.logs() gives them; the directory.
    """
    if directory.exists():
        shutil.rmtree(directory)
    for name, path in cloud.logs().items():
        target = directory / (name + '.log')
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return directory


def main(argv=None):
    """make soak: a cloud of its own (private MariaDB and RabbitMQ, boards
    boards), the soak, its figures; the cloud stopped and purged after.
    Exits 1 when a cycle failed uncleanly, an invariant was violated or a
    process grew more than the goal after warm-up.
    """
    from nova_fpga_devtools.localcloud import stack as localstack
    from tests.reliability import conftest
    from tests.services import CLI
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument('--cycles', type=int, default=500)
    parser.add_argument('--concurrency', type=int, default=10)
    parser.add_argument('--boards', type=int, default=5)
    parser.add_argument('--trace-memory', metavar='WORDS', default='',
                        help='comma-separated words of the command lines '
                             '(or, for the gunicorn-served APIs, working '
                             'folders) of the services to run under '
                             'tracemalloc (e.g. glance,nova-scheduler): each '
                             'writes a '
                             'snapshot at every sample, and the soak prints '
                             'what grew most between the end of warm-up and '
                             'the last sample, by where it was allocated')
    parser.add_argument('--logs', type=pathlib.Path,
                        default=pathlib.Path('.state/soak-logs'),
                        help='where the cloud\'s logs are kept when a cycle '
                             'failed uncleanly or an invariant was violated '
                             '(the cloud itself is purged)')
    args = parser.parse_args(argv)
    figures = None
    with tempfile.TemporaryDirectory(prefix='nova-fpga-soak-') as state:
        cloud = localstack.Stack(
            pathlib.Path(state) / 'cloud', boards=args.boards,
            die_with_parent=True,
            board_options=conftest.board_options(args.boards))
        trace_dir = None
        if args.trace_memory:
            trace_dir = memtrace.install(pathlib.Path(state) / 'memtrace',
                                         args.trace_memory)
        try:
            cloud.up()
            admin, bob = CLI(cloud.openrc('admin')), CLI(cloud.openrc('bob'))
            images = workload.make_images(cloud, admin, bob,
                                          pathlib.Path(state))
            soak = Soak(cloud, images, args.cycles, args.concurrency)
            soak.trace_dir = trace_dir
            figures = soak.run(invariants.Checker(cloud))
            if trace_dir is not None:
                time.sleep(2 * memtrace.POLL_SECONDS)
                traced = memtrace.growth(trace_dir, WARM_UP)
                kept = args.logs.parent / 'soak-memtrace'
                shutil.rmtree(kept, ignore_errors=True)
                shutil.copytree(trace_dir, kept)
                traced.append('the snapshots: %s' % kept)
        finally:
            cloud.down()
            if figures is None or figures['problems'] or \
                    figures['violations']:
                kept = keep_logs(cloud, args.logs)
                print('the cloud\'s logs: %s' % kept)
            cloud.down(purge=True)
    print('\n'.join(summary(figures)))
    if args.trace_memory:
        print('\n'.join(traced))
    return 1 if figures['problems'] or figures['violations'] or \
        over_goal(figures) else 0


if __name__ == '__main__':
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]
                           / 'benchmarks'))
    import results
    with results.recorded('soak'):
        code = main()
    sys.exit(code)
