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

"""tracemalloc in the soak's cloud (``make soak`` with --trace-memory).

The soak puts this folder on the services' PYTHONPATH, so every Python
process of its cloud imports this module at start.  A process whose command
line or working directory names one of NOVA_FPGA_TRACEMALLOC's
comma-separated words (e.g. ``glance,nova-scheduler``: the cloud's
gunicorn-served APIs are named by their folder) starts a thread that,
whenever the soak writes a new sample number into
NOVA_FPGA_TRACEMALLOC_DIR/request, writes its tracemalloc snapshot there as
``<word>-<pid>-<sample>.snap`` (tracing, TRACE_FRAMES frames a trace, starts
at the first sample).  A forked worker (gunicorn's) starts its own thread.
Nothing happens in any other process.
"""
import os
import sys
import threading
from time import sleep  # the real one: eventlet patches time later
import tracemalloc

TRACE_FRAMES = 12
POLL_SECONDS = 1.0
#: the file the soak writes a sample number into
REQUEST = 'request'
#: a snapshot's file name: word, pid, sample
SNAPSHOT = '%s-%d-%s.snap'


def _word():
    words = [w for w in os.environ.get('NOVA_FPGA_TRACEMALLOC', '').split(',')
             if w]
    # gunicorn's services have no name in their command line (the cloud
    # starts them as plain `gunicorn` in their own folder, which names them)
    command = ' '.join(sys.argv + [os.getcwd()])
    return next((w for w in words if w in command), None)


def _watch(word, directory):
    request = os.path.join(directory, REQUEST)
    done = None
    while True:
        sleep(POLL_SECONDS)
        try:
            with open(request) as stream:
                sample = stream.read().strip()
        except OSError:
            continue
        if sample and sample != done:
            done = sample
            if not tracemalloc.is_tracing():
                # from the soak's first sample on: tracing from the start
                # slows a service's start-up past its health check (glance
                # took over 60 s), and what grows after warm-up is traced
                # all the same
                tracemalloc.start(TRACE_FRAMES)
            path = os.path.join(directory, SNAPSHOT % (
                word, os.getpid(), sample))
            tracemalloc.take_snapshot().dump(path + '.part')
            os.rename(path + '.part', path)


def _start_watching(word, directory):
    threading.Thread(target=_watch, args=(word, directory), daemon=True,
                     name='nova-fpga-tracemalloc').start()


def _install():
    directory = os.environ.get('NOVA_FPGA_TRACEMALLOC_DIR')
    word = _word() if directory else None
    if word is None:
        return
    _start_watching(word, directory)
    os.register_at_fork(
        after_in_child=lambda: _start_watching(word, directory))


if __name__ == 'sitecustomize':
    # imported by Python's site at a service's start, not by the soak's
    # side (tests.reliability.memtrace takes the names above from here)
    _install()
