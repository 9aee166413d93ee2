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

"""Where a benchmark run's figures go: one dated file a run.

Every benchmark wraps its run in ``recorded``, which tees what it prints
into ``benchmarks/results/<benchmark>-<UTC YYYYmmddTHHMMSSZ>.txt``::

    with results.recorded('bitstream_validate') as run:
        print('...')                    # on the terminal and in the file
        run.figures['full_mbs'] = 212   # optional: also a .json beside it

The file starts with a header (lines starting with ``# ``: the benchmark,
its arguments, the UTC date, the git commit with ``+dirty`` when the tree
has changes outside the results folder, the machine's cores and CPU model
and its load average at the start and at the end of the run), a blank line,
then exactly what the benchmark printed.  It is written when the run ends
without an error; a failed run leaves no file.  The folder is
``benchmarks/results/``, or $NOVA_FPGA_RESULTS_DIR (the tests point it at a
temporary folder, so their short runs never land among the real ones), or
the ``directory`` argument.

``newest(benchmark)`` is the current run of a benchmark (the documentation
quotes it: doc/ext/nova_fpga_docs.py's ``.. benchmark-results::``).
"""
import contextlib
import datetime
import json
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_DIRECTORY = ROOT / 'benchmarks' / 'results'
ENVIRONMENT = 'NOVA_FPGA_RESULTS_DIR'
STAMP = '%Y%m%dT%H%M%SZ'
#: <benchmark>-<stamp>.txt
_NAME = re.compile(r'^(?P<benchmark>[\w.]+)-(?P<stamp>\d{8}T\d{6}Z)\.txt$')


def directory(path=None):
    """The results folder: path, else $NOVA_FPGA_RESULTS_DIR, else
    benchmarks/results/.
    """
    if path is not None:
        return pathlib.Path(path)
    return pathlib.Path(os.environ.get(ENVIRONMENT) or DEFAULT_DIRECTORY)


# -- what the header says -------------------------------------------------

def _git(*args):
    try:
        out = subprocess.run(['git', *args], cwd=ROOT, capture_output=True,
                             text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def commit():
    """`git rev-parse --short HEAD`, with "+dirty" when the tree has
    changes (tracked or untracked) outside benchmarks/results/; "unknown"
    outside a git checkout.
    """
    head = _git('rev-parse', '--short', 'HEAD')
    if head is None:
        return 'unknown'
    changes = _git('status', '--porcelain', '--', '.',
                   ':(exclude)benchmarks/results')
    return head + ('+dirty' if changes else '')


def cpu_model(cpuinfo='/proc/cpuinfo'):
    """The CPU's model name from /proc/cpuinfo ("unknown" without one)."""
    try:
        text = pathlib.Path(cpuinfo).read_text()
    except OSError:
        return 'unknown'
    for key in ('model name', 'Hardware', 'Processor', 'cpu model'):
        match = re.search(r'^%s\s*:\s*(.+)$' % key, text, re.M)
        if match:
            return ' '.join(match.group(1).split())
    return 'unknown'


def load_average():
    """'1 min, 5 min, 15 min' load average."""
    try:
        return '%.2f %.2f %.2f' % os.getloadavg()
    except OSError:
        return 'unknown'


class Run(object):
    """One benchmark run: its header facts, what it printed so far, and
    the figures it chose to record (``figures``, written as .json).
    """

    def __init__(self, benchmark, argv=None, now=None):
        self.benchmark = benchmark
        self.argv = list(sys.argv[1:] if argv is None else argv)
        self.started = now or datetime.datetime.now(datetime.timezone.utc)
        self.commit = commit()
        self.cores = os.cpu_count() or 0
        self.cpu = cpu_model()
        self.load_start = load_average()
        self.load_end = None
        self.printed = []
        self.figures = {}

    @property
    def stamp(self):
        return self.started.strftime(STAMP)

    def header(self):
        return [
            '# benchmark: %s%s' % (self.benchmark, ''.join(
                ' ' + arg for arg in self.argv)),
            '# date: %s' % self.started.strftime('%Y-%m-%d %H:%M:%S UTC'),
            '# commit: %s' % self.commit,
            '# machine: %d cores, %s; load average (1, 5, 15 min) %s at '
            'start, %s at end' % (self.cores, self.cpu, self.load_start,
                                  self.load_end or load_average()),
        ]

    def text(self):
        return '\n'.join(self.header()) + '\n\n' + ''.join(self.printed)

    def write(self, folder=None):
        """Write <benchmark>-<stamp>.txt (and .json when there are
        figures) into the results folder; the .txt path.
        """
        folder = directory(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.load_end = self.load_end or load_average()
        path = folder / ('%s-%s.txt' % (self.benchmark, self.stamp))
        path.write_text(self.text())
        if self.figures:
            path.with_suffix('.json').write_text(json.dumps({
                'benchmark': self.benchmark, 'arguments': self.argv,
                'date': self.started.strftime(STAMP), 'commit': self.commit,
                'cores': self.cores, 'cpu': self.cpu,
                'load_average': {'start': self.load_start,
                                 'end': self.load_end},
                'figures': self.figures}, indent=2, sort_keys=True) + '\n')
        return path


class _Tee(object):
    """A text stream writing to the stream it replaces and to a run."""

    def __init__(self, stream, run):
        self._stream = stream
        self._run = run

    def write(self, text):
        self._run.printed.append(text)
        return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


@contextlib.contextmanager
def recorded(benchmark, directory=None, argv=None):
    """Tee sys.stdout into a Run; write it when the block ends without an
    error (a SystemExit of 0 or None counts as success).
    """
    run = Run(benchmark, argv=argv)
    stdout = sys.stdout
    sys.stdout = _Tee(stdout, run)
    try:
        yield run
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise
        sys.stdout = stdout
        run.path = run.write(directory)
        raise
    finally:
        sys.stdout = stdout
    run.path = run.write(directory)


# -- reading them back -----------------------------------------------------

def runs(benchmark, folder=None):
    """The recorded runs of a benchmark, oldest first: [(stamp, path)]."""
    folder = directory(folder)
    if not folder.is_dir():
        return []
    found = []
    for path in folder.iterdir():
        match = _NAME.match(path.name)
        if match and match.group('benchmark') == benchmark:
            found.append((match.group('stamp'), path))
    return sorted(found)


def newest(benchmark, folder=None):
    """The current run of a benchmark as a dict (benchmark, date, commit,
    header, printed, path), or None when none is recorded.
    """
    found = runs(benchmark, folder)
    if not found:
        return None
    return parse(found[-1][1])


def parse(path):
    """A results file read back: its header facts and what was printed."""
    path = pathlib.Path(path)
    text = path.read_text()
    head, _, printed = text.partition('\n\n')
    facts = {}
    for line in head.splitlines():
        key, _, value = line[2:].partition(': ')
        facts[key] = value
    match = _NAME.match(path.name)
    stamp = match.group('stamp') if match else None
    return {'benchmark': match.group('benchmark') if match else path.stem,
            'date': facts.get('date') or stamp, 'stamp': stamp,
            'commit': facts.get('commit', 'unknown'),
            'machine': facts.get('machine', ''),
            'command': facts.get('benchmark', ''),
            'header': head.splitlines(), 'printed': printed, 'path': path}
