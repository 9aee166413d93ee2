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

"""The soak's side of tracing the cloud's memory (sitecustomize.py beside
this is the services' side): put the hook on the services' path, ask for
snapshots, and say what grew.
"""
import collections
import os
import pathlib
import re
import tracemalloc

from tests.reliability.memtrace import sitecustomize as hook

HOOK_DIR = pathlib.Path(__file__).resolve().parent
POLL_SECONDS = hook.POLL_SECONDS
TOP = 12
_SNAPSHOT = re.compile(r'^(?P<word>.+)-(?P<pid>\d+)-(?P<sample>\d+)\.snap$')


def install(directory, words):
    """Make the services started from now on (they inherit this process's
    environment) trace their memory when their command line names one of
    `words`; the directory their snapshots go to.
    """
    directory.mkdir(parents=True, exist_ok=True)
    os.environ['PYTHONPATH'] = os.pathsep.join(
        [str(HOOK_DIR)] + [p for p in os.environ.get('PYTHONPATH', '').split(
            os.pathsep) if p])
    os.environ['NOVA_FPGA_TRACEMALLOC'] = words
    os.environ['NOVA_FPGA_TRACEMALLOC_DIR'] = str(directory)
    return directory


def request(directory, sample):
    """Ask every traced process for a snapshot named after `sample`."""
    part = directory / (hook.REQUEST + '.part')
    part.write_text(str(sample))
    part.rename(directory / hook.REQUEST)


def growth(directory, warm_up, top=TOP):
    """Lines: per traced process, what grew most from the first snapshot at
    or after `warm_up` to the last one, by the traceback that allocated it.
    """
    found = collections.defaultdict(dict)
    for path in directory.glob('*.snap'):
        match = _SNAPSHOT.match(path.name)
        if match:
            found[(match['word'], int(match['pid']))][
                int(match['sample'])] = path
    lines = ['tracemalloc, from the end of warm-up to the last sample, per '
             'traced process:']
    if not found:
        lines.append('  no snapshots were written')
    for (word, pid), snaps in sorted(found.items()):
        after_warm_up = sorted(s for s in snaps if s >= warm_up)
        if len(after_warm_up) < 2:
            lines.append('  %s pid %d: too few snapshots (%s)' % (
                word, pid, sorted(snaps)))
            continue
        first, last = after_warm_up[0], after_warm_up[-1]
        loaded = {sample: tracemalloc.Snapshot.load(str(snaps[sample]))
                  for sample in after_warm_up}
        old, new = loaded[first], loaded[last]
        stats = new.compare_to(old, 'traceback')
        total = sum(stat.size_diff for stat in stats)
        lines.append('  %s pid %d, samples %d -> %d: %+.2f MB traced in all'
                     % (word, pid, first, last, total / 2 ** 20))
        # the whole traced heap at each sample: a steady rise is a leak in
        # Python objects; flat while the RSS rises is the allocator's
        lines.append('    traced heap, MB: %s' % ', '.join(
            '%d: %.2f' % (sample, sum(
                stat.size for stat in loaded[sample].statistics('filename'))
                / 2 ** 20) for sample in after_warm_up))
        lines.append('    largest changes (allocation site first):')
        for stat in stats[:top]:
            lines.append('    %+9.1f kB %+7d blocks' % (
                stat.size_diff / 1024, stat.count_diff))
            for frame in list(stat.traceback)[-4:][::-1]:
                lines.append('        %s:%d' % (frame.filename, frame.lineno))
    return lines
