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

"""How the agent's process uses memory on a board (hundreds of MB, shared
with the kernel and the data mover).

The agent's growth over a soak was the C allocator's, not Python objects'
(tracemalloc saw a few hundred kB per hundred loads where the RSS grew by
megabytes): every load decodes a bitstream of megabytes on one of the RPC
server's threads; glibc gives each thread an arena of its own (up to eight
per core) and, after the first such buffer is freed, raises its mmap
threshold to that size, so later buffers come from the arenas, whose
freed pages stay with the process.  The agent caps both at start, and
serves RPC with fewer threads than oslo.messaging's 64 (a board's calls
are a few at a time: one load per region at most).  Measured on one
agent process, 400 loads of a 682 kB bitstream over RabbitMQ: growth
after the first 100 from 2.0 MB per 100 loads to 0.6.
"""
import ctypes
import ctypes.util
import os

from oslo_config import cfg
from oslo_log import log as logging
from oslo_messaging import opts as messaging_opts

LOG = logging.getLogger(__name__)

#: glibc's mallopt(3) parameters
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8
#: what oslo.messaging calls its RPC server's thread pool
POOL_OPTION = 'executor_thread_pool_size'
#: the agent's default for it
RPC_THREADS = 16

MEMORY_OPTS = [
    cfg.IntOpt('malloc_arena_max', default=2, min=0,
               help='The C allocator\'s arenas at most (glibc mallopt '
                    'M_ARENA_MAX; its default is eight per core, one per '
                    'thread that allocates). 0: the C library\'s default. '
                    '``MALLOC_ARENA_MAX`` in the agent\'s environment wins.'),
    cfg.IntOpt('malloc_mmap_threshold', default=256 * 1024, min=0,
               help='Bytes from which an allocation is a mapping of its '
                    'own, given back to the kernel when freed (glibc mallopt '
                    'M_MMAP_THRESHOLD, which also keeps the threshold from '
                    'rising to the largest buffer freed: a bitstream\'s '
                    'megabytes). 0: the C library\'s default (dynamic). '
                    '``MALLOC_MMAP_THRESHOLD_`` in the agent\'s environment '
                    'wins.'),
]


def register_opts(conf, group):
    conf.register_opts(MEMORY_OPTS, group=group)


def rpc_thread_default(conf):
    """The agent's default for oslo.messaging's [DEFAULT]
    executor_thread_pool_size (an operator's value in the file wins).
    """
    for group, opts in messaging_opts.list_opts():
        if group is None or getattr(group, 'name', group) == 'DEFAULT':
            for opt in opts:
                if opt.dest == POOL_OPTION:
                    conf.register_opt(opt)
    conf.set_default(POOL_OPTION, RPC_THREADS)


def _libc():
    name = ctypes.util.find_library('c')
    if not name:
        return None
    try:
        libc = ctypes.CDLL(name)
        return libc if hasattr(libc, 'mallopt') else None
    except OSError:
        return None


def tune(group, environ=os.environ, libc=None):
    """Apply group's malloc_arena_max and malloc_mmap_threshold; what was
    set, as {parameter: value}.  Nothing with a C library without
    mallopt (musl) or where the environment sets the same.
    """
    libc = libc or _libc()
    done = {}
    if libc is None:
        LOG.info('the C library has no mallopt: its allocator is left as '
                 'it is')
        return done
    for env, param, value in (
            ('MALLOC_ARENA_MAX', M_ARENA_MAX, group.malloc_arena_max),
            ('MALLOC_MMAP_THRESHOLD_', M_MMAP_THRESHOLD,
             group.malloc_mmap_threshold)):
        if not value or env in environ:
            continue
        if libc.mallopt(param, value) != 1:
            LOG.warning('mallopt(%d, %d) failed: the allocator is left as '
                        'it is', param, value)
            continue
        done[env] = value
    if done:
        LOG.info('C allocator: %s', ', '.join(
            '%s %d' % kv for kv in sorted(done.items())))
    return done
