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

"""The captures the vTC is tested with: the reader that turns pcap and pcapng
packets of any link type it takes into Ethernet frames (on files built for
each case, and on the real captures of both nDPI folders), and the first
folder's IPv6 and QinQ variants.
"""
import ipaddress
import re
import shutil
import struct
import subprocess
import sys

import dpkt
from nova_fpga_devtools import captures
from nova_fpga_devtools.localcloud import traffic
import pytest
from scapy.layers.inet import ICMP
from scapy.layers.inet import IP
from scapy.layers.inet import TCP
from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import ARP
from scapy.layers.l2 import CookedLinux
from scapy.layers.l2 import CookedLinuxV2
from scapy.layers.l2 import Dot1AD
from scapy.layers.l2 import Dot1Q
from scapy.layers.l2 import Ether
from scapy.layers.ppp import PPP
from scapy.layers.ppp import PPPoE
from scapy.utils import PcapNgWriter
from scapy.utils import RawPcapNgReader
from scapy.utils import RawPcapReader
from scapy.utils import RawPcapWriter

from tests.conftest import realdata_path
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / 'hdl' / 'tests'))
# hdl/tests is the cocotb suites' directory, not a package
import vtc_captures  # noqa: E402

pytestmark = pytest.mark.hdl

CAPTURES = vtc_captures.NDPI_CAPTURES
#: (folder, capture) of both folders
ALL_CAPTURES = [(folder, name)
                for folder, names in vtc_captures.NDPI_FOLDERS.items()
                for name in names]
TCP_PROTO, UDP_PROTO = 6, 17
ETHERNET_HEADER_LEN = 14
ETHERTYPE_IPV4, ETHERTYPE_IPV6 = 0x0800, 0x86DD
#: what the reader puts in front of a packet that had no Ethernet header
ETHER_IPV4 = (captures.DESTINATION_MAC + captures.SOURCE_MAC
              + struct.pack('!H', ETHERTYPE_IPV4))
ETHER_IPV6 = ETHER_IPV4[:12] + struct.pack('!H', ETHERTYPE_IPV6)
IPV4_PACKET = bytes(IP(src='192.0.2.1', dst='192.0.2.2') / UDP(dport=53)
                    / b'four')
IPV6_PACKET = bytes(IPv6(src='2001:db8::1', dst='2001:db8::2')
                    / UDP(dport=53) / b'six')
ETHERNET_FRAME = bytes(Ether(src='02:00:00:00:00:0a', dst='02:00:00:00:00:0b')
                       / IPV4_PACKET)


def capture(name, folder='ndpi'):
    return realdata_path('pcaps', folder, name)


def write_pcap(path, linktype, packets, endianness='<'):
    """A pcap file of raw packet bytes with the link type given.

    scapy's writer takes link type 0 (BSD NULL) for "none given": its field
    in the file header (bytes 20-23) is then set here.
    """
    with RawPcapWriter(str(path), linktype=linktype,
                       endianness=endianness) as writer:
        writer.write_header(None)
        for packet in packets:
            writer.write_packet(packet, sec=0, usec=0)
    data = bytearray(path.read_bytes())
    data[20:24] = struct.pack(endianness + 'I', linktype)
    path.write_bytes(bytes(data))
    return path


def read_one(path):
    (frame,) = captures.read_capture(path).frames
    return frame


def tool_path(name):
    path = shutil.which(name)
    assert path, '%s is missing: install it (bindep.txt)' % name
    return path


