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

"""Real traffic into an emulated board's data interface.

The board's data plane steers a frame to a region by its outer 802.1Q tag
(the region's VLAN in the shell manifest) and gives the module the frame
without it; so a capture is replayed with that tag in front of each of its
frames, exactly as a switch port in VLAN mode would deliver it.  Captures
are read as the Ethernet frames a board receives (nova_fpga_devtools.captures:
loopback, raw IP and cooked captures included).
"""
import argparse
import collections
import socket
import struct
import threading
import time

from scapy.packet import Raw
from scapy.sendrecv import sendp

from nova_fpga_devtools import captures

ETH_P_8021Q = 0x8100
ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
PACKET_OUTGOING = 4
TP_STATUS_VLAN_VALID = 0x10
SO_RCVBUFFORCE = 33
RCVBUF = 8 * 1024 * 1024
_AUXDATA = struct.Struct('IIIHHHH')

#: what replay sent: frames, bytes (without the tag), for each capture
#: file whose end cuts a record, what it cut off (the frames before it
#: sent), the frames left out as longer than max_frame, and the DSCPs of
#: the frames sent (dscp_counts)
Replayed = collections.namedtuple('Replayed',
                                  'frames bytes cut_short skipped dscps')


def tagged(frame, vlan):
    return frame[:12] + struct.pack('>HH', ETH_P_8021Q, vlan) + frame[12:]


def send(frames, interface, vlan=None):
    """Send frames out of interface byte for byte (never re-encoded by a
    scapy dissector), tagged with vlan unless it is None.
    """
    sendp([Raw(load=f if vlan is None else tagged(f, vlan))
           for f in frames], iface=interface, verbose=False)


def with_vlan_tag(data, ancdata):
    """Put back the 802.1Q tag the kernel moved into packet auxdata."""
    for level, kind, raw in ancdata:
        if level == SOL_PACKET and kind == PACKET_AUXDATA \
                and len(raw) >= _AUXDATA.size:
            status, _, _, _, _, tci, tpid = _AUXDATA.unpack_from(raw)
            if status & TP_STATUS_VLAN_VALID:
                tag = struct.pack('>HH', tpid or ETH_P_8021Q, tci)
                return data[:12] + tag + data[12:]
    return data


class Capture:
    """Frames arriving on an interface (not sent from it) with a given
    outer VLAN, tag included, collected by a thread of its own from the
    moment it is made.
    """

    def __init__(self, interface, vlan):
        self.vlan = vlan
        self.frames = []
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                  socket.htons(ETH_P_ALL))
        self.sock.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
        self.sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE,
                             RCVBUF)
        self.sock.bind((interface, 0))
        self.sock.settimeout(0.2)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop.is_set():
            try:
                data, anc, _, addr = self.sock.recvmsg(65536, 1024)
            except (socket.timeout, BlockingIOError):
                continue
            if addr[2] == PACKET_OUTGOING:
                continue
            frame = with_vlan_tag(data, anc)
            if (
                frame[12:14] == b'\x81\x00'
                and struct.unpack_from('>H', frame, 14)[0] & 0xFFF == self.vlan
            ):
                self.frames.append(frame)

    def wait_for(self, count, timeout=60):
        """The frames, once count have come or timeout seconds passed;
        the capture stops.
        """
        deadline = time.monotonic() + timeout
        while len(self.frames) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        self.stop.set()
        self.thread.join()
        self.sock.close()
        return self.frames


def dscp(frame):
    """The DSCP of an Ethernet frame's IPv4 or IPv6 header (after its
    802.1Q and 802.1ad tags), or None: not IP.
    """
    at = 12
    while frame[at:at + 2] in (b'\x81\x00', b'\x88\xa8'):
        at += 4
    ethertype, at = frame[at:at + 2], at + 2
    if len(frame) < at + 2:
        return None
    if ethertype == b'\x08\x00':
        return frame[at + 1] >> 2
    if ethertype == b'\x86\xdd':
        return ((frame[at] & 0x0F) << 4 | frame[at + 1] >> 4) >> 2
    return None


def dscp_counts(frames):
    """{DSCP (None: not IP): frames}."""
    return dict(collections.Counter(dscp(frame) for frame in frames))


def dscp_text(counts):
    """'DSCP 0 × 20, 18 × 44, not IP × 1', lowest first."""
    parts = ['%d \u00d7 %d' % (value, counts[value])
             for value in sorted(v for v in counts if v is not None)]
    if None in counts:
        parts.append('not IP \u00d7 %d' % counts[None])
    return 'DSCP ' + ', '.join(parts) if parts else 'none'


BROADCAST = b'\xff' * 6


def replay(paths, interface, vlan, broadcast=False, max_frame=None):
    """Send every frame of the captures, tagged with vlan (None: as they
    are), out of interface; broadcast: to the Ethernet broadcast address
    (into a learning switch's access port: a capture holds both ends of its
    flows, so the switch would keep frames to its addresses at the source's
    own port); max_frame: frames longer (header included, tag not) are
    left out (a network's MTU, which no port on it would carry them over).
    """
    read = [captures.read_capture(path) for path in paths]
    frames = [frame for capture in read for frame in capture.frames]
    skipped = 0
    if max_frame is not None:
        kept = [frame for frame in frames if len(frame) <= max_frame]
        skipped, frames = len(frames) - len(kept), kept
    if broadcast:
        frames = [BROADCAST + frame[6:] for frame in frames]
    send(frames, interface, vlan)
    return Replayed(len(frames), sum(len(f) for f in frames),
                    [c.cut_short for c in read if c.cut_short], skipped,
                    dscp_counts(frames))


def main(argv=None):
    """python -m nova_fpga_devtools.localcloud.traffic INTERFACE CAPTURE...:
    the captures out of an interface of this namespace (the demo scenario
    runs it in a switch port's namespace on a --vm-host cloud).
    """
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument('interface')
    parser.add_argument('captures', nargs='+')
    parser.add_argument('--vlan', type=int, default=None)
    parser.add_argument('--broadcast', action='store_true')
    parser.add_argument('--max-frame', type=int, default=None,
                        help='leave out frames longer than this (bytes, '
                             'Ethernet header included)')
    args = parser.parse_args(argv)
    replayed = replay(args.captures, args.interface, args.vlan,
                      args.broadcast, args.max_frame)
    for cut_short in replayed.cut_short:
        print(cut_short)
    if replayed.skipped:
        print('left out %d frame(s) longer than %d bytes' % (
            replayed.skipped, args.max_frame))
    print('sent %d frames (%d bytes) of %d capture(s) out of %s' % (
        replayed.frames, replayed.bytes, len(args.captures), args.interface))
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
