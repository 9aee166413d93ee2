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
frames, exactly as a switch port in VLAN mode would deliver it.
"""
import struct

from scapy.layers.l2 import Ether
from scapy.sendrecv import sendp
from scapy.utils import rdpcap

ETH_P_8021Q = 0x8100


def read_frames(path):
    """Ethernet frames of a pcap or pcapng capture."""
    return [bytes(packet) for packet in rdpcap(str(path))]


def tagged(frame, vlan):
    return frame[:12] + struct.pack('>HH', ETH_P_8021Q, vlan) + frame[12:]


def replay(paths, interface, vlan):
    """Send every frame of the captures, tagged with vlan, out of
    interface; returns (frames, bytes) sent (bytes without the tag).
    """
    frames = [f for path in paths for f in read_frames(path)]
    sendp([Ether(tagged(f, vlan)) for f in frames], iface=interface,
          verbose=False)
    return len(frames), sum(len(f) for f in frames)