def tcpdump_count(path):
    result = subprocess.run(
        [tool_path('tcpdump'), '-n', '-q', '-r', str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    return len(result.stdout.splitlines())


def ones_complement_sum(data):
    if len(data) % 2:
        data += b'\0'
    total = sum(struct.unpack('!%dH' % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def ipv6_transport_checksum_ok(ipv6_bytes):
    """RFC 8200 section 8.1, computed here from the bytes (not by scapy, which
    built them).
    """
    payload_len = struct.unpack('!H', ipv6_bytes[4:6])[0]
    next_header = ipv6_bytes[6]
    segment = ipv6_bytes[40:40 + payload_len]
    pseudo = ipv6_bytes[8:40] + struct.pack(
        '!IxxxB', len(segment), next_header
    )
    return ones_complement_sum(pseudo + segment) == 0xFFFF


def five_tuples(frames):
    """(ip version, proto, src, sport, dst, dport) of every TCP/UDP frame, as
    scapy reads it.
    """
    tuples = []
    for frame in frames:
        packet = Ether(frame)
        for layer in (IP, IPv6):
            ip = packet.getlayer(layer)
            if ip is not None and isinstance(ip.payload, (TCP, UDP)):
                proto = TCP_PROTO if isinstance(ip.payload, TCP) else UDP_PROTO
                tuples.append((4 if layer is IP else 6, proto,
                               ipaddress.ip_address(ip.src), ip.payload.sport,
                               ipaddress.ip_address(ip.dst), ip.payload.dport))
    return tuples


def encapsulation(packet):
    """The VLAN tags and PPPoE/PPP layers between Ethernet and IP, outermost
    first.
    """
    layers = []
    layer = packet.payload
    while isinstance(layer, (Dot1Q, PPPoE, PPP)):
        layers.append((type(layer).__name__, getattr(layer, 'vlan', None)))
        layer = layer.payload
    return layers


def test_the_captures_of_both_folders_are_found():
    for folder, names in (('ndpi', CAPTURES),
                          ('ndpi-more', vtc_captures.NDPI_MORE_CAPTURES)):
        paths = vtc_captures.ndpi_capture_paths(folder)
        assert [p.name for p in paths] == list(names)
        assert all(p == capture(p.name, folder) for p in paths)
    assert vtc_captures.ndpi_capture_paths() == \
        vtc_captures.ndpi_capture_paths('ndpi')
    for folder in (vtc_captures.TUNING_FOLDER, vtc_captures.HELD_OUT_FOLDER):
        paths = vtc_captures.ndpi_capture_paths(folder)
        assert paths and all(p.is_file() and vtc_captures.ndpi_result_path(
            p).is_file() for p in paths)
    assert len(ALL_CAPTURES) == 371


@pytest.mark.parametrize('name', CAPTURES)
def test_frame_count_and_bytes_agree_with_tcpdump_and_scapy(name):
    """pcap and pcapng (dns.pcap and ssh.pcap are pcapng) read like tcpdump and
    scapy read them.
    """
    path = capture(name)
    frames = vtc_captures.read_frames(path)
    assert frames, name
    assert len(frames) == tcpdump_count(path)
    assert frames == [bytes(data) for data, _ in RawPcapReader(str(path))]


@pytest.mark.parametrize('folder,name', ALL_CAPTURES)
def test_every_packet_of_the_real_captures_is_read(folder, name):
    """As many frames as tcpdump reads packets, none cut short, each an
    Ethernet frame (as captured where the capture is Ethernet).
    """
    path = capture(name, folder)
    read = captures.read_capture(path)
    assert read.cut_short is None
    assert len(read.frames) == tcpdump_count(path)
    if ethernet_only(path):
        records = [bytes(data) for data, _ in RawPcapReader(str(path))]
        assert read.frames == records
    else:
        # each frame an Ethernet header in front of what was captured
        assert all(Ether(frame).type in (ETHERTYPE_IPV4, ETHERTYPE_IPV6,
                                         0x8100, 0x88A8, 0x0806)
                   or len(frame) < ETHERNET_HEADER_LEN
                   for frame in read.frames)


def ethernet_only(path):
    """Every packet of the capture has link type Ethernet."""
    with open(path, 'rb') as stream:
        reader = captures._open(path, stream)
        return all(reader.linktype_of(metadata) == captures.LINKTYPE_ETHERNET
                   for _, metadata in reader)


def test_bsd_null_capture_becomes_ethernet():
    """openvpn-tlscrypt.pcap: BSD loopback, address family 30 (Darwin's
    AF_INET6) little-endian; each frame is the packet behind an IPv6
    Ethernet header.
    """
    path = capture('openvpn-tlscrypt.pcap', 'ndpi-more')
    records = [bytes(data) for data, _ in RawPcapReader(str(path))]
    assert {record[:4] for record in records} == {struct.pack('<I', 30)}
    frames = captures.read_frames(path)
    assert frames == [ETHER_IPV6 + record[4:] for record in records]
    assert all(Ether(frame)[IPv6].src == '::1' for frame in frames)


def test_linux_cooked_capture_becomes_ethernet():
    """quic-v2.pcapng: Linux SLL on "any"; the protocol (IPv6) is the
    ethertype and the sender's 6-byte address (all zeros on lo) the source.
    """
    path = capture('quic-v2.pcapng', 'ndpi-more')
    records = [bytes(data) for data, _ in RawPcapReader(str(path))]
    frames = captures.read_frames(path)
    assert len(frames) == len(records) == 19
    for record, frame in zip(records, frames):
        sll = CookedLinux(record)
        assert frame == (captures.DESTINATION_MAC + sll.src[:6]
                         + struct.pack('!H', sll.proto) + record[16:])
        assert Ether(frame).haslayer(UDP) and sll.proto == ETHERTYPE_IPV6


def test_two_interface_capture_is_read_whole():
    """stun_dtls_rtp.pcapng describes two interfaces (dpkt's pcapng reader
    knows only the first).
    """
    path = capture('stun_dtls_rtp.pcapng', 'ndpi-more')
    reader = RawPcapNgReader(str(path))
    list(reader)
    assert len(reader.interfaces) == 2
    assert len(captures.read_frames(path)) == tcpdump_count(path) == 102


def test_pcapng_interfaces_of_different_link_types(tmp_path):
    """Each packet is read by its own interface's link type."""
    ethernet = Ether(ETHERNET_FRAME)
    ethernet.sniffed_on = 'eth0'
    cooked = CookedLinux(pkttype=4, lladdrlen=6,
                         src=bytes.fromhex('020000000c0c0000'),
                         proto=ETHERTYPE_IPV4) / IP(IPV4_PACKET)
    cooked.sniffed_on = 'any'
    path = tmp_path / 'two.pcapng'
    with PcapNgWriter(str(path)) as writer:
        for packet in (ethernet, cooked, ethernet):
            writer.write(packet)
    assert captures.read_frames(path) == [
        ETHERNET_FRAME,
        captures.DESTINATION_MAC + bytes.fromhex('020000000c0c')
        + struct.pack('!H', ETHERTYPE_IPV4) + IPV4_PACKET,
        ETHERNET_FRAME,
    ]


@pytest.mark.parametrize('linktype', [101, 12, 14])
def test_raw_ip_takes_the_ethertype_from_the_ip_version(tmp_path, linktype):
    path = write_pcap(tmp_path / 'raw.pcap', linktype,
                      [IPV4_PACKET, IPV6_PACKET])
    assert captures.read_frames(path) == [ETHER_IPV4 + IPV4_PACKET,
                                          ETHER_IPV6 + IPV6_PACKET]


def test_ipv4_and_ipv6_link_types(tmp_path):
    assert read_one(write_pcap(tmp_path / 'v4.pcap', 228, [IPV4_PACKET])) \
        == ETHER_IPV4 + IPV4_PACKET
    assert read_one(write_pcap(tmp_path / 'v6.pcap', 229, [IPV6_PACKET])) \
        == ETHER_IPV6 + IPV6_PACKET


@pytest.mark.parametrize('endianness', ['<', '>'])
def test_bsd_null_family_is_in_the_capture_byte_order(tmp_path, endianness):
    packets = [struct.pack(endianness + 'I', family) + packet
               for family, packet in ((2, IPV4_PACKET), (24, IPV6_PACKET),
                                      (28, IPV6_PACKET), (30, IPV6_PACKET))]
    path = write_pcap(tmp_path / 'null.pcap', 0, packets, endianness)
    assert captures.read_frames(path) == [ETHER_IPV4 + IPV4_PACKET] + [
        ETHER_IPV6 + IPV6_PACKET] * 3


def test_bsd_loop_family_is_in_network_byte_order(tmp_path):
    path = write_pcap(tmp_path / 'loop.pcap', 108,
                      [struct.pack('>I', 24) + IPV6_PACKET], endianness='<')
    assert read_one(path) == ETHER_IPV6 + IPV6_PACKET


def test_sll_without_a_6_byte_address_gets_the_fixed_source(tmp_path):
    sll = bytes(CookedLinux(lladdrtype=772, lladdrlen=0,
                            proto=ETHERTYPE_IPV6)) + IPV6_PACKET
    assert read_one(write_pcap(tmp_path / 'sll.pcap', 113, [sll])) \
        == ETHER_IPV6 + IPV6_PACKET


def test_sll2_becomes_ethernet(tmp_path):
    sll2 = bytes(CookedLinuxV2(proto=ETHERTYPE_IPV4, ifindex=3, lladdrlen=6,
                               src=bytes.fromhex('0200000000dd0000')))
    assert len(sll2) == 20
    frame = read_one(write_pcap(tmp_path / 'sll2.pcap', 276,
                                [sll2 + IPV4_PACKET]))
    assert frame == (captures.DESTINATION_MAC + bytes.fromhex('0200000000dd')
                     + struct.pack('!H', ETHERTYPE_IPV4) + IPV4_PACKET)


#: a packet each link type takes, to put before the one it does not
GOOD_PACKET = {
    0: struct.pack('<I', 2) + IPV4_PACKET,
    101: IPV4_PACKET,
    105: ETHERNET_FRAME,
    113: bytes(CookedLinux()) + IPV4_PACKET,
}


@pytest.mark.parametrize('linktype,packet,why', [
    (105, ETHERNET_FRAME, 'packet 1 has link type 105'),
    (0, struct.pack('<I', 7) + IPV4_PACKET, 'packet 2 .*address family 7'),
    (0, b'\x02', 'packet 2 .*1 bytes, shorter than the 4-byte'),
    (101, b'', 'packet 2 .*empty raw IP'),
    (101, b'\x50' + IPV4_PACKET[1:], 'packet 2 .*IP version 5'),
    (113, bytes(CookedLinux(proto=4)), 'packet 2 .*0x0004 is not an ether'),
    (113, b'\x00' * 15, 'packet 2 .*15 bytes, shorter than the 16-byte'),
])
def test_a_packet_that_cannot_be_ethernet_is_a_clear_error(
        tmp_path, linktype, packet, why):
    """Naming the file, the packet and why (link type, family, length)."""
    path = write_pcap(tmp_path / 'bad.pcap', linktype,
                      [GOOD_PACKET[linktype], packet])
    with pytest.raises(captures.CaptureError, match='bad.pcap: ' + why):
        captures.read_capture(path)


def test_runts_of_an_ethernet_capture_are_read_as_captured(tmp_path):
    path = write_pcap(tmp_path / 'runts.pcap', 1,
                      [b'', b'\x00', ETHERNET_FRAME[:13], ETHERNET_FRAME])
    assert captures.read_frames(path) == [b'', b'\x00', ETHERNET_FRAME[:13],
                                          ETHERNET_FRAME]


def test_a_packet_captured_short_of_its_wire_length_is_kept(tmp_path):
    path = tmp_path / 'snapped.pcap'
    with RawPcapWriter(str(path), linktype=1, snaplen=40) as writer:
        writer.write_header(None)
        writer.write_packet(ETHERNET_FRAME[:40], sec=0, usec=0,
                            wirelen=len(ETHERNET_FRAME))
    read = captures.read_capture(path)
    assert read == captures.Capture([ETHERNET_FRAME[:40]], None)


@pytest.mark.parametrize('cut', [1, 10, 16, 20])
def test_a_pcap_cut_inside_its_last_record_is_reported(tmp_path, cut):
    """Inside the record header (1, 10 bytes) or its data (16, 20): the
    frames before it are kept, the cut record reported, not dropped in
    silence.
    """
    whole = write_pcap(tmp_path / 'whole.pcap', 1,
                       [ETHERNET_FRAME, ETHERNET_FRAME[:30]])
    cut_path = tmp_path / 'cut.pcap'
    data = whole.read_bytes()
    last_record = len(data) - 16 - 30
    cut_path.write_bytes(data[:last_record + cut])
    read = captures.read_capture(cut_path)
    assert read.frames == [ETHERNET_FRAME]
    assert read.cut_short == (
        '%s: the file ends inside the record at byte %d, after packet 1; '
        'the 1 packets before it are kept' % (cut_path, last_record))
    with pytest.warns(captures.CutShortWarning, match='after packet 1'):
        assert captures.read_frames(cut_path) == [ETHERNET_FRAME]
    assert captures.read_capture(whole).cut_short is None


def test_a_pcapng_cut_inside_its_last_block_is_reported(tmp_path):
    path = tmp_path / 'whole.pcapng'
    with PcapNgWriter(str(path)) as writer:
        for _ in range(3):
            writer.write(Ether(ETHERNET_FRAME))
    data = path.read_bytes()
    # the last block, an enhanced packet block: its length is in its second
    # word and again at its end
    last_len = struct.unpack('<I', data[-4:])[0]
    cut = tmp_path / 'cut.pcapng'
    cut.write_bytes(data[:-5])
    read = captures.read_capture(cut)
    assert read.frames == [ETHERNET_FRAME] * 2
    assert 'ends inside the record at byte %d, after packet 2' % (
        len(data) - last_len) in read.cut_short
    assert captures.read_capture(path).cut_short is None


def test_a_file_that_is_no_capture_is_refused(tmp_path):
    garbage = tmp_path / 'garbage.pcap'
    garbage.write_bytes(b'not a capture at all')
    with pytest.raises(captures.CaptureError, match='not a pcap'):
        captures.read_capture(garbage)


def test_the_demo_replays_frames_as_read_and_reports_a_cut_file(
        tmp_path, monkeypatch):
    """nova-fpga-demo replay sends what the reader reads (a loopback capture
    as Ethernet), tagged, byte for byte, and says which file was cut.
    """
    null = write_pcap(tmp_path / 'null.pcap', 0,
                      [struct.pack('<I', 2) + IPV4_PACKET] * 2)
    null.write_bytes(null.read_bytes()[:-3])
    sent = []
    monkeypatch.setattr(traffic, 'sendp',
                        lambda packets, **kwargs: sent.extend(packets))
    replayed = traffic.replay([null], 'peer0', 11)
    frame = ETHER_IPV4 + IPV4_PACKET
    assert [bytes(packet) for packet in sent] == [traffic.tagged(frame, 11)]
    assert replayed.frames == 1 and replayed.bytes == len(frame)
    (cut_short,) = replayed.cut_short
    assert cut_short.startswith('%s: the file ends inside' % null)


def test_a_replay_leaves_out_frames_over_max_frame(tmp_path, monkeypatch):
    """The scenario's replay into a tenant network's access port (max
    frame: its MTU and the Ethernet header) sends the frames that fit,
    broadcast, untagged, and counts those left out.
    """
    short = struct.pack('<I', 2) + IPV4_PACKET
    long = struct.pack('<I', 2) + IPV4_PACKET + b'\0' * 100
    path = write_pcap(tmp_path / 'mixed.pcap', 0, [short, long, short])
    sent = []
    monkeypatch.setattr(traffic, 'sendp',
                        lambda packets, **kwargs: sent.extend(packets))
    frame = ETHER_IPV4 + IPV4_PACKET
    replayed = traffic.replay([path], 'peer0', None, broadcast=True,
                              max_frame=len(frame))
    assert replayed.frames == 2 and replayed.skipped == 1
    assert [bytes(p) for p in sent] == [b'\xff' * 6 + frame[6:]] * 2
    assert traffic.replay([path], 'peer0', None).skipped == 0


def test_the_suites_read_through_the_capture_reader():
    assert vtc_captures.read_frames is captures.read_frames
    assert vtc_captures.CaptureError is captures.CaptureError


def test_ipv4_addresses_map_into_the_documentation_prefix():
    assert vtc_captures.ipv6_address('192.168.1.3') == ipaddress.IPv6Address(
        '2001:db8::c0a8:103'
    )
    assert vtc_captures.ipv6_address('0.0.0.1') != vtc_captures.ipv6_address(
        '0.0.0.2'
    )


@pytest.mark.parametrize('name', CAPTURES)
def test_ipv6_variant_is_valid_ipv6_with_the_same_flows_and_payloads(name):
    """On the first folder, every frame of which is IPv4 TCP/UDP, so every
    frame is rewritten and checked.  The variants' tests stay there: in
    pcaps/ndpi-more, IPv6, ESP, GTP-U-carried and fragmented frames are left
    as they are, so there is nothing more to check; the accuracy test
    classifies the variants of both folders.
    """
    frames = vtc_captures.read_frames(capture(name))
    variant = vtc_captures.ipv6_variant(frames)
    assert len(variant) == len(frames)
    for index, (original, rewritten) in enumerate(zip(frames, variant)):
        before, after = Ether(original), Ether(rewritten)
        ip = before.getlayer(IP)
        assert ip is not None and isinstance(ip.payload, (TCP, UDP)), \
            'every frame of the shared captures is IPv4 TCP/UDP'
        assert before.getlayer(IPv6) is None and after.getlayer(IP) is None
        ipv6 = after[IPv6]
        where = '%s frame %d' % (name, index)
        # VLAN tags and PPPoE stay where they were, pointing at IPv6 now
        assert encapsulation(after) == encapsulation(before), where
        below = ipv6.underlayer
        assert (
            (below.proto == 0x0057)
            if isinstance(below, PPP)
            else (below.type == 0x86DD)
        )
        if after.haslayer(PPPoE):
            assert after[PPPoE].len == len(bytes(after[PPPoE].payload)), where
        # same endpoints (mapped), ports, hop limit, class, payload bytes
        assert ipaddress.ip_address(ipv6.src) == vtc_captures.ipv6_address(
            ip.src
        ), where
        assert ipaddress.ip_address(ipv6.dst) == vtc_captures.ipv6_address(
            ip.dst
        ), where
        assert (ipv6.hlim, ipv6.tc, ipv6.nh) == (
            ip.ttl,
            ip.tos,
            ip.proto,
        ), where
        assert (ipv6.payload.sport, ipv6.payload.dport) == (
            ip.payload.sport,
            ip.payload.dport,
        )
        segment_v4 = bytes(ip)[ip.ihl * 4:ip.len]
        ipv6_bytes = bytes(ipv6)
        segment_v6 = ipv6_bytes[40:40 + ipv6.plen]
        assert ipv6.plen == len(segment_v4) == len(segment_v6), where
        header = (segment_v4[12] >> 4) * 4 if ip.proto == TCP_PROTO else 8
        assert segment_v6[header:] == segment_v4[header:], where
        # checksums valid (computed independently), UDP's never zero, UDP
        # length right
        assert ipv6_transport_checksum_ok(ipv6_bytes), where
        if ip.proto == UDP_PROTO:
            assert (
                ipv6.payload.chksum != 0 and ipv6.payload.len == ipv6.plen
            ), where
        # TCP header (options included) unchanged but for the checksum
        if ip.proto == TCP_PROTO:
            assert (
                segment_v6[:16] == segment_v4[:16]
                and segment_v6[18:header] == segment_v4[18:header]
            ), where
    # flow structure preserved: distinct 5-tuples map one to one
    v4_flows = {
        (
            6,
            p,
            vtc_captures.ipv6_address(s),
            sp,
            vtc_captures.ipv6_address(d),
            dp,
        )
        for _, p, s, sp, d, dp in five_tuples(frames)
    }
    v6_flows = set(five_tuples(variant))
    assert v6_flows == v4_flows
    assert len(v6_flows) == len(set(five_tuples(frames)))


def test_tcpdump_finds_every_ipv6_variant_checksum_correct(tmp_path):
    """A second, independent verifier: tcpdump -vv checks each TCP/UDP checksum
    it prints.
    """
    for name in CAPTURES:
        path = tmp_path / ('ipv6_' + name)
        with open(path, 'wb') as stream:
            writer = dpkt.pcap.Writer(stream, snaplen=65535)
            for frame in vtc_captures.ipv6_variant(
                vtc_captures.read_frames(capture(name))
            ):
                writer.writepkt(frame, ts=0)
        lines = subprocess.run(
            [tool_path('tcpdump'), '-vv', '-n', '-r', str(path)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        correct = len(
            re.findall(r'cksum 0x[0-9a-f]+ \(correct\)|\[udp sum ok\]', lines)
        )
        assert 'incorrect' not in lines and 'bad udp' not in lines, name
        assert correct == tcpdump_count(path), name


def ndpi_reader_flows(path, tmp_path):
    """The flows Debian's nDPI (ndpiReader) finds in a capture, read like the
    .out files.
    """
    result = subprocess.run(
        [tool_path('ndpiReader'), '-i', str(path), '-v', '2'],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    out = tmp_path / (path.name + '.ndpi.out')
    out.write_text(result.stdout)
    return vtc_captures.ndpi_flows(out)


def test_ndpi_classifies_the_ipv6_variant_like_the_capture(tmp_path, report):
    """nDPI itself finds the same flows in the IPv6 variant and gives every
    flow it classified by DPI the same protocol: to a DPI engine the variant is
    the same traffic. (Flows nDPI matched by IP address differ: the mapped
    addresses are no one's.)
    """
    compared = 0
    for name in CAPTURES:
        variant = tmp_path / ('ipv6_' + name)
        with open(variant, 'wb') as stream:
            writer = dpkt.pcap.Writer(stream, snaplen=65535)
            for frame in vtc_captures.ipv6_variant(
                vtc_captures.read_frames(capture(name))
            ):
                writer.writepkt(frame, ts=0)
        v4 = {frozenset({(vtc_captures.ipv6_address(f.addr_1), f.port_1),
                         (vtc_captures.ipv6_address(f.addr_2), f.port_2)}): f
              for f in ndpi_reader_flows(capture(name), tmp_path)}
        v6 = {frozenset({(f.addr_1, f.port_1), (f.addr_2, f.port_2)}): f
              for f in ndpi_reader_flows(variant, tmp_path)}
        assert set(v6) == set(v4), name
        assert all(f.addr_1.version == 6 for f in v6.values())
        for ends, flow in v4.items():
            if flow.confidence.startswith('DPI'):  # 'DPI' or 'DPI (cache)'
                assert v6[ends].protocol == flow.protocol, (
                    name,
                    flow,
                    v6[ends],
                )
                compared += 1
    report(
        'nDPI (ndpiReader) on the IPv6 variants: %d flows classified by '
        'DPI, all alike'
        % compared
    )
    assert compared >= 40


def test_ipv6_variant_leaves_frames_it_cannot_carry_over():
    """ARP, ICMP and IPv4 fragments are not TCP/UDP datagrams it can rewrite
    whole.
    """
    # explicit MACs: scapy would otherwise resolve them over the network
    ether = Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')
    arp = bytes(
        ether / ARP(hwsrc=ether.src, psrc='192.0.2.1', pdst='192.0.2.2')
    )
    icmp = bytes(ether / IP(src='192.0.2.1', dst='192.0.2.2') / ICMP())
    fragment = bytes(ether / IP(src='192.0.2.1', dst='192.0.2.2', flags='MF')
                     / UDP(sport=1, dport=2) / (b'x' * 32))
    later_fragment = bytes(
        ether
        / IP(src='192.0.2.1', dst='192.0.2.2', frag=4, proto=17)
        / (b'y' * 32)
    )
    frames = [arp, icmp, fragment, later_fragment]
    assert vtc_captures.ipv6_variant(frames) == frames


@pytest.mark.parametrize('name', CAPTURES)
def test_qinq_variant_adds_8021ad_then_8021q_and_keeps_the_frame(name):
    frames = vtc_captures.read_frames(capture(name))
    variant = vtc_captures.qinq_variant(frames, outer=300, inner=42)
    assert len(variant) == len(frames)
    for original, tagged in zip(frames, variant):
        assert len(tagged) == len(original) + 8
        # bytes on the wire: TPID 0x88A8, TCI, TPID 0x8100, TCI, then the
        # original ethertype
        assert tagged[12:20] == bytes.fromhex('88a8012c8100002a')
        assert tagged[:12] + tagged[20:] == original
        packet = Ether(tagged)
        assert packet.type == 0x88A8
        assert (packet[Dot1AD].vlan, packet[Dot1AD].type) == (300, 0x8100)
        inner = packet[Dot1AD].payload
        assert isinstance(inner, Dot1Q) and inner.vlan == 42
        # tags that were there stay inside (dns.pcap already carries two 802.1Q
        # tags)
        assert encapsulation(inner) == encapsulation(Ether(original))


def test_qinq_variant_of_the_ipv6_variant():
    frames = vtc_captures.read_frames(capture('dns.pcap'))
    both = vtc_captures.qinq_variant(vtc_captures.ipv6_variant(frames))
    assert all(Ether(frame).haslayer(IPv6) and Ether(frame)[Dot1AD].vlan == 100
               for frame in both)


def test_qinq_refuses_reserved_vlan_ids():
    with pytest.raises(ValueError):
        vtc_captures.qinq_variant([], outer=0)
    with pytest.raises(ValueError):
        vtc_captures.qinq_variant([], inner=4095)


def test_a_replay_counts_the_dscps_it_sent_and_what_came_back(
        tmp_path, monkeypatch):
    """The demo's replay says the DSCPs of what it sent and of what came
    back: IPv4's and IPv6's, behind tags, and frames that are not IP.
    """
    marked = ETHER_IPV4[:14] + IPV4_PACKET[:1] + bytes([34 << 2 | 1]) + \
        IPV4_PACKET[2:]
    ipv6 = b'\0' * 12 + b'\x86\xdd' + bytes([0x60 | 18 >> 2, (18 & 3) << 6]) \
        + b'\0' * 38
    arp = b'\0' * 12 + b'\x08\x06' + b'\0' * 28
    assert traffic.dscp(traffic.tagged(marked, 11)) == 34
    assert traffic.dscp(ETHER_IPV4 + IPV4_PACKET) == 0
    assert traffic.dscp(ipv6) == 18
    assert traffic.dscp(arp) is None
    counts = traffic.dscp_counts([marked, marked, ipv6, arp,
                                  ETHER_IPV4 + IPV4_PACKET])
    assert counts == {34: 2, 18: 1, None: 1, 0: 1}
    assert traffic.dscp_text(counts) == \
        'DSCP 0 \u00d7 1, 18 \u00d7 1, 34 \u00d7 2, not IP \u00d7 1'
    assert traffic.dscp_text({}) == 'none'
    path = write_pcap(tmp_path / 'one.pcap', 0,
                      [struct.pack('<I', 2) + IPV4_PACKET])
    monkeypatch.setattr(traffic, 'sendp', lambda packets, **kwargs: None)
    assert traffic.replay([path], 'peer0', 11).dscps == {0: 1}
