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

"""The shell's register blocks as UIO devices and its DMA buffers as
u-dma-buf's, answered by the emulated fabric.

Per region, named by the contract (nova_fpga.contract.devicetree): the
module's register window (the module's Verilog answers), the decoupler's
AXI GPIO (decouple bit, decouple status) and the AXI DMA's registers
(simple mode, PG021), whose transfers read and write the region's buffer
file.  /dev/uioN is a Unix socket (see the package's limits).
"""
import os
import socketserver
import struct
import threading

from oslo_log import log as logging

from nova_fpga.contract import devicetree as dt
from nova_fpga_agent.backends import uio as agent_uio
from nova_fpga_emulator import board as emulated
from nova_fpga_emulator.fakekernel import kernel as fk
from nova_fpga_emulator.fakekernel import tree as fs

LOG = logging.getLogger(__name__)


class _Pg021:
    """PG021's simple-mode registers this window answers.

    The board's data path is the C data mover's, in scatter-gather mode.
    """

    MM2S_DMACR = 0x00
    MM2S_DMASR = 0x04
    MM2S_SA = 0x18
    S2MM_DMACR = 0x30
    S2MM_DMASR = 0x34
    S2MM_DA = 0x48
    S2MM_LENGTH = 0x58
    MM2S_LENGTH = 0x28
    DMACR_RS = 0x1
    DMACR_RESET = 0x4
    DMASR_HALTED = 0x1
    DMASR_IDLE = 0x2
    DMASR_IOC = 0x1000


dma = _Pg021

_REQUEST = struct.Struct('<cII')
_ANSWER = struct.Struct('<BI')
SLVERR = 2
#: where the fake kernel says the DMA buffers are
DMA_BUFFER_BASE = 0x1F000000


class _Handler(socketserver.StreamRequestHandler):
    def handle(self):
        window = self.server.window
        while True:
            request = self.rfile.read(_REQUEST.size)
            if len(request) < _REQUEST.size:
                return
            op, offset, value = _REQUEST.unpack(request)
            try:
                with window.kernel.lock:
                    if op == b'r':
                        value = window.read(offset)
                    else:
                        window.write(offset, value)
                        value = 0
                answer = _ANSWER.pack(0, value)
            except emulated.AxiError as exc:
                message = str(exc).encode()
                answer = _ANSWER.pack(SLVERR, len(message)) + message
            self.wfile.write(answer)


class _Window:
    def __init__(self, kernel, region):
        self.kernel = kernel
        self.region = region


class ModuleWindow(_Window):
    def _check(self):
        if self.kernel.fault('bus_error', consume=False) == self.region:
            raise emulated.AxiError('SLVERR: region %s (injected)'
                                    % self.region)

    def read(self, offset):
        self._check()
        return self.kernel.board.axil_read(self.region, offset)

    def write(self, offset, value):
        self._check()
        self.kernel.board.axil_write(self.region, offset, value)


class DecouplerWindow(_Window):
    def read(self, offset):
        decoupled = int(self.kernel.board.decoupled(self.region))
        if offset in (dt.DECOUPLER_CONTROL, dt.DECOUPLER_STATUS):
            return decoupled
        return 0

    def write(self, offset, value):
        if offset != dt.DECOUPLER_CONTROL:
            return
        board = self.kernel.board
        was = board.decoupled(self.region)
        now = bool(value & dt.DECOUPLE)
        board.set_decoupled(self.region, now)
        if was and not now:
            # out of the decoupler's reset: the module starts up
            board.reset(self.region)


class DmaWindow(_Window):
    """AXI DMA in simple mode: registers, and transfers through the
    region's buffer file.
    """

    def __init__(self, kernel, region, buffer_path, phys_addr):
        super().__init__(kernel, region)
        self.buffer_path = buffer_path
        self.phys_addr = phys_addr
        self.regs = {}
        self.answers = []         # frames the module sent, not yet taken
        self.s2mm_armed = False
        self._reset()

    def _reset(self):
        self.regs = {dma.MM2S_DMASR: dma.DMASR_HALTED,
                     dma.S2MM_DMASR: dma.DMASR_HALTED}
        self.answers = []
        self.s2mm_armed = False

    def read(self, offset):
        return self.regs.get(offset, 0)

    def write(self, offset, value):
        board = self.kernel.board
        if offset in (dma.MM2S_DMASR, dma.S2MM_DMASR):
            self.regs[offset] &= ~(value & dma.DMASR_IOC)
            return
        self.regs[offset] = value
        if offset == dma.MM2S_DMACR:
            if value & dma.DMACR_RESET:
                board.dma_stop(self.region)
                self._reset()
            elif value & dma.DMACR_RS:
                try:
                    board.dma_start(self.region)
                    self.regs[dma.MM2S_DMASR] = dma.DMASR_IDLE
                except emulated.AxiError as exc:
                    LOG.warning('AXI DMA of %s: %s', self.region, exc)
                    self.regs[dma.MM2S_DMASR] = dma.DMASR_HALTED | 0x40
            else:
                board.dma_stop(self.region)
                self.regs[dma.MM2S_DMASR] = dma.DMASR_HALTED
        elif offset == dma.S2MM_DMACR:
            self.regs[dma.S2MM_DMASR] = (dma.DMASR_IDLE if value & dma.DMACR_RS
                                         else dma.DMASR_HALTED)
        elif offset == dma.MM2S_LENGTH:
            self._send(value)
        elif offset == dma.S2MM_LENGTH:
            self.s2mm_armed = True
            self.regs[dma.S2MM_DMASR] &= ~dma.DMASR_IDLE
            self._deliver()

    def _send(self, length):
        if self.regs[dma.MM2S_DMASR] & dma.DMASR_HALTED:
            return
        with open(self.buffer_path, 'rb') as f:
            f.seek(self.regs.get(dma.MM2S_SA, 0) - self.phys_addr)
            frame = f.read(length)
        try:
            self.answers += self.kernel.board.dma_transfer(self.region, frame)
            self.regs[dma.MM2S_DMASR] = dma.DMASR_IDLE | dma.DMASR_IOC
        except emulated.AxiError as exc:
            LOG.warning('AXI DMA of %s: %s', self.region, exc)
            self.regs[dma.MM2S_DMASR] = dma.DMASR_HALTED | 0x40
        self._deliver()

    def _deliver(self):
        if not (self.s2mm_armed and self.answers):
            return
        frame = self.answers.pop(0)
        with open(self.buffer_path, 'r+b') as f:
            f.seek(self.regs.get(dma.S2MM_DA, 0) - self.phys_addr)
            f.write(frame)
        self.regs[dma.S2MM_LENGTH] = len(frame)
        self.regs[dma.S2MM_DMASR] = dma.DMASR_IDLE | dma.DMASR_IOC
        self.s2mm_armed = False


