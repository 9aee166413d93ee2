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

"""The real nDPI captures as frame lists, nDPI's ground truth for them, and
the variants the vTC must also handle.

The captures are in two folders of the shared real data: pcaps/ndpi (nine
Ethernet captures, what the cocotb suites and the agent tests replay) and
pcaps/ndpi-more (seventeen more, some on loopback or "any" interfaces: the
accuracy harness reads both).  Frames come from
nova_fpga_devtools.captures, which turns every packet into the Ethernet
frame a board would receive, as the demo's replay tool sends it.

Few of the captures carry IPv6 and none an 802.1ad outer tag, yet the vTC
parses both: the variants here rewrite the real frames (same flows, same
payloads) so the module, its model and the accuracy test see those formats
with real traffic inside.  Frames are built with scapy, so lengths,
checksums and tag formats are what a network would carry.

Used by the cocotb suites (hdl/tests is on their sys.path) and by pytest
(tests/hdl), so it does not import the tests package.
"""
import collections
import ipaddress
import pathlib
import re

import nova_fpga_devtools
from nova_fpga_devtools.captures import CaptureError  # noqa: F401
from nova_fpga_devtools.captures import read_capture  # noqa: F401
from nova_fpga_devtools.captures import read_frames  # noqa: F401
from scapy.layers.inet import IP
from scapy.layers.inet import TCP
from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1AD
from scapy.layers.l2 import Dot1Q
from scapy.layers.l2 import Ether
from scapy.layers.ppp import PPP
from scapy.layers.ppp import PPPoE
from scapy.packet import Raw

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: The nine captures of pcaps/ndpi, with nDPI's ground truth beside each
#: (<capture>.out).
NDPI_CAPTURES = (
    'NTPv4.pcap',
    'bittorrent.pcap',
    'dns.pcap',
    'exe_download.pcap',
    'google_ssl.pcap',
    'quic.pcap',
    'sip.pcap',
    'smtp.pcap',
    'ssh.pcap',
)
#: The seventeen of pcaps/ndpi-more (tests/data/realdata/README.md).
NDPI_MORE_CAPTURES = (
    'NTPv3.pcap',
    'bittorrent_tcp_miss.pcapng',
    'bt_search.pcap',
    'dns-exf.pcap',
    'dns_dot.pcap',
    'http_auth.pcap',
    'ip_fragmented_garbage.pcap',
    'ipv6_in_gtp.pcap',
    'openvpn-tlscrypt.pcap',
    'quic-34.pcap',
    'quic-v2.pcapng',
    'sip_hello.pcapng',
    'stun_classic.pcap',
    'stun_dtls_rtp.pcapng',
    'tls_1.3_unidirectional_client.pcapng',
    'whatsapp_voice_and_message.pcap',
    'youtube_quic.pcap',
)
#: nDPI's test captures of 32 kB or less copied by
#: nova_fpga_devtools.ndpi_captures, split by a hash of their names: the
#: signatures may be tuned on ndpi-tuning, never on ndpi-heldout.  Their
#: captures are those their PROVENANCE.md lists.
TUNING_FOLDER, HELD_OUT_FOLDER = 'ndpi-tuning', 'ndpi-heldout'
CAPTURE_SUFFIXES = ('.pcap', '.pcapng', '.cap')


def _listed(folder):
    """The captures a folder's PROVENANCE.md lists (its table of files)."""
    provenance = (nova_fpga_devtools.REALDATA / 'pcaps' / folder
                  / 'PROVENANCE.md')
    names = re.findall(r'^\| (\S+) \| \d+ \| [0-9a-f]{64} \|$',
                       provenance.read_text(encoding='utf-8'), re.MULTILINE)
    return tuple(name for name in names
                 if pathlib.PurePath(name).suffix in CAPTURE_SUFFIXES)


#: folder under pcaps/ -> its captures
NDPI_FOLDERS = {'ndpi': NDPI_CAPTURES, 'ndpi-more': NDPI_MORE_CAPTURES,
                TUNING_FOLDER: _listed(TUNING_FOLDER),
                HELD_OUT_FOLDER: _listed(HELD_OUT_FOLDER)}
ETHERNET_HEADER_LEN = 14

#: IPv4 addresses map into this documentation prefix: 2001:db8::a.b.c.d.
IPV6_PREFIX = ipaddress.IPv6Address('2001:db8::')

