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

"""The RFC 2544 benchmark's reference: the agent's Python per-frame data path
as it was before the C data mover (issue 31), kept here so the benchmark
survives its removal from the product.

A copy of the per-frame loop of agent/nova_fpga_agent/dataplane.py
(DataPlane._run/_steer: one recvmsg per frame with packet auxdata, the tag
put back, a dict lookup under a lock, counters under a lock, one send per
output frame) and of backends/axidma.py (AxiDma.transfer: simple-mode AXI
DMA, one frame in flight, then polling S2MM for ANSWER_SECONDS after each
answer), as on main at 660e478.  Behind it, the instant-answer stub the
issue measured with: a register file whose MM2S_LENGTH store loops the
frame back into the S2MM half at once (IOC set), so only the agent's own
cost counts.  Run in the board's namespace by benchmarks/rfc2544.py:

    python benchmarks/rfc2544_python_path.py IFACE INGRESS_VLAN EGRESS_VLAN
"""
import collections
import pathlib
import signal
import socket
import struct
import sys
import threading
import time

from nova_fpga_agent.backends import base

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from tests.agent import simple_dma  # noqa: E402

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
PACKET_OUTGOING = 4
TP_STATUS_VLAN_VALID = 0x10
_AUXDATA = struct.Struct('IIIHHHH')
MAX_FRAME = 65536
SO_RCVBUFFORCE = 33
RCVBUF = 8 * 1024 * 1024

#: the old simple-mode AXI DMA driver (backends/axidma.py as it was) is
#: tests/agent/simple_dma.py's, one copy for the tests and this reference
D = simple_dma

Route = collections.namedtuple('Route', 'region egress_vlan')


class InstantDma:
    """The stub: a simple-mode AXI DMA register file answering at once, a
    loopback module behind it.
    """

    def __init__(self, buffer):
        self.regs = dict.fromkeys(range(0, 0x60, 4), 0)
        self.regs[D.MM2S_DMASR] = self.regs[D.S2MM_DMASR] = D.DMASR_IDLE
        self.buffer = buffer

    def read32(self, offset):
        return self.regs[offset]

    def write32(self, offset, value):
        if offset in (D.MM2S_DMASR, D.S2MM_DMASR):
            self.regs[offset] &= ~(value & 0x7000)
            return
        self.regs[offset] = value
        if offset == D.MM2S_LENGTH:
            # loopback: the frame is back in the S2MM half at once
            half = D.HALF
            self.buffer.map[half:half + value] = self.buffer.map[:value]
            self.regs[D.S2MM_LENGTH] = value
            self.regs[D.S2MM_DMASR] |= D.DMASR_IOC
            self.regs[D.MM2S_DMASR] |= D.DMASR_IOC | D.DMASR_IDLE


class Buffer:
    def __init__(self):
        self.map = bytearray(2 * D.HALF)
        self.phys_addr = 0x1F000000


class DataPlane:
    """dataplane.py's DataPlane receive loop and steering as it was."""

    def __init__(self, interface, routes, dma):
        self.interface = interface
        self.dma = dma
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._counters = collections.Counter()
        self.unsteered = 0
        self._routes = routes

    def _count(self, region, add):
        with self._lock:
            for key, value in add.items():
                self._counters[key] += value

    def run(self):
        sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                             socket.htons(ETH_P_ALL))
        sock.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
        try:
            sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RCVBUF)
        except PermissionError:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
        sock.bind((self.interface, 0))
        sock.settimeout(0.2)
        with sock:
            while not self._stop.is_set():
                try:
                    data, ancdata, _, addr = sock.recvmsg(
                        MAX_FRAME, socket.CMSG_SPACE(_AUXDATA.size))
                except (socket.timeout, BlockingIOError):
                    continue
                if addr[2] == PACKET_OUTGOING:
                    continue
                self._steer(sock, _with_vlan_tag(data, ancdata))

    def _steer(self, sock, frame):
        route = None
        if len(frame) >= 18 and frame[12:14] == b'\x81\x00':
            tci = struct.unpack_from('>H', frame, 14)[0]
            with self._lock:
                route = self._routes.get(tci & 0x0FFF)
        if route is None:
            with self._lock:
                self.unsteered += 1
            return
        region, inner = route.region, frame[:12] + frame[16:]
        self._count(region, {'frames_in': 1, 'bytes_in': len(inner)})
        try:
            out = self.dma.transfer(inner)
        except base.RegisterError:
            self._count(region, {'dropped': 1})
            return
        if route.egress_vlan is None:
            self._count(region, {'dropped': len(out)})
            return
        tag = struct.pack('>HH', 0x8100, (tci & 0xF000) | route.egress_vlan)
        for reply in out:
            sock.send(reply[:12] + tag + reply[12:])
            self._count(region, {'frames_out': 1,
                                 'bytes_out': len(reply)})


def _with_vlan_tag(data, ancdata):
    for level, kind, raw in ancdata:
        if level == SOL_PACKET and kind == PACKET_AUXDATA \
                and len(raw) >= _AUXDATA.size:
            status, _, _, _, _, tci, tpid = _AUXDATA.unpack_from(raw)
            if status & TP_STATUS_VLAN_VALID:
                tag = struct.pack('>HH', tpid or 0x8100, tci)
                return data[:12] + tag + data[12:]
    return data


def main():
    interface, vlan, egress = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    buffer = Buffer()
    dma = D.AxiDma('r0', InstantDma(buffer), buffer)
    plane = DataPlane(interface, {vlan: Route('r0', egress)}, dma)
    signal.signal(signal.SIGTERM, lambda *_: plane._stop.set())
    thread = threading.Thread(target=plane.run, daemon=True,
                              name='dataplane')
    thread.start()
    print('ready', flush=True)
    while thread.is_alive() and not plane._stop.is_set():
        time.sleep(0.2)
    thread.join(2)


if __name__ == '__main__':
    main()
