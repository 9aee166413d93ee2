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

"""A fake Zynq kernel: the Linux interfaces the board backends drive, with
the board emulator behind them.

It makes a tree under a root directory that the agent's configuration
points its roots at (``options()``)::

    kernel/          a FUSE mount: sys/ (sysfs, configfs at sys/kernel/
                     config), dev/, proc/sys/kernel/random/boot_id
    firmware/        the firmware path (plain files the agent writes)
    nodes/           what kernel/dev links to: the UIO sockets, the DMA
                     buffers
    control/         fault switches a test or the demo writes (FAULTS)
    received.bin     the last data the configuration port was given
    board/           the emulated fabric's state (the board emulator's)

and reacts to the writes of any process as the drivers do (zynq-fpga,
Xilinx's configfs overlays, xdevcfg, generic-uio, u-dma-buf): a load
really configures the emulated region, whose Verilog then answers the
module's registers and the AXI DMA.  It runs as a process of its own
(``python -m nova_fpga_emulator.fakekernel``), unknown to the agent.

Devices are parts (``Part``): each adds its nodes to the tree when the
kernel starts; a new device (the XADC's IIO part, say) is one more module
with a Part subclass, named in cmd.COMMON_PARTS.

Its limits, honestly: a FUSE mount cannot intercept loads and stores into
an mmap, so /dev/uioN is a Unix socket here and the agent's register
seam (nova_fpga_agent.backends.uio) speaks to it instead of mapping it;
the DMA buffers are plain shared files, which the emulated AXI DMA reads
and writes when its registers say so.  A bus error is an error answer on
that socket, not a SIGBUS.  The kernel's log, interrupts, the PL clocks
and the PCAP's real DMA are not emulated; loads take the emulator's
modelled time.
"""
import os
import threading
import uuid

from oslo_log import log as logging

from nova_fpga_emulator import board as emulated
from nova_fpga_emulator import engine
from nova_fpga_emulator.fakekernel import tree as fs

LOG = logging.getLogger(__name__)

#: control/<name>: what a test or the demo writes to make the next use fail
FAULTS = {
    'fail_state': 'a kernel state ("write init error", "write error", '
                  '"write complete error", "firmware request error") the '
                  'next FPGA manager load ends in, or "hang": it stays in '
                  '"write" and never reaches operating (xdevcfg: see '
                  'xdevcfg.py)',
    'overlay_fails': 'any content: the next overlay\'s path write returns '
                     'success and its status stays unapplied',
    'bus_error': 'a region name: its module registers answer SLVERR until '
                 'the file is emptied',
}


class Part:
    """A device of the fake kernel: adds its nodes when the kernel starts."""

    def attach(self, kernel):
        raise NotImplementedError


class FakeKernel:
    def __init__(self, root, manifest, part, parts, pcap_rate=128.0,
                 module_catalogue=None, hdl_dir=None, engines=False):
        """engines: the regions' DMA and modules as the C emulated engine
        (engine.py), which the data mover drives; else the DMA is the
        simple-mode window of fakekernel/uio.py, modules in this process.
        """
        self.root = os.path.abspath(root)
        self.manifest = manifest
        self.mountpoint = os.path.join(self.root, 'kernel')
        self.firmware_dir = os.path.join(self.root, 'firmware')
        self.nodes_dir = os.path.join(self.root, 'nodes')
        self.control_dir = os.path.join(self.root, 'control')
        for path in (self.mountpoint, self.firmware_dir, self.nodes_dir,
                     self.control_dir, os.path.join(self.root, 'board')):
            os.makedirs(path, exist_ok=True)
        for name in FAULTS:
            open(os.path.join(self.control_dir, name), 'a').close()
        self.engines = None
        if engines:
            self.engines = {
                spec.name: engine.Engine(os.path.join(self.root, 'board'),
                                         index, spec.name)
                for index, spec in enumerate(manifest.regions)}
            for each in self.engines.values():
                each.ensure()
        self.board = emulated.EmulatedBoard(
            manifest, part, os.path.join(self.root, 'board'),
            pcap_rate=pcap_rate, module_catalogue=module_catalogue,
            hdl_dir=hdl_dir, engines=self.engines)
        self.tree = fs.Tree()
        #: the drivers' lock (one configuration port, one fabric); the
        #: tree's own lock only guards its nodes, so reads go on during a
        #: load as on a kernel
        self.lock = threading.RLock()
        boot_id = str(uuid.uuid4())
        self.tree.add('/proc/sys/kernel/random/boot_id',
                      fs.Attribute(show=lambda: boot_id))
        code = (self.board.device.idcode >> 12) & 0x1F
        self.tree.add('/sys/devices/soc0/family',
                      fs.Attribute(show=lambda: 'Xilinx Zynq'))
        self.tree.add('/sys/devices/soc0/soc_id',
                      fs.Attribute(show=lambda: '0x%x' % code))
        for p in parts:
            p.attach(self)

    def fault(self, name, consume=True):
        """The fault switch's content ('' when off); a one-shot switch is
        turned off by reading it.
        """
        path = os.path.join(self.control_dir, name)
        with open(path, 'r+', encoding='utf-8') as f:
            value = f.read().strip()
            if value and consume:
                f.seek(0)
                f.truncate()
        if value:
            LOG.warning('fake kernel: fault %s = %s', name, value)
        return value

    def received(self, data):
        """Keep what the configuration port was given, for inspection."""
        with open(os.path.join(self.root, 'received.bin'), 'wb') as f:
            f.write(data)

    def serve(self):
        """Serve the tree until signalled."""
        LOG.info('fake kernel serving %s', self.mountpoint)
        fs.mount(self.tree, self.mountpoint)


def options(root):
    """The agent's options that point it at a fake kernel under root."""
    kernel = os.path.join(os.path.abspath(root), 'kernel')
    return {('agent', 'sysfs_root'): os.path.join(kernel, 'sys'),
            ('agent', 'configfs_root'): os.path.join(kernel, 'sys', 'kernel',
                                                     'config'),
            ('agent', 'dev_root'): os.path.join(kernel, 'dev'),
            ('agent', 'firmware_dir'): os.path.join(os.path.abspath(root),
                                                    'firmware'),
            ('board', 'boot_id_path'): os.path.join(
                kernel, 'proc', 'sys', 'kernel', 'random', 'boot_id')}