ETHERTYPE_8021Q = 0x8100
ETHERTYPE_8021AD = 0x88A8
ETHERTYPE_IPV6 = 0x86DD
PPP_IPV6 = 0x0057
TCP_PROTO = 6
UDP_HEADER_LEN = 8


def realdata_dir():
    """Where the real test data lives (nova_fpga_devtools.REALDATA)."""
    return nova_fpga_devtools.REALDATA


def ndpi_capture_paths(folder='ndpi'):
    """The captures of one NDPI_FOLDERS folder; missing data is an error,
    never a skip.
    """
    directory = realdata_dir() / 'pcaps' / folder
    paths = [directory / name for name in NDPI_FOLDERS[folder]]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise FileNotFoundError(
            'real captures missing: %s (tests/data/realdata is part of the '
            'checkout, or NOVA_FPGA_REALDATA is wrong)' % ', '.join(missing))
    return paths


def ndpi_result_path(capture):
    """nDPI's expected output for a capture (<capture>.out beside it)."""
    return pathlib.Path(str(capture) + '.out')


def ipv6_address(ipv4):
    """The IPv6 address an IPv4 address becomes in the IPv6 variant
    (injective).
    """
    return ipaddress.IPv6Address(
        int(IPV6_PREFIX) | int(ipaddress.IPv4Address(ipv4))
    )


def ipv6_variant_address(address):
    """Where an address of a capture is in its IPv6 variant: an IPv4 one
    through ipv6_address, an IPv6 one where it was.
    """
    address = ipaddress.ip_address(address)
    return ipv6_address(address) if address.version == 4 else address


def _is_fragment(ip):
    return bool(ip.flags.MF) or ip.frag != 0


def _as_ipv6(ip):
    """The IPv6 packet carrying what an IPv4 TCP/UDP packet carries: same
    ports, payload bytes, hop limit and traffic class; lengths and checksums
    recomputed.

    The transport header and payload are taken as bytes (up to the IPv4 total
    length, so Ethernet padding is left out) and the payload is never
    re-encoded by a scapy dissector (a rebuilt DNS message could differ).
    """
    segment = bytes(ip)[ip.ihl * 4:ip.len]
    if ip.proto == TCP_PROTO:
        header_len = (segment[12] >> 4) * 4
        transport = TCP(segment[:header_len])
    else:
        header_len = UDP_HEADER_LEN
        transport = UDP(segment[:header_len])
        transport.len = None
    transport.chksum = None
    transport.remove_payload()
    return (IPv6(src=str(ipv6_address(ip.src)), dst=str(ipv6_address(ip.dst)),
                 tc=ip.tos, fl=0, hlim=ip.ttl, nh=ip.proto)
            / transport / Raw(load=segment[header_len:]))


def ethernet(frame):
    """scapy's dissection of a frame, or None for a frame shorter than an
    Ethernet header (a runt: scapy cannot dissect a partial header, and no
    network layer follows).
    """
    return Ether(frame) if len(frame) >= ETHERNET_HEADER_LEN else None


def ipv6_variant(frames):
    """Every IPv4 TCP/UDP frame rewritten as IPv6 (addresses through
    ipv6_address, VLAN tags and PPPoE kept); every other frame (runts
    included) unchanged.

    IPv4 fragments stay as they are: their transport checksum covers the
    whole datagram, which one fragment does not carry.
    """
    out = []
    for frame in frames:
        packet = ethernet(frame)
        ip = None if packet is None else packet.getlayer(IP)
        if (ip is None or _is_fragment(ip)
                or not isinstance(ip.payload, (TCP, UDP))):
            out.append(frame)
            continue
        below = ip.underlayer
        below.remove_payload()
        if isinstance(below, PPP):
            below.proto = PPP_IPV6
            pppoe = packet.getlayer(PPPoE)
            pppoe.len = None
        else:
            below.type = ETHERTYPE_IPV6
        below.add_payload(_as_ipv6(ip))
        out.append(bytes(packet))
    return out