class Uio(fk.Part):
    """generic-uio windows and u-dma-buf buffers of every region."""

    def attach(self, kernel):
        self.servers = []
        number = 0
        for index, spec in enumerate(kernel.manifest.regions):
            buf = dt.dma_buffer(spec.name)
            engine = (kernel.engines or {}).get(spec.name)
            if engine is not None:
                # the data mover's path: the region's DMA is the C engine;
                # its register file and buffer are what a board's
                # /dev/uioN map 0 and u-dma-buf are, its interrupt socket
                # /dev/uioN-irq (a board's interrupt is /dev/uioN itself)
                self._buffer(kernel, buf, engine.buf, engine.phys,
                             engine.size)
                if spec.dma_base is not None:
                    node = 'uio%d' % number
                    self._file_window(kernel, node, dt.uio_dma(spec.name),
                                      spec.dma_base, spec.window_size,
                                      engine)
                    number += 1
            else:
                buffer_path = os.path.join(kernel.nodes_dir, buf)
                with open(buffer_path, 'wb') as f:
                    f.truncate(dt.DMA_BUFFER_BYTES)
                phys = DMA_BUFFER_BASE + index * dt.DMA_BUFFER_BYTES
                self._buffer(kernel, buf, buffer_path, phys)
            for name, base, window in (
                    (dt.uio_module(spec.name), spec.module_base,
                     ModuleWindow(kernel, spec.name)),
                    (dt.uio_decoupler(spec.name), spec.decoupler_base,
                     DecouplerWindow(kernel, spec.name)),
                    (dt.uio_dma(spec.name), spec.dma_base,
                     None if engine is not None else
                     DmaWindow(kernel, spec.name, buffer_path, phys))):
                if base is None or window is None:
                    continue
                self._window(kernel, 'uio%d' % number, name, base,
                             spec.window_size, window)
                number += 1

    def _buffer(self, kernel, name, path, phys, size=dt.DMA_BUFFER_BYTES):
        sysfs = '/sys/class/u-dma-buf/' + name
        kernel.tree.add(sysfs + '/phys_addr',
                        fs.Attribute(show=lambda: '0x%016x' % phys))
        kernel.tree.add(sysfs + '/size', fs.Attribute(
            show=lambda: str(size)))
        kernel.tree.add('/dev/' + name, fs.Link(path))

    def _file_window(self, kernel, node, name, base, size, engine):
        sysfs = '/sys/class/uio/' + node
        kernel.tree.add(sysfs + '/name', fs.Attribute(show=lambda: name))
        kernel.tree.add(sysfs + '/maps/map0/addr',
                        fs.Attribute(show=lambda: '0x%08x' % base))
        kernel.tree.add(sysfs + '/maps/map0/size',
                        fs.Attribute(show=lambda: '0x%08x' % size))
        kernel.tree.add('/dev/' + node, fs.Link(engine.regs))
        kernel.tree.add('/dev/%s-irq' % node, fs.Link(engine.irq))

    def _window(self, kernel, node, name, base, size, window):
        sysfs = '/sys/class/uio/' + node
        kernel.tree.add(sysfs + '/name', fs.Attribute(show=lambda: name))
        kernel.tree.add(sysfs + '/maps/map0/addr',
                        fs.Attribute(show=lambda: '0x%08x' % base))
        kernel.tree.add(sysfs + '/maps/map0/size',
                        fs.Attribute(show=lambda: '0x%08x' % size))
        path = os.path.join(kernel.nodes_dir, node)
        if os.path.exists(path):
            os.unlink(path)
        with agent_uio.socket_address(path) as address:
            server = socketserver.ThreadingUnixStreamServer(address, _Handler)
        server.daemon_threads = True
        server.window = window
        threading.Thread(target=server.serve_forever, daemon=True,
                         name=node).start()
        self.servers.append(server)
        kernel.tree.add('/dev/' + node, fs.Link(path))
