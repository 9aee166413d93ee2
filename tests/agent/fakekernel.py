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

"""Fake Zynq kernels as processes, and the agent's privileged helper
confined to them, for running the board backends as on a board."""
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time

from oslo_config import cfg
from oslo_privsep import priv_context

from nova_fpga_agent import privsep
from nova_fpga_emulator.fakekernel import kernel as fk
from tests.conftest import HDL

FAKEKERNEL = os.path.join(sys.prefix, 'bin', 'nova-fpga-fakekernel')
HELPER = os.path.join(sys.prefix, 'bin', 'privsep-helper')

#: backend variant -> (agent backend, fake kernel --device, agent options)
VARIANTS = {
    'fpga_manager': ('fpga_manager', 'fpga_manager',
                     {('fpga_manager', 'load_mode'): 'overlay'}),
    'fpga_manager_flags': ('fpga_manager', 'fpga_manager_flags',
                           {('fpga_manager', 'load_mode'): 'flags'}),
    'xdevcfg': ('xdevcfg', 'xdevcfg', {}),
}


class FakeKernel:
    """nova-fpga-fakekernel serving ``root`` (started and stopped by pid)."""

    def __init__(self, root, device, pcap_rate=1000.0):
        self.root = str(root)
        self.device = device
        self.pcap_rate = pcap_rate
        self.process = None

    @property
    def log(self):
        return os.path.join(self.root, 'fakekernel.log')

    def control(self, fault, value):
        with open(os.path.join(self.root, 'control', fault), 'w') as f:
            f.write(value)

    def start(self, timeout=60):
        os.makedirs(self.root, exist_ok=True)
        self.process = subprocess.Popen(
            [FAKEKERNEL, self.root, '--device', self.device, '--hdl-dir',
             HDL, '--pcap-rate', str(self.pcap_rate), '--log-file',
             self.log], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        ready = os.path.join(self.root, 'kernel', 'sys', 'devices', 'soc0',
                             'family')
        deadline = time.monotonic() + timeout
        while not os.path.exists(ready):
            if self.process.poll() is not None or \
                    time.monotonic() > deadline:
                self.stop()
                raise RuntimeError('fake kernel did not come up: %s'
                                   % self.process.stderr.read().decode())
            time.sleep(0.02)
        return self

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        mount = os.path.join(self.root, 'kernel')
        if os.path.ismount(mount):
            subprocess.run(['umount', '-l', mount], check=False)

    def reboot(self):
        """Power-cycle the board: a new boot, the fabric empty."""
        self.stop()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(self.root, 'board', 'emulated-pl.json'))
        self.start()

    def agent_options(self, variant):
        backend, _, extra = VARIANTS[variant]
        options = {('agent', 'backend'): backend}
        options.update(fk.options(self.root))
        options.update(extra)
        return options


@contextlib.contextmanager
def privileged_helper(base):
    """The agent's privsep daemon, as a board starts it, with its roots at
    ``base`` (every fake kernel of the tests lives below it).
    """
    conf = os.path.join(base, 'privileged.conf')
    with open(conf, 'w') as f:
        f.write('[agent]\n' + ''.join('%s = %s\n' % (opt, base) for opt in (
            'sysfs_root', 'configfs_root', 'firmware_dir', 'dev_root')))
    section = privsep.board_pctxt.cfg_section
    cfg.CONF.set_override('helper_command', '%s --config-file %s'
                          % (HELPER, conf), group=section)
    # not Method.FORK: forking a test process whose other threads may
    # hold locks (logging, messaging) can leave the child deadlocked
    privsep.board_pctxt.start(method=priv_context.Method.ROOTWRAP)
    try:
        yield base
    finally:
        privsep.board_pctxt.stop()
        cfg.CONF.clear_override('helper_command', group=section)


def kernel_root(base, name):
    return tempfile.mkdtemp(prefix=name + '-', dir=base)
