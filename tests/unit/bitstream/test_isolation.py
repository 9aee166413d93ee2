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

"""The library and the shared contract must work where nova, glance and
oslo are absent (a board has no nova or glance; the bitstream CLI runs on a
developer's laptop)."""
import subprocess
import sys

from tests.unit.bitstream import realfiles

BLOCKER = r'''
import importlib.abc, sys
BLOCKED = ('nova', 'glance', 'glance_store', 'keystone', 'neutron',
           'placement', 'oslo_config', 'oslo_messaging', 'oslo_log',
           'eventlet', 'numpy')
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in BLOCKED:
            raise ImportError('blocked on a board: ' + name)
sys.meta_path.insert(0, Block())
import nova_fpga.bitstream as b
from nova_fpga.bitstream import builder, convert
from nova_fpga.cmd import bitstream as cli
from nova_fpga.contract import placement, reports, shell, states, traits
shell.load(shell.REFERENCE)
info = b.validate_file(sys.argv[1])
traits.image_properties(info, '3f1c1a52-8a57-4c2e-9a51-52b1c0a0f001')
assert not [m for m in sys.modules if m.split('.')[0] in BLOCKED]
print(info.footprint.signature)
'''


def test_bitstream_library_and_contract_import_without_openstack():
    out = subprocess.run(
        [sys.executable, '-c', BLOCKER, str(realfiles.path('pr_0_add.bit'))],
        capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert len(out.stdout.strip()) == 32


def test_package_root_imports_nothing():
    out = subprocess.run(
        [sys.executable, '-c',
         'import sys, nova_fpga; print(sorted(m for m in sys.modules '
         'if m.startswith("nova_fpga")))'],
        capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "['nova_fpga']"
