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

"""The legacy xdevcfg driver: ``is_partial_bitstream``, ``prog_done`` and
/dev/xdevcfg, which programs what was written when the writer closes it.

Faults (control/fail_state): ``hang`` blocks the writer for the driver's
DMA timeout, then fails it; ``write complete error`` lets the write
succeed with ``prog_done`` still 0 (DONE never rose); any other fails the
write.
"""
import errno
import time

import mfusepy as fuse
from oslo_log import log as logging

from nova_fpga_emulator import board as emulated
from nova_fpga_emulator.fakekernel import fpga_manager
from nova_fpga_emulator.fakekernel import kernel as fk
from nova_fpga_emulator.fakekernel import tree as fs

LOG = logging.getLogger(__name__)

DEVICE = '/sys/class/xdevcfg/xdevcfg/device'
#: seconds the driver waits for the PCAP's DMA
DMA_TIMEOUT = 5


class Xdevcfg(fk.Part):
    def __init__(self):
        self.partial = 0
        self.done = 1           # the shell's full bitstream is loaded

    def attach(self, kernel):
        self.kernel = kernel
        kernel.tree.add(DEVICE + '/is_partial_bitstream', fs.Attribute(
            show=lambda: str(self.partial), store=self._store_partial))
        kernel.tree.add(DEVICE + '/prog_done',
                        fs.Attribute(show=lambda: str(self.done)))
        kernel.tree.add('/dev/xdevcfg', fs.Device(on_close=self._program))

    def _store_partial(self, value):
        if value not in ('0', '1'):
            raise fuse.FuseOSError(errno.EINVAL)
        self.partial = int(value)

    def _program(self, data):
        with self.kernel.lock:
            self.done = 0
            self.kernel.received(data)
            fault = self.kernel.fault('fail_state')
        if fault == fpga_manager.HANG:
            # the driver waits for the PCAP's DMA, then gives up
            LOG.warning('xdevcfg: hangs for %d s', DMA_TIMEOUT)
            time.sleep(DMA_TIMEOUT)
            raise fuse.FuseOSError(errno.ETIMEDOUT)
        if fault == 'write complete error':
            LOG.warning('xdevcfg: injected: DONE does not rise')
            return
        if fault:
            LOG.warning('xdevcfg: injected %s', fault)
            raise fuse.FuseOSError(errno.EIO)
        with self.kernel.lock:
            if len(data) % 4 or not any(
                    data[i:i + 4] == fpga_manager.SWAPPED_SYNC
                    for i in range(0, len(data), 4)):
                LOG.warning('xdevcfg: no byte-swapped sync word')
                raise fuse.FuseOSError(errno.EINVAL)
            if not self.partial:
                LOG.warning('xdevcfg: a full configuration refused')
                raise fuse.FuseOSError(errno.EINVAL)
            try:
                self.kernel.board.pcap_write(data)
            except emulated.PcapError as exc:
                LOG.warning('xdevcfg: %s', exc)
                raise fuse.FuseOSError(errno.EIO)
            self.done = 1
