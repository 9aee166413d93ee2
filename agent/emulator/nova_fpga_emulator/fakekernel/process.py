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

"""A fake kernel process, started and stopped by pid, as the tests, the
agent benchmark and the demo cloud run one per emulated board.
"""
import contextlib
import os
import signal
import subprocess
import sys
import time

from nova_fpga_emulator.fakekernel import kernel as fk

COMMAND = os.path.join(sys.prefix, 'bin', 'nova-fpga-fakekernel')

#: an agent backend over the fake kernel: name -> (agent [agent] backend,
#: the fake kernel's --device, further agent options)
VARIANTS = {
    'fpga_manager': ('fpga_manager', 'fpga_manager',
                     {('fpga_manager', 'load_mode'): 'overlay'}),
    'fpga_manager_flags': ('fpga_manager', 'fpga_manager_flags',
                           {('fpga_manager', 'load_mode'): 'flags'}),
    'xdevcfg': ('xdevcfg', 'xdevcfg', {}),
}


class FakeKernelProcess:
    def __init__(self, root, variant, hdl_dir=None, manifest=None,
                 pcap_rate=128.0, module_catalogue_dirs=()):
        self.root = str(root)
        self.variant = variant
        self.args = ['--device', VARIANTS[variant][1],
                     '--pcap-rate', str(pcap_rate),
                     '--log-file', self.log]
        if hdl_dir:
            self.args += ['--hdl-dir', str(hdl_dir)]
        if manifest:
            self.args += ['--manifest', str(manifest)]
        for directory in module_catalogue_dirs:
            self.args += ['--module-catalogue-dir', str(directory)]
        self.process = None

    @property
    def log(self):
        return os.path.join(self.root, 'fakekernel.log')

    @property
    def mountpoint(self):
        return os.path.join(self.root, 'kernel')

    def control(self, fault, value):
        """Set a fault switch (kernel.FAULTS)."""
        with open(os.path.join(self.root, 'control', fault), 'w') as f:
            f.write(value)

    def start(self, timeout=60):
        os.makedirs(self.root, exist_ok=True)
        self.process = subprocess.Popen(
            [COMMAND, self.root] + self.args, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE)
        ready = os.path.join(self.mountpoint, 'sys', 'devices', 'soc0',
                             'family')
        deadline = time.monotonic() + timeout
        while not os.path.exists(ready):
            if self.process.poll() is not None or \
                    time.monotonic() > deadline:
                self.stop()
                raise RuntimeError('fake kernel %s did not come up: %s'
                                   % (self.root,
                                      self.process.stderr.read().decode()))
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
        if os.path.ismount(self.mountpoint):
            subprocess.run(['umount', '-l', self.mountpoint], check=False)

    def reboot(self):
        """Power-cycle the board: a new boot, the fabric empty."""
        self.stop()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(self.root, 'board', 'emulated-pl.json'))
        self.start()

    def agent_options(self):
        """The agent's options for running on this kernel."""
        backend, _, extra = VARIANTS[self.variant]
        options = {('agent', 'backend'): backend}
        options.update(fk.options(self.root))
        options.update(extra)
        return options
