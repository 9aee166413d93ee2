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

"""The agent benchmark runs and prints its figures for every backend (no
timing asserted)."""
import re
import subprocess
import sys

from tests.conftest import ROOT


def test_agent_load_benchmark_prints_its_figures():
    out = subprocess.run([sys.executable,
                          str(ROOT / 'benchmarks' / 'agent_load.py'),
                          '--repeat', '1'], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    for backend in ('sim', 'fpga_manager', 'fpga_manager_flags', 'xdevcfg'):
        for size in ('100KB', '1MB', '4MB'):
            assert re.search(r'\n%s +%s +\d+ ' % (backend, size), out.stdout)
        assert re.search(r'\n%s +agent overhead per MB beyond the port: '
                         r'-?[\d.]+ ms' % backend, out.stdout)
    assert 'port ms' in out.stdout
