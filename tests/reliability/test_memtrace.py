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

"""The soak's memory tracing: a process whose command line names a traced
word writes snapshots when asked, also after a fork; the soak names the
line that allocated what grew; a process not named traces nothing.
"""
import os
import signal
import subprocess
import sys
import time

from tests.reliability import memtrace

#: grows a list by 200 kB per sample asked for, in a forked child
GROWER = '''
import os, sys, time
kept = []
pid = os.fork()
if pid == 0:
    seen = None
    while True:
        try:
            sample = open(sys.argv[1] + "/request").read()
        except OSError:
            sample = None
        if sample and sample != seen:
            seen = sample
            kept.append(bytearray(200 * 1024))
        time.sleep(0.05)
else:
    os.waitpid(pid, 0)
'''


def _wait_for(predicate, timeout=20):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, 'timed out'
        time.sleep(0.1)


def test_a_traced_process_and_its_fork_name_what_grew(tmp_path,
                                                      monkeypatch):
    monkeypatch.setattr(os, 'environ', dict(os.environ))
    directory = memtrace.install(tmp_path / 'trace', 'grower-service')
    script = tmp_path / 'grower-service.py'
    script.write_text(GROWER)
    other = subprocess.Popen([sys.executable, '-c', 'import time; '
                              'time.sleep(30)'], env=os.environ)
    # a session of its own: the forked child is killed with it, not left
    grower = subprocess.Popen([sys.executable, str(script), str(directory)],
                              env=os.environ, start_new_session=True)
    try:
        for sample in (100, 150, 200):
            memtrace.request(directory, sample)
            _wait_for(lambda: len(list(directory.glob(
                '*-%d.snap' % sample))) == 2)
        names = sorted(p.name for p in directory.glob('*.snap'))
        # the parent and its forked child, nothing from the other process
        pids = {n.split('-')[2] for n in names}
        assert len(pids) == 2 and str(grower.pid) in pids
        assert str(other.pid) not in pids
        assert all(n.startswith('grower-service-') for n in names)
        lines = memtrace.growth(directory, 100)
    finally:
        os.killpg(grower.pid, signal.SIGKILL)
        grower.wait()
        other.kill()
        other.wait()
    text = '\n'.join(lines)
    # the child grew by two 200 kB blocks between samples 100 and 200,
    # allocated at the script's append line
    assert 'samples 100 -> 200' in text
    assert '%s:14' % script in text
    assert '+400.' in text or '+401.' in text or '+402.' in text, text
