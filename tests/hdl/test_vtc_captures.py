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

"""The captures the vTC is tested with: the real nDPI files, and their IPv6 and
QinQ variants.
"""
import ipaddress
import re
import shutil
import struct
import subprocess
import sys

import dpkt
import pytest
from scapy.layers.inet import ICMP
from scapy.layers.inet import IP
from scapy.layers.inet import TCP
from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import ARP
from scapy.layers.l2 import Dot1AD
from scapy.layers.l2 import Dot1Q
from scapy.layers.l2 import Ether
from scapy.layers.ppp import PPP
from scapy.layers.ppp import PPPoE
from scapy.utils import RawPcapReader

from tests.conftest import realdata_path
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / 'hdl' / 'tests'))
# hdl/tests is the cocotb suites' directory, not a package
import vtc_captures  # noqa: E402

pytestmark = pytest.mark.hdl

CAPTURES = vtc_captures.NDPI_CAPTURES
TCP_PROTO, UDP_PROTO = 6, 17


def capture(name):
    return realdata_path('pcaps', 'ndpi', name)


def tool_path(name):
    path = shutil.which(name)
    assert path, '%s is missing: install it (tools/apt-packages)' % name
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


def test_nine_captures_are_found():
    paths = vtc_captures.ndpi_capture_paths()
    assert [p.name for p in paths] == list(CAPTURES)
    assert all(p == capture(p.name) for p in paths)


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


def test_capture_with_another_link_type_is_refused(tmp_path):
    raw_ip = tmp_path / 'raw.pcap'
    with open(raw_ip, 'wb') as stream:
        writer = dpkt.pcap.Writer(stream, linktype=dpkt.pcap.DLT_RAW)
        writer.writepkt(bytes(IP(dst='192.0.2.1') / UDP()), ts=0)
    with pytest.raises(vtc_captures.CaptureError, match='not Ethernet'):
        vtc_captures.read_frames(raw_ip)
    garbage = tmp_path / 'garbage.pcap'
    garbage.write_bytes(b'not a capture at all')
    with pytest.raises(vtc_captures.CaptureError, match='not a pcap'):
        vtc_captures.read_frames(garbage)


def test_ipv4_addresses_map_into_the_documentation_prefix():
    assert vtc_captures.ipv6_address('192.168.1.3') == ipaddress.IPv6Address(
        '2001:db8::c0a8:103'
    )
    assert vtc_captures.ipv6_address('0.0.0.1') != vtc_captures.ipv6_address(
        '0.0.0.2'
    )


@pytest.mark.parametrize('name', CAPTURES)
def test_ipv6_variant_is_valid_ipv6_with_the_same_flows_and_payloads(name):
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