def qinq_variant(frames, outer=100, inner=200):
    """Every frame behind an 802.1ad outer tag (VLAN `outer`, TPID 0x88A8) and
    an 802.1Q inner tag (VLAN `inner`); tags already there stay inside them.
    A frame shorter than an Ethernet header stays as it is.
    """
    if not (1 <= outer <= 4094 and 1 <= inner <= 4094):
        raise ValueError('VLAN IDs are 1-4094')
    out = []
    for frame in frames:
        if len(frame) < ETHERNET_HEADER_LEN:
            out.append(frame)  # a runt has no ethertype to tag in front of
            continue
        # the addresses, then the two tags, then the frame's own ethertype
        # (or 802.3 length, which scapy's Ether would take for a Dot3)
        ethertype = int.from_bytes(frame[12:ETHERNET_HEADER_LEN], 'big')
        tagged = (Ether(dst=frame[0:6], src=frame[6:12],
                        type=ETHERTYPE_8021AD)
                  / Dot1AD(vlan=outer, type=ETHERTYPE_8021Q)
                  / Dot1Q(vlan=inner, type=ethertype)
                  / Raw(load=frame[ETHERNET_HEADER_LEN:]))
        out.append(bytes(tagged))
    return out


#: One flow of nDPI's expected output: endpoints as nDPI prints them (client
#: first), its transport as nDPI names it (TCP, UDP, ESP, ICMP, ...), its
#: protocol name ("DNS.WhatsApp": master.application; an encapsulation
#: prefix such as "GTP:" left out), packets both ways (one way for an
#: `a -> b` flow).
NdpiFlow = collections.namedtuple(
    'NdpiFlow',
    'number transport addr_1 port_1 addr_2 port_2 bidirectional vlan protocol '
    'confidence dpi_packets packets hostname',
    defaults=('',),
)

_ENDPOINT = r'(\[[0-9A-Fa-f:.]+\]|[0-9.]+):(\d+)'
_FLOW_LINE = re.compile(
    r'^\s+(\d+)\s+(\S+)\s+'
    + _ENDPOINT
    + r'\s+(<->|->)\s+'
    + _ENDPOINT
    + r'\s+(\[.*)$'
)
#: every flow line carries this field; a line with it must parse
_PROTO_FIELD = '[proto: '
_FIELD = re.compile(r'\[([A-Za-z /]+): ([^\]]*)\]')
_PACKETS = re.compile(
    r'\[(\d+) pkts/\d+ bytes (?:<->|->) (\d+) pkts/\d+ bytes\]'
)


def _address(text):
    return ipaddress.ip_address(text.strip('[]'))


def _flow(path, line):
    match = _FLOW_LINE.match(line)
    if not match:
        raise ValueError('%s: cannot read flow line %r' % (path, line))
    number, transport, a1, p1, arrow, a2, p2, rest = match.groups()
    fields = dict(_FIELD.findall(rest))
    packets = _PACKETS.search(rest)
    if 'proto' not in fields or not packets:
        raise ValueError('%s: cannot read flow line %r' % (path, line))
    return NdpiFlow(
        number=int(number), transport=transport,
        addr_1=_address(a1), port_1=int(p1),
        addr_2=_address(a2), port_2=int(p2),
        bidirectional=arrow == '<->',
        vlan=int(fields['VLAN']) if 'VLAN' in fields else None,
        protocol=fields['proto'].split('/', 1)[1],
        confidence=fields.get('Confidence', ''),
        dpi_packets=int(fields.get('DPI packets', 0)),
        packets=int(packets.group(1)) + int(packets.group(2)),
        hostname=fields.get('Hostname/SNI', ''))


def ndpi_flows(path):
    """The flows of an nDPI result file (<capture>.out), detected and
    undetected, of every transport.

    Lines look like `1  UDP 82.178.113.245:47255 <-> 82.178.158.181:53
    [VLAN: 785][proto: 5.142/DNS.WhatsApp]...[1 pkts/91 bytes <-> 1 pkts/219
    bytes]` or `1  ESP [2a01::1]:0 -> [2a01::4]:0 [VLAN: 2][proto:
    GTP:79/IPSec]...[1 pkts/166 bytes -> 0 pkts/0 bytes]`; IPv6 addresses
    are bracketed.  A line with a proto field that does not read so is an
    error, so no flow is lost.
    """
    with open(path, encoding='utf-8') as stream:
        return [_flow(path, line.rstrip('\n')) for line in stream
                if _PROTO_FIELD in line]
