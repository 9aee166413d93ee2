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

"""Captures as the Ethernet frames a board's data interface would receive.

A board takes Ethernet frames only, but real captures also come from
loopback (BSD NULL/LOOP), tunnel (raw IP) and "any" (Linux cooked SLL/SLL2)
interfaces, and a pcapng file may hold several interfaces of different link
types.  scapy's raw readers read the files (pcap and pcapng, each packet with
its own interface's link type); each packet is then given the Ethernet header
its link layer stands for.  The demo's replay tool, the vTC's cocotb suites
and its accuracy harness read captures through here, so they see the same
frames.
"""
import collections
import struct
import warnings

from scapy.data import MTU
from scapy.error import Scapy_Exception
from scapy.layers.l2 import CookedLinux
from scapy.layers.l2 import CookedLinuxV2
from scapy.utils import RawPcapNgReader
from scapy.utils import RawPcapReader

PCAPNG_MAGIC = b'\x0a\x0d\x0d\x0a'
PCAP_RECORD_HEADER_LEN = 16

# Link types, https://www.tcpdump.org/linktypes.html
LINKTYPE_NULL = 0
LINKTYPE_ETHERNET = 1
LINKTYPE_RAW = 101
LINKTYPE_LOOP = 108
LINKTYPE_LINUX_SLL = 113
LINKTYPE_IPV4 = 228
LINKTYPE_IPV6 = 229
LINKTYPE_LINUX_SLL2 = 276
#: DLT_RAW's platform values (12 on most, 14 on BSD/OS and OpenBSD), which
#: files written with the DLT instead of LINKTYPE_RAW carry; libpcap reads
#: both as raw IP
DLT_RAW_VALUES = (12, 14)

ETHERTYPE_IPV4 = 0x0800
ETHERTYPE_IPV6 = 0x86DD
#: protocol values below this are 802.3 lengths (or SLL's pseudo-protocols
#: such as 802.2 LLC), not ethertypes
ETHERTYPE_MIN = 0x0600
ETHERTYPE_OF_IP_VERSION = {4: ETHERTYPE_IPV4, 6: ETHERTYPE_IPV6}
#: BSD address families: AF_INET everywhere, AF_INET6 on NetBSD/OpenBSD
#: (24), FreeBSD (28) and Darwin (30)
IP_VERSION_OF_FAMILY = {2: 4, 24: 6, 28: 6, 30: 6}
BSD_FAMILY_LEN = 4
#: network byte order: DLT_LOOP's family and SLL's fields
NETWORK_ORDER = '>'

#: the addresses a frame gets where its capture has none: locally
#: administered unicast MACs
DESTINATION_MAC = bytes.fromhex('020000000002')
SOURCE_MAC = bytes.fromhex('020000000001')
MAC_LEN = 6


class CaptureError(ValueError):
    """A capture that cannot be turned into Ethernet frames."""


class CutShortWarning(UserWarning):
    """The capture file ends inside a record (read_frames kept the frames
    before it).
    """


#: frames: the Ethernet frames, in capture order; cut_short: None, or what
#: the file's end cut off (the record it ends inside, not in frames)
Capture = collections.namedtuple('Capture', 'frames cut_short')


class _StopNoting:
    """Where one of scapy's readers stopped: it ends quietly both at the end
    of the file and inside a cut or unreadable record.
    """

    #: byte offset of the record the file ends inside
    cut_at = None
    #: byte offset of a record scapy could not read while the file goes on
    unreadable_at = None

    def _note_stop(self, start):
        if self.f.tell() == start:
            return
        if self.f.read(1):
            self.unreadable_at = start
        else:
            self.cut_at = start


class _PcapRecords(_StopNoting, RawPcapReader):
    """scapy's pcap reader; one link type for the file."""

    def linktype_of(self, metadata):
        return self.linktype

    def _read_packet(self, size=MTU):
        start = self.f.tell()
        try:
            data, metadata = super()._read_packet(size)
        except EOFError:
            self._note_stop(start)
            raise
        if self.f.tell() - start < PCAP_RECORD_HEADER_LEN + metadata.caplen:
            # scapy hands a record cut by the end of the file over as it is
            self.cut_at = start
            raise EOFError
        return data, metadata


class _PcapNgBlocks(_StopNoting, RawPcapNgReader):
    """scapy's pcapng reader; each packet has its interface's link type."""

    def linktype_of(self, metadata):
        return metadata.linktype

    def _read_block(self, size=MTU):
        start = self.f.tell()
        try:
            return super()._read_block(size)
        except EOFError:
            self._note_stop(start)
            raise


def _ethernet(ethertype, packet, source=SOURCE_MAC):
    return DESTINATION_MAC + source + struct.pack('!H', ethertype) + packet


def _ip_frame(version, packet):
    if version not in ETHERTYPE_OF_IP_VERSION:
        raise ValueError('IP version %d, neither 4 nor 6' % version)
    return _ethernet(ETHERTYPE_OF_IP_VERSION[version], packet)


def _from_ethernet(data, byte_order):
    return data


