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

"""The agent's allocator settings ([agent] malloc_*) and its RPC thread
pool (nova_fpga_agent.memory)."""
import ctypes
import ctypes.util
import types

from oslo_config import cfg

from nova_fpga_agent import conf as agent_conf
from nova_fpga_agent import memory
from tests.agent.conftest import write_conf


class Libc:
    """mallopt as glibc answers it: 1 when done."""

    def __init__(self, answer=1):
        self.calls = []
        self.answer = answer

    def mallopt(self, param, value):
        self.calls.append((param, value))
        return self.answer


def group(arenas=2, threshold=262144):
    return types.SimpleNamespace(malloc_arena_max=arenas,
                                 malloc_mmap_threshold=threshold)


def test_both_are_set_by_default():
    libc = Libc()
    done = memory.tune(group(), environ={}, libc=libc)
    assert libc.calls == [(memory.M_ARENA_MAX, 2),
                          (memory.M_MMAP_THRESHOLD, 262144)]
    assert done == {'MALLOC_ARENA_MAX': 2, 'MALLOC_MMAP_THRESHOLD_': 262144}


def test_the_environment_and_zero_leave_glibc_alone():
    libc = Libc()
    done = memory.tune(group(threshold=0),
                       environ={'MALLOC_ARENA_MAX': '8'}, libc=libc)
    assert libc.calls == [] and done == {}


def test_a_refused_mallopt_is_not_reported_done():
    assert memory.tune(group(), environ={}, libc=Libc(answer=0)) == {}


def test_the_real_glibc_takes_them():
    """The parameters are glibc's own (a wrong one answers 0)."""
    libc = ctypes.CDLL(ctypes.util.find_library('c'))
    assert memory.tune(group(), environ={}, libc=libc) == {
        'MALLOC_ARENA_MAX': 2, 'MALLOC_MMAP_THRESHOLD_': 262144}


def test_rpc_threads_default_to_the_agents_and_the_file_wins(tmp_path):
    conf = cfg.ConfigOpts()
    agent_conf.register_opts(conf)
    conf(['--config-file', str(write_conf(tmp_path, 'm0'))])
    assert conf.executor_thread_pool_size == memory.RPC_THREADS
    assert conf.agent.malloc_arena_max == 2
    conf = cfg.ConfigOpts()
    agent_conf.register_opts(conf)
    conf(['--config-file', str(write_conf(
        tmp_path, 'm1', {('DEFAULT', 'executor_thread_pool_size'): 40}))])
    assert conf.executor_thread_pool_size == 40
