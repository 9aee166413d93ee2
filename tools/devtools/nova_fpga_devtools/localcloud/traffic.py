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
import struct

from scapy.packet import Raw
from scapy.sendrecv import sendp

from nova_fpga_devtools import captures

ETH_P_8021Q = 0x8100

#: what replay sent: frames, bytes (without the tag), for each capture
#: file whose end cuts a record, what it cut off (the frames before it
#: sent), and the frames left out as longer than max_frame
Replayed = collections.namedtuple('Replayed',
                                  'frames bytes cut_short skipped')


def tagged(frame, vlan):
    return frame[:12] + struct.pack('>HH', ETH_P_8021Q, vlan) + frame[12:]


def send(frames, interface, vlan=None):
    """Send frames out of interface byte for byte (never re-encoded by a
    scapy dissector), tagged with vlan unless it is None.
    """
    sendp([Raw(load=f if vlan is None else tagged(f, vlan))
           for f in frames], iface=interface, verbose=False)


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
                    [c.cut_short for c in read if c.cut_short], skipped)


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