def _from_raw_ip(data, byte_order):
    if not data:
        raise ValueError('an empty raw IP packet has no IP version')
    return _ip_frame(data[0] >> 4, data)


def _from_ipv4(data, byte_order):
    return _ethernet(ETHERTYPE_IPV4, data)


def _from_ipv6(data, byte_order):
    return _ethernet(ETHERTYPE_IPV6, data)


def _from_family(data, byte_order):
    if len(data) < BSD_FAMILY_LEN:
        raise ValueError('%d bytes, shorter than the %d-byte address family'
                         % (len(data), BSD_FAMILY_LEN))
    family, = struct.unpack(byte_order + 'I', data[:BSD_FAMILY_LEN])
    if family not in IP_VERSION_OF_FAMILY:
        raise ValueError('address family %d, neither IPv4 (2) nor IPv6 '
                         '(24, 28, 30)' % family)
    return _ip_frame(IP_VERSION_OF_FAMILY[family], data[BSD_FAMILY_LEN:])


def _from_null(data, byte_order):
    """DLT_NULL: the family in the byte order of the host that captured,
    which is the file's.
    """
    return _from_family(data, byte_order)


def _from_loop(data, byte_order):
    """DLT_LOOP: the family in network byte order (linktypes.html)."""
    return _from_family(data, NETWORK_ORDER)


def _from_cooked(layer, data):
    """SLL/SLL2: the protocol is the ethertype; the address, the sender's."""
    header_len = len(layer())
    if len(data) < header_len:
        raise ValueError('%d bytes, shorter than the %d-byte %s header'
                         % (len(data), header_len, layer.name))
    header = layer(data[:header_len])
    if header.proto < ETHERTYPE_MIN:
        raise ValueError('protocol 0x%04x is not an ethertype' % header.proto)
    source = (header.src[:MAC_LEN] if header.lladdrlen == MAC_LEN
              else SOURCE_MAC)
    return _ethernet(header.proto, data[header_len:], source)


def _from_sll(data, byte_order):
    return _from_cooked(CookedLinux, data)


def _from_sll2(data, byte_order):
    return _from_cooked(CookedLinuxV2, data)


#: link type -> f(packet bytes, the capture's byte order) -> Ethernet frame
TO_ETHERNET = {
    LINKTYPE_ETHERNET: _from_ethernet,
    LINKTYPE_NULL: _from_null,
    LINKTYPE_LOOP: _from_loop,
    LINKTYPE_RAW: _from_raw_ip,
    LINKTYPE_IPV4: _from_ipv4,
    LINKTYPE_IPV6: _from_ipv6,
    LINKTYPE_LINUX_SLL: _from_sll,
    LINKTYPE_LINUX_SLL2: _from_sll2,
}
TO_ETHERNET.update(dict.fromkeys(DLT_RAW_VALUES, _from_raw_ip))
LINKTYPES_READ = tuple(sorted(TO_ETHERNET))


def _open(path, stream):
    magic = stream.read(len(PCAPNG_MAGIC))
    stream.seek(0)
    reader = _PcapNgBlocks if magic == PCAPNG_MAGIC else _PcapRecords
    try:
        return reader(stream)
    except Scapy_Exception as exc:
        raise CaptureError('%s is not a pcap or pcapng capture: %s'
                           % (path, exc))


def _frame(path, number, linktype, data, byte_order):
    convert = TO_ETHERNET.get(linktype)
    if convert is None:
        raise CaptureError(
            '%s: packet %d has link type %d, which the reader cannot turn '
            'into Ethernet (it takes %s)'
            % (path, number, linktype, ', '.join(map(str, LINKTYPES_READ)))
        )
    try:
        return convert(bytes(data), byte_order)
    except ValueError as exc:
        raise CaptureError('%s: packet %d (link type %d): %s'
                           % (path, number, linktype, exc))


def read_capture(path):
    """The Ethernet frames of a pcap or pcapng capture, each as captured (a
    frame cut by the snap length stays cut), and the record the file's end
    cut off, if any.
    """
    with open(path, 'rb') as stream:
        reader = _open(path, stream)
        frames = [
            _frame(path, number, reader.linktype_of(metadata), data,
                   reader.endian)
            for number, (data, metadata) in enumerate(reader, start=1)
        ]
    if reader.unreadable_at is not None:
        raise CaptureError('%s: unreadable record at byte %d, after packet %d'
                           % (path, reader.unreadable_at, len(frames)))
    cut_short = None
    if reader.cut_at is not None:
        cut_short = ('%s: the file ends inside the record at byte %d, after '
                     'packet %d; the %d packets before it are kept'
                     % (path, reader.cut_at, len(frames), len(frames)))
    return Capture(frames, cut_short)


def read_frames(path):
    """read_capture's frames; a record cut off by the file's end is warned
    about (CutShortWarning), never dropped in silence.
    """
    capture = read_capture(path)
    if capture.cut_short:
        warnings.warn(capture.cut_short, CutShortWarning, stacklevel=2)
    return capture.frames
