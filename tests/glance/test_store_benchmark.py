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

"""The store benchmark runs and prints its comparison (no timing asserted)."""
import subprocess
import sys

from tests.conftest import ROOT


def test_store_benchmark_prints_its_figures():
    out = subprocess.run([sys.executable,
                          str(ROOT / 'benchmarks' / 'bitstream_store_add.py'),
                          '--repeat', '2'], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert 'filesystem store (file)' in out.stdout
    assert 'validating path costs' in out.stdout
