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

"""A region's AXI DMA (simple mode) driven through its UIO window: the
board backends' frame path before the C data mover (issue 31), kept for
the tests that push one frame through a fake kernel's region.

Register map and bits from Xilinx PG021 (AXI DMA v7.1): one frame goes
from the region's u-dma-buf (first half) to the module over MM2S; each
frame the module sends back lands in the buffer's second half over S2MM,
which is re-armed after every frame.
"""
import time

from nova_fpga.contract import devicetree as dt
from nova_fpga_agent.backends import base

MM2S_DMACR = 0x00
MM2S_DMASR = 0x04
MM2S_SA = 0x18
MM2S_SA_MSB = 0x1C
MM2S_LENGTH = 0x28
S2MM_DMACR = 0x30
S2MM_DMASR = 0x34
S2MM_DA = 0x48
S2MM_DA_MSB = 0x4C
S2MM_LENGTH = 0x58

DMACR_RS = 0x1
DMACR_RESET = 0x4
DMASR_HALTED = 0x1
DMASR_IDLE = 0x2
DMASR_ERRORS = 0x70        # DMAIntErr, DMASlvErr, DMADecErr
DMASR_IOC = 0x1000

#: the old driver's layout: a 64 KiB buffer (its overlay's u-dma-buf),
#: first half frames to the module, second half frames from it
HALF = 0x10000 // 2
#: how long a module may take to answer a frame (a board answers in
#: microseconds; MM2S idle means the frame went in whole)
ANSWER_SECONDS = 0.0005
MM2S_SECONDS = 0.1


class AxiDma:
    def __init__(self, region, regs, buffer):
        self.region = region
        self.regs = regs
        self.buffer = buffer

    def _check(self, status_reg, what):
        status = self.regs.read32(status_reg)
        if status & DMASR_ERRORS:
            raise base.RegisterError('AXI DMA of region %s: %s error '
                                     '(DMASR 0x%08X)' % (self.region, what,
                                                         status))
        return status

    def _arm_s2mm(self):
        self.regs.write32(S2MM_DA, self.buffer.phys_addr + HALF)
        self.regs.write32(S2MM_DA_MSB, 0)
        self.regs.write32(S2MM_LENGTH, HALF)

    def start(self):
        for cr in (MM2S_DMACR, S2MM_DMACR):
            self.regs.write32(cr, DMACR_RESET)
        for cr, sr, what in ((MM2S_DMACR, MM2S_DMASR, 'MM2S'),
                             (S2MM_DMACR, S2MM_DMASR, 'S2MM')):
            self.regs.write32(cr, DMACR_RS)
            if self._check(sr, what) & DMASR_HALTED:
                raise base.RegisterError('AXI DMA of region %s: %s does not '
                                         'run' % (self.region, what))
        self._arm_s2mm()

    def stop(self):
        for cr in (MM2S_DMACR, S2MM_DMACR):
            self.regs.write32(cr, 0)

    def running(self):
        return not self.regs.read32(MM2S_DMASR) & DMASR_HALTED

    def transfer(self, frame):
        if len(frame) > HALF:
            raise base.RegisterError('frame of %d bytes exceeds the %d-byte '
                                     'DMA buffer' % (len(frame), HALF))
        if not self.running():
            raise base.RegisterError('AXI DMA of region %s is stopped'
                                     % self.region)
        self.buffer.map[:len(frame)] = frame
        self.regs.write32(MM2S_SA, self.buffer.phys_addr)
        self.regs.write32(MM2S_SA_MSB, 0)
        self.regs.write32(MM2S_LENGTH, len(frame))
        deadline = time.monotonic() + MM2S_SECONDS
        while not self._check(MM2S_DMASR, 'MM2S') & DMASR_IDLE:
            if time.monotonic() > deadline:
                raise base.RegisterError('AXI DMA of region %s: MM2S did '
                                         'not finish' % self.region)
        self.regs.write32(MM2S_DMASR, DMASR_IOC)
        frames = []
        deadline = time.monotonic() + ANSWER_SECONDS
        while time.monotonic() < deadline:
            if self._check(S2MM_DMASR, 'S2MM') & DMASR_IOC:
                length = self.regs.read32(S2MM_LENGTH)
                frames.append(bytes(self.buffer.map[HALF:HALF + length]))
                self.regs.write32(S2MM_DMASR, DMASR_IOC)
                self._arm_s2mm()
                deadline = time.monotonic() + ANSWER_SECONDS
        return frames


def transfer(backend, region, frame):
    """One frame through the region's module: the sim backend's own
    in-process path, or a board backend's fake-kernel DMA window.
    """
    if hasattr(backend, 'transfer'):
        return backend.transfer(region, frame)
    from nova_fpga_agent.backends import uio
    spec = next(r for r in backend.manifest.regions if r.name == region)
    dma = AxiDma(region,
                 uio.open_window(backend.conf, dt.uio_dma(region),
                                 spec.dma_base),
                 uio.DmaBuffer(backend.conf, dt.dma_buffer(region)))
    backend._reachable(region, 'the DMA stream')
    dma.start()
    return dma.transfer(frame)
