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

"""The data plane: frames from the board's data interface, steered by VLAN
to a region, through its AXI DMA channel and module, and back out.

On a board the interface is the PS Ethernet; in the emulator a veth in a
network namespace, so tests and the demo replay real captures into it with
ordinary tools and capture what comes out.  The outer 802.1Q tag selects
the region: the region manager programs, per region holding a module, the
VLAN its frames enter by and the one they leave by (its ports' VLANs, or
its manifest VLAN both ways for a server without ports).  The module sees
the frame without the tag; what it sends goes out tagged with the egress
VLAN (the ingress tag's priority kept).  Frames on a VLAN no region was
given are dropped and counted (``unsteered``): a board never passes a
tenant's frames to a region that was not given their VLAN.

Privileges stay in the agent's own process, not in its privsep daemon:
privsep returns values, never file descriptors, and the packet socket is
one (CAP_NET_RAW, which the systemd unit grants); entering a network
namespace moves the calling thread itself (setns, CAP_SYS_ADMIN: the
emulator's case, run as root).  A larger receive buffer than rmem_max
needs CAP_NET_ADMIN; without it the socket keeps the allowed size.
"""
import collections
import ctypes
import os
import socket
import struct
import threading

from oslo_log import log as logging

from nova_fpga.contract import reports
from nova_fpga_agent.backends import base

LOG = logging.getLogger(__name__)

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
PACKET_OUTGOING = 4
TP_STATUS_VLAN_VALID = 0x10
CLONE_NEWNET = 0x40000000
_AUXDATA = struct.Struct('IIIHHHH')
MAX_FRAME = 65536
SO_RCVBUFFORCE = 33
RCVBUF = 8 * 1024 * 1024


def _enter_netns(name):
    """Move the calling thread into a named network namespace."""
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(os.path.join('/var/run/netns', name), os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, 'setns(%s): %s' % (name, os.strerror(err)))
    finally:
        os.close(fd)


#: Where frames of one ingress VLAN go: a region, and the VLAN its output
#: leaves by (None: its egress port is gone, the output is dropped).
Route = collections.namedtuple('Route', 'region egress_vlan')


class DataPlane:
    def __init__(self, manifest, backend, interface, netns=None):
        self.manifest = manifest
        self.backend = backend
        self.interface = interface
        self.netns = netns
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._error = None
        self._lock = threading.Lock()
        self._counters = {r.name: dict.fromkeys(reports.DATAPLANE_COUNTERS,
                                                0)
                          for r in manifest.regions}
        #: frames on a VLAN no region was given (or untagged): dropped
        self.unsteered = 0
        #: ingress VLAN -> Route; nothing is steered until programmed
        self._routes = {}
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name='dataplane')

    def start(self):
        self._thread.start()
        self._ready.wait(10)
        if self._error:
            raise self._error

    def stop(self):
        self._stop.set()
        self._thread.join(5)

    def program(self, routes):
        """Steer by these routes ({ingress VLAN: Route}) from now on."""
        routes = dict(routes)
        with self._lock:
            changed, self._routes = routes != self._routes, routes
        if changed:
            LOG.info('data plane VLANs: %s', ', '.join(
                '%d->%s' % (vlan, route)
                for vlan, route in sorted(routes.items())) or 'none')

    def routes(self):
        with self._lock:
            return dict(self._routes)

    def counters(self, region):
        with self._lock:
            return dict(self._counters[region])

    def reset(self, region):
        """Start the region's counters again at zero.

        A load does it, so a server sees the traffic since its own load
        and never an earlier holder's.  A reset rather than a baseline:
        nothing reads a region's board-wide totals, and a baseline would
        be one more per-load number to keep in step with the counters.
        """
        with self._lock:
            self._counters[region] = dict.fromkeys(
                reports.DATAPLANE_COUNTERS, 0)

    def _count(self, region, add):
        with self._lock:
            for key, value in add.items():
                self._counters[region][key] += value

    def _open(self):
        if self.netns:
            _enter_netns(self.netns)
        sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                             socket.htons(ETH_P_ALL))
        sock.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
        # A burst must wait in the socket, not be dropped by the kernel,
        # while the module takes its cycles.
        try:
            sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RCVBUF)
        except PermissionError:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
        sock.bind((self.interface, 0))
        sock.settimeout(0.2)
        return sock

    def _run(self):
        try:
            sock = self._open()
        except OSError as exc:
            self._error = exc
            self._ready.set()
            return
        LOG.info('data plane on %s%s', self.interface,
                 ' (netns %s)' % self.netns if self.netns else '')
        self._ready.set()
        with sock:
            while not self._stop.is_set():
                try:
                    data, ancdata, _, addr = sock.recvmsg(
                        MAX_FRAME, socket.CMSG_SPACE(_AUXDATA.size))
                except (socket.timeout, BlockingIOError):
                    # poll said readable, the frame was gone by recv (EAGAIN)
                    continue
                if addr[2] == PACKET_OUTGOING:
                    continue  # our own transmissions
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
        self._count(region, {reports.FRAMES_IN: 1,
                             reports.BYTES_IN: len(inner)})
        try:
            out = self.backend.transfer(region, inner)
        except base.RegisterError as exc:
            self._count(region, {reports.DROPPED: 1})
            LOG.debug('region %s dropped a frame: %s', region, exc)
            return
        if route.egress_vlan is None:
            self._count(region, {reports.DROPPED: len(out)})
            return
        tag = struct.pack('>HH', 0x8100, (tci & 0xF000) | route.egress_vlan)
        for reply in out:
            sock.send(reply[:12] + tag + reply[12:])
            self._count(region, {reports.FRAMES_OUT: 1,
                                 reports.BYTES_OUT: len(reply)})


def _with_vlan_tag(data, ancdata):
    """Put back the 802.1Q tag the kernel moved into packet auxdata."""
    for level, kind, raw in ancdata:
        if level == SOL_PACKET and kind == PACKET_AUXDATA \
                and len(raw) >= _AUXDATA.size:
            status, _, _, _, _, tci, tpid = _AUXDATA.unpack_from(raw)
            if status & TP_STATUS_VLAN_VALID:
                tag = struct.pack('>HH', tpid or 0x8100, tci)
                return data[:12] + tag + data[12:]
    return data
