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

"""The vTC model's parser paths (PPPoE, GTP-U, IPv4 fragments) and its
signatures, on real frames of the shared captures (hdl/tests/vtc_model.py;
the cocotb suite proves the RTL equal to it).
"""
import ipaddress
import sys

import pytest
from scapy.layers.inet import IP
from scapy.layers.inet import TCP
from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Raw
from scapy.utils import rdpcap

from tests.conftest import realdata_path
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / 'hdl' / 'tests'))
import vtc_captures  # noqa: E402
import vtc_model  # noqa: E402

pytestmark = pytest.mark.hdl


def frames(name, folder='ndpi-more'):
    return vtc_captures.read_frames(
        realdata_path('pcaps', folder, name))


def first_payload_frame(name, folder='ndpi-more', proto=None):
    for frame in frames(name, folder):
        parsed = vtc_model.parse(frame)
        if (isinstance(parsed, vtc_model.Parsed) and parsed.payload_len
                and proto in (None, parsed.key.proto)):
            return frame
    raise AssertionError('no payload in %s' % name)


def klass(frame):
    return vtc_model.CLASSES[vtc_model.signature(vtc_model.parse(frame))]


def tcp_frame(payload, sport=40000, dport=50000):
    return bytes(Ether() / IP(src='10.0.0.1', dst='10.0.0.2')
                 / TCP(sport=sport, dport=dport, flags='PA') / Raw(payload))


def udp_frame(payload, sport=40000, dport=50000):
    return bytes(Ether() / IP(src='10.0.0.1', dst='10.0.0.2')
                 / UDP(sport=sport, dport=dport) / Raw(payload))


def not_ethernet(name):
    """A NULL (BSD loopback) or Linux cooked capture's IP packets as
    Ethernet frames.
    """
    out = []
    for packet in rdpcap(str(realdata_path('pcaps', 'ndpi-more', name))):
        raw = bytes(packet)
        body = raw[4:] if packet.__class__.__name__ == 'Loopback' else raw[16:]
        ip = IPv6(body) if body[0] >> 4 == 6 else IP(body)
        out.append(bytes(Ether() / ip))
    return out


def test_a_later_fragment_is_counted_apart_never_in_a_class():
    captured = frames('ip_fragmented_garbage.pcap')
    later = [f for f in captured
             if vtc_model.parse(f) is vtc_model.FRAGMENT]
    assert len(later) == 1248
    model = vtc_model.VtcModel()
    for frame in captured:
        model.process(frame)
    c = model.counters
    assert c['FRAGMENT_FRAMES'] == 1248
    assert c['FRAGMENT_BYTES'] == sum(len(f) for f in later)
    # the four first fragments carry 16 bytes of a TCP header: unparsed
    assert c['UNPARSED_FRAMES'] == 4 and c['FLOWS_SEEN'] == 0
    assert sum(c['CLASS_PACKETS_' + k.upper()] for k in vtc_model.CLASSES) \
        + c['FRAGMENT_FRAMES'] == c['FRAMES'] == len(captured)


def test_a_first_fragment_is_parsed_on_the_bytes_it_carries():
    whole = first_payload_frame('dns-exf.pcap')
    packet = Ether(whole)
    packet[IP].flags = 'MF'
    packet[IP].chksum = None
    first = bytes(packet)
    assert vtc_model.parse(first).key == vtc_model.parse(whole).key
    assert klass(first) == 'dns'
    packet[IP].frag = 185
    assert vtc_model.parse(bytes(packet)) is vtc_model.FRAGMENT


def test_a_pppoe_frame_is_parsed_and_marked_at_its_ip_header():
    # QinQ-tagged (0x8100, 0x8100), then PPPoE (0x8864)
    frame = [f for f in frames('dns.pcap', folder='ndpi')
             if f[20:22] == b'\x88\x64'][0]
    parsed = vtc_model.parse(frame)
    assert parsed.l3 == 30 and parsed.version == 4
    assert klass(frame) == 'dns'
    model = vtc_model.VtcModel(policy={'dns': 46})
    model.process(frame)
    marked = model.process(frame)
    assert Ether(marked)[IP].tos >> 2 == 46
    header = marked[30:50]
    assert vtc_model._ones_add(*(header[i] << 8 | header[i + 1]
                                 for i in range(0, 20, 2))) == 0xFFFF


def with_pdu_session_container(frame, chain=0):
    """A GTP-U frame with the optional fields and one 5G PDU session
    container extension header (next extension type `chain`) inserted.
    """
    packet = Ether(frame)
    udp = packet[UDP]
    gtp = bytes(udp.payload)
    extended = (bytes([gtp[0] | 0x04]) + gtp[1:2]
                + (int.from_bytes(gtp[2:4], 'big') + 8).to_bytes(2, 'big')
                + gtp[4:8] + b'\x00\x00\x00\x85'
                + bytes([1, 0x10, 0x09, chain])
                + gtp[8:])
    udp.remove_payload()
    udp.len = udp.chksum = None
    packet[IP].len = packet[IP].chksum = None
    return bytes(packet / Raw(extended))


def test_gtp_u_is_decapsulated_and_marked_outside():
    frame = frames('ipv6_in_gtp.pcap')[0]
    parsed = vtc_model.parse(frame)
    assert parsed.key.ip_version == 6 and parsed.key.proto == 17
    assert {parsed.key.port_a, parsed.key.port_b} == {49120, 25658}
    assert parsed.key.addr_a == ipaddress.ip_address(
        '2607:fc20:4052:39e:490a:ea4d:17fe:e09c')
    assert parsed.version == 4 and parsed.l3 == 22  # the outer, tagged twice
    extended = with_pdu_session_container(frame)
    again = vtc_model.parse(extended)
    assert again.key == parsed.key and again.payload == parsed.payload
    model = vtc_model.VtcModel(policy={'rtp': 34})
    # UDP RTP takes two packets of its SSRC: the third is marked
    start = extended.index(parsed.payload)
    for step in range(3):
        seq = (int.from_bytes(extended[start + 2:start + 4], 'big') + step)
        marked = model.process(extended[:start + 2]
                               + (seq & 0xFFFF).to_bytes(2, 'big')
                               + extended[start + 4:])
    # the outer header, the one the network sees
    assert Ether(marked)[IP].tos >> 2 == 34
    assert marked[22 + 20 + 8:start + 2] == extended[22 + 20 + 8:start + 2]
    # a deeper extension chain is not followed
    assert vtc_model.parse(with_pdu_session_container(frame, chain=0x85)) \
        is None
    # the ESP packet inside the other frame is no TCP/UDP
    assert vtc_model.parse(frames('ipv6_in_gtp.pcap')[1]) is None


def test_openvpn_over_udp_is_not_quic_even_on_port_443():
    captured = not_ethernet('openvpn-tlscrypt.pcap')
    assert {klass(f) for f in captured
            if vtc_model.parse(f).payload_len} == {'unknown'}
    for frame in captured:
        packet = Ether(frame)
        packet[UDP].dport = packet[UDP].sport = 443
        assert klass(bytes(packet)) != 'quic'


@pytest.mark.parametrize('capture, proto, expected', [
    ('stun_classic.pcap', 17, 'stun'),  # RFC 3489 Binding Request
    ('stun_dtls_rtp.pcapng', 6, 'stun'),  # over TCP/3478, with the cookie
    ('stun_dtls_rtp.pcapng', 17, 'stun'),
    ('whatsapp_voice_and_message.pcap', 17, 'stun'),
    ('whatsapp_voice_and_message.pcap', 6, 'unknown'),  # WhatsApp's own
    ('quic-34.pcap', 17, 'quic'),  # IETF draft 34, port 4443
    ('youtube_quic.pcap', 17, 'quic'),  # gQUIC Q035
    ('bt_search.pcap', 17, 'bittorrent'),  # local service discovery
    ('sip_hello.pcapng', 17, 'sip'),  # the keep-alive `hello`
    ('NTPv3.pcap', 17, 'ntp'),
    ('tls_1.3_unidirectional_client.pcapng', 6, 'tls'),
])
def test_signature_of_a_real_first_packet(capture, proto, expected):
    assert klass(first_payload_frame(capture, proto=proto)) == expected


def test_quic_v2_long_header_is_quic():
    captured = not_ethernet('quic-v2.pcapng')
    assert klass(captured[0]) == 'quic'


def test_dns_and_rtp_over_tcp_have_their_length_prefix():
    query = bytes(Ether(first_payload_frame('dns-exf.pcap'))[UDP].payload)
    prefixed = len(query).to_bytes(2, 'big') + query
    assert klass(tcp_frame(prefixed, dport=53)) == 'dns'
    assert klass(tcp_frame(prefixed, dport=5353)) == 'unknown'
    rtp = bytes(Ether(frames('stun_classic.pcap')[2])[UDP].payload)
    # over UDP one packet is a candidate only (two of one SSRC make RTP)
    assert klass(udp_frame(rtp)) == 'unknown'
    assert vtc_model.rtp_candidate(vtc_model.parse(udp_frame(rtp)))
    assert klass(tcp_frame(len(rtp).to_bytes(2, 'big') + rtp)) == 'rtp'
    assert klass(tcp_frame(b'\x80\x00' + rtp)) == 'unknown'  # no length
    assert klass(tcp_frame(len(rtp).to_bytes(2, 'big') + rtp,
                           dport=554)) == 'unknown'  # a port below 1024


def test_bittorrent_over_udp():
    dht = b'd1:ad2:id20:' + bytes(20) + b'e1:q4:ping1:t2:aa1:y1:qe'
    assert klass(udp_frame(dht)) == 'bittorrent'
    # uTP (BEP 29): a SYN with a connection ID, a timestamp, no time
    # difference and nothing after its 20-byte header
    utp_syn = (bytes([0x41, 0x00]) + b'\x3a\x9c' + b'\x5e\x1f\x00\x01'
               + bytes(4) + b'\x00\x10\x00\x00' + b'\x00\x01\x00\x00')
    assert klass(udp_frame(utp_syn)) == 'bittorrent'
    assert klass(udp_frame(utp_syn[:19])) == 'unknown'  # no uTP header
    # a STATE (ACK) with a selective-ACK extension: 20 + 2 + 4 bytes
    utp_state = bytes([0x21, 0x01]) + utp_syn[2:] + b'\x00\x04\xff\x00\x00\x00'
    assert klass(udp_frame(utp_state)) == 'bittorrent'
    refused = {
        # ST_DATA proves nothing alone: DHCP, WireGuard, Zoom and RakNet
        # packets start like one
        'data': bytes([0x01]) + utp_syn[1:] + b'payload',
        'no connection ID': utp_syn[:2] + bytes(2) + utp_syn[4:],
        'no timestamp': utp_syn[:4] + bytes(4) + utp_syn[8:],
        'SYN with a time difference': utp_syn[:8] + b'\x00\x00\x00\x01'
        + utp_syn[12:],
        'SYN with data': utp_syn + b'x',
        'STATE with an extension too long': utp_state + bytes(40),
        'version 2': bytes([0x42]) + utp_syn[1:],
    }
    for why, payload in refused.items():
        assert klass(udp_frame(payload)) == 'unknown', why
    # a low port (DHCP 67/68, NetBIOS 138): not uTP
    assert klass(udp_frame(utp_syn, sport=68, dport=67)) == 'unknown'
    assert klass(udp_frame(utp_syn, sport=138, dport=138)) == 'unknown'
    # DHCP's real request (1kxun.pcap, nDPI DHCP): BOOTREQUEST, Ethernet,
    # hop 0 reads as a uTP ST_DATA with extension 1
    dhcp = bytes.fromhex('01010600fc0f79d800008000c0a80509') + bytes(284)
    assert klass(udp_frame(dhcp, sport=68, dport=67)) == 'unknown'
    assert klass(udp_frame(dhcp, sport=40000, dport=50000)) == 'unknown'
    # a classic STUN Binding Response looks like uTP's first byte: STUN
    response = bytes(Ether(frames('stun_classic.pcap')[1])[UDP].payload)
    assert response[:2] == b'\x01\x01'
    assert klass(udp_frame(response)) == 'stun'


def test_stun_length_must_fit_the_payload():
    request = bytes(Ether(frames('stun_classic.pcap')[0])[UDP].payload)
    assert klass(udp_frame(request)) == 'stun'
    assert klass(udp_frame(request + b'\x00' * 4)) == 'unknown'
    cookie = bytes(Ether(first_payload_frame(
        'whatsapp_voice_and_message.pcap', proto=17))[UDP].payload)
    assert klass(udp_frame(cookie + b'\x00' * 4)) == 'stun'
    assert klass(udp_frame(cookie[:-4])) == 'unknown'


def rtp(seq, ssrc=0x3796CB71, payload_type=8):
    """An RTP header (version 2) with this sequence number and SSRC."""
    return (bytes([0x80, payload_type]) + (seq & 0xFFFF).to_bytes(2, 'big')
            + bytes(4) + ssrc.to_bytes(4, 'big') + bytes(20))


def rtp_flow_class(*packets):
    """The class of a UDP flow after these (seq, ssrc, reverse) packets."""
    model = vtc_model.VtcModel()
    for seq, ssrc, reverse in packets:
        frame = udp_frame(rtp(seq, ssrc))
        if reverse:
            frame = bytes(Ether() / IP(src='10.0.0.2', dst='10.0.0.1')
                          / UDP(sport=50000, dport=40000)
                          / Raw(rtp(seq, ssrc)))
        model.process(frame)
    return model.flow_class(vtc_model.parse(udp_frame(b'')).key), model


X, Y = 0x11111111, 0x22222222


@pytest.mark.parametrize('packets, expected', [
    ([(100, X, False)], 'unknown'),  # one packet: a candidate
    ([(100, X, False), (101, X, False)], 'rtp'),
    ([(100, X, False), (116, X, False)], 'rtp'),  # 16 ahead
    ([(100, X, False), (117, X, False)], 'unknown'),  # 17 ahead
    ([(100, X, False), (117, X, False), (118, X, False)], 'rtp'),  # follows
    ([(100, X, False), (100, X, False)], 'unknown'),  # not ahead
    # a repeated sequence number of one SSRC rules RTP out (nDPI's rtp.c:
    # consecutive RTP packets have different sequence numbers), for good
    ([(100, X, False), (100, X, False), (101, X, False)], 'unknown'),
    ([(100, X, False), (101, Y, False), (101, Y, False), (101, X, False)],
     'rtp'),  # another SSRC's repeat is not the stored one's
    ([(100, X, False), (99, X, False), (100, X, False)], 'rtp'),  # behind
    ([(100, X, False), (99, X, False)], 'unknown'),  # behind
    ([(0xFFFF, X, False), (0, X, False)], 'rtp'),  # wraps
    ([(100, X, False), (101, Y, False)], 'unknown'),  # another SSRC
    # both directions, each its own SSRC: the first SSRC stays
    ([(1, X, False), (500, Y, True), (2, X, False)], 'rtp'),
    ([(1, X, False), (500, Y, True), (501, Y, True)], 'unknown'),
])
def test_udp_rtp_takes_two_packets_of_one_ssrc(packets, expected):
    got, model = rtp_flow_class(*packets)
    assert got == expected
    assert model.counters['CLASS_FLOWS_RTP'] == (expected == 'rtp')


def test_udp_rtp_needs_its_version_and_a_plausible_payload_type():
    for header in (b'\x40' + rtp(1)[1:], rtp(1, payload_type=72)):  # RTCP
        model = vtc_model.VtcModel()
        for step in range(3):
            model.process(udp_frame(header[:2] + bytes([0, step])
                                    + header[4:]))
        assert model.flow_class(vtc_model.parse(udp_frame(b'')).key) \
            == 'unknown'


def test_the_one_rtp_looking_packet_of_ipv6_in_gtp_is_not_rtp():
    model = vtc_model.VtcModel()
    for frame in frames('ipv6_in_gtp.pcap'):
        model.process(frame)
    key = vtc_model.parse(frames('ipv6_in_gtp.pcap')[0]).key
    assert vtc_model.rtp_candidate(vtc_model.parse(
        frames('ipv6_in_gtp.pcap')[0]))
    assert model.flow_class(key) == 'unknown'
    assert model.counters['CLASS_FLOWS_RTP'] == 0


def tcp(flags, payload=b'', sport=40000, dport=50000):
    return bytes(Ether() / IP(src='10.0.0.1', dst='10.0.0.2')
                 / TCP(sport=sport, dport=dport, flags=flags) / Raw(payload))


def test_port_guesses_come_from_the_catalogue():
    assert vtc_model.PORT_GUESSES[(6, 443)] == 'tls'
    assert vtc_model.PORT_GUESSES[(17, 443)] == 'quic'
    assert vtc_model.PORT_GUESSES[(17, 53)] == 'dns'
    assert (6, 5004) not in vtc_model.PORT_GUESSES
    key = vtc_model.parse(tcp('F', dport=443)).key
    assert vtc_model.port_guess(key) == 'tls'
    # both ports listed: the lowest class number wins (http 80 < smtp 25)
    assert vtc_model.port_guess(vtc_model.parse(
        tcp('F', sport=25, dport=80)).key) == 'http'
    assert vtc_model.port_guess(vtc_model.parse(tcp('F')).key) is None


def test_a_flow_that_ends_unknown_is_guessed_once_by_its_port():
    model = vtc_model.VtcModel()
    c = model.counters
    for frame in (tcp('S', dport=443), tcp('SA', dport=443),
                  tcp('FA', dport=443), tcp('R', dport=443)):
        model.process(frame)
    tls_key = vtc_model.parse(tcp('S', dport=443)).key
    assert c['FLOWS_GUESSED'] == 1 and c['CLASS_GUESSES_TLS'] == 1  # once
    assert model.guesses == {tls_key: 'tls'}
    # a guess is no classification: the flow stays unknown, not marked
    assert model.flow_class(tls_key) == 'unknown'
    assert c['FLOWS_CLASSIFIED'] == 0 and c['CLASS_FLOWS_TLS'] == 0
    # no port of the list: not guessed (and may be guessed later: no flag)
    model.process(tcp('R'))
    assert c['FLOWS_GUESSED'] == 1
    assert not model.flows[vtc_model.parse(tcp('R')).key].guessed
    # a flow DPI classified is not guessed when it ends
    model.process(tcp('PA', b'GET / HTTP/1.1\r\n', dport=80))
    model.process(tcp('FA', dport=80))
    assert c['FLOWS_GUESSED'] == 1 and c['CLASS_FLOWS_HTTP'] == 1
    # an RST as the first packet of a flow: guessed (ssh, port 22)
    model.process(tcp('R', dport=22))
    assert c['CLASS_GUESSES_SSH'] == 1 and c['FLOWS_GUESSED'] == 2
    # a guessed flow that DPI classifies later: classified, the guess stays
    model.process(tcp('PA', b'\x16\x03\x01\x00\x05hello', dport=443))
    assert model.flow_class(tls_key) == 'tls'
    assert c['CLASS_GUESSES_TLS'] == 1 and c['FLOWS_CLASSIFIED'] == 2


def test_an_evicted_unknown_flow_is_guessed_by_its_port():
    # one bucket of four ways, a timeout of one tick
    model = vtc_model.VtcModel(flow_table_depth=4, flow_timeout=1)
    c = model.counters
    dns = [udp_frame(b'', sport=1000 + n, dport=53) for n in range(3)]
    other = udp_frame(b'', sport=1000, dport=2000)
    for frame in dns + [other]:
        model.process(frame, now=0)
    # the lowest idle way goes first: a dns flow, guessed as it goes
    model.process(udp_frame(b'', sport=3000, dport=3001), now=5)
    assert c['FLOW_EVICTIONS'] == 1
    assert c['FLOWS_GUESSED'] == 1 and c['CLASS_GUESSES_DNS'] == 1
    # an evicting frame that ends its own new flow: only the evicted flow
    # is guessed by that frame
    model.process(tcp('R', dport=443), now=5)
    assert c['FLOW_EVICTIONS'] == 2 and c['FLOWS_GUESSED'] == 2
    assert c['CLASS_GUESSES_TLS'] == 0
    assert not model.flows[vtc_model.parse(tcp('R', dport=443)).key].guessed
    # the next idle way: the last dns flow; then the one no port of the list
    # names, which is not counted
    model.process(udp_frame(b'', sport=3002, dport=3003), now=5)
    assert c['FLOWS_GUESSED'] == 3 and c['CLASS_GUESSES_DNS'] == 3
    model.process(udp_frame(b'', sport=3004, dport=3005), now=5)
    assert c['FLOW_EVICTIONS'] == 4 and c['FLOWS_GUESSED'] == 3


CLIENT_HELLO = bytes.fromhex('160301020001000200') + bytes(8)


def test_http_connect_and_starttls_are_refined_to_tls_once():
    model = vtc_model.VtcModel(policy={'http': 10, 'tls': 46, 'smtp': 18})
    c = model.counters
    connect = [tcp('PA', b'CONNECT example.com:443 HTTP/1.1\r\n'),
               tcp('PA', b'HTTP/1.1 200 OK\r\n\r\n'),
               tcp('PA', CLIENT_HELLO), tcp('PA', CLIENT_HELLO)]
    out = [model.process(frame) for frame in connect]
    key = vtc_model.parse(connect[0]).key
    assert model.flow_class(key) == 'tls'
    assert (c['FLOWS_CLASSIFIED'], c['FLOWS_REFINED']) == (1, 1)
    assert (c['CLASS_FLOWS_HTTP'], c['CLASS_FLOWS_TLS']) == (0, 1)
    # marked by the class before each frame: http, http, then tls
    assert [Ether(f)[IP].tos >> 2 for f in out] == [0, 10, 10, 46]
    # a GET flow is not refined
    model.process(tcp('PA', b'GET / HTTP/1.1\r\n', sport=40001))
    model.process(tcp('PA', CLIENT_HELLO, sport=40001))
    assert c['CLASS_FLOWS_HTTP'] == 1 and c['FLOWS_REFINED'] == 1
    # SMTP with STARTTLS
    smtp = [tcp('PA', b'220 mail ESMTP\r\n', sport=25),
            tcp('PA', b'EHLO client\r\n', sport=25),
            tcp('PA', b'STARTTLS\r\n', sport=25),
            tcp('PA', b'220 ready\r\n', sport=25),
            tcp('PA', CLIENT_HELLO, sport=25)]
    for frame in smtp:
        model.process(frame)
    assert model.flow_class(vtc_model.parse(smtp[0]).key) == 'tls'
    assert (c['FLOWS_CLASSIFIED'], c['FLOWS_REFINED']) == (3, 2)
    assert (c['CLASS_FLOWS_SMTP'], c['CLASS_FLOWS_TLS']) == (0, 2)


def test_refinement_stops_at_inspect_packets_and_wraps_after_a_clear():
    model = vtc_model.VtcModel(inspect_packets=2)
    c = model.counters
    model.process(tcp('PA', b'CONNECT a:443 HTTP/1.1\r\n'))
    model.process(tcp('PA', b'HTTP/1.1 200 OK\r\n'))
    model.process(tcp('PA', CLIENT_HELLO))  # the third: not inspected
    assert c['FLOWS_REFINED'] == 0
    model = vtc_model.VtcModel()
    c = model.counters
    model.process(tcp('PA', b'CONNECT a:443 HTTP/1.1\r\n'))
    model.clear_counters()
    model.process(tcp('PA', CLIENT_HELLO))
    # the old class's counter was cleared: it wraps, as the RTL's does
    assert c['CLASS_FLOWS_HTTP'] == 0xFFFFFFFF
    assert (c['CLASS_FLOWS_TLS'], c['FLOWS_REFINED'],
            c['FLOWS_CLASSIFIED']) == (1, 1, 0)


#: a STUN Binding Request (RFC 5389: the cookie, no attributes)
STUN_BINDING = bytes.fromhex('00010000 2112a442') + bytes(12)
#: a DTLS 1.2 handshake record (ClientHello) of 0x0101 bytes after its
#: 13-byte header: type, version, epoch, sequence number, length
DTLS_HELLO = (bytes.fromhex('16fefd 0000 000000000000 0101')
              + b'\x01' + bytes(0x100))


def test_dtls_record_signature_as_ndpi_checks_it():
    assert klass(udp_frame(DTLS_HELLO)) == 'dtls'
    for version in (b'\xfe\xff', b'\xfe\xfc', b'\x01\x00'):
        assert klass(udp_frame(DTLS_HELLO[:1] + version + DTLS_HELLO[3:])) \
            == 'dtls'
    for kind in (0x14, 0x15, 0x17):
        assert klass(udp_frame(bytes([kind]) + DTLS_HELLO[1:])) == 'dtls'
    assert klass(udp_frame(b'\x13' + DTLS_HELLO[1:])) == 'unknown'
    assert klass(udp_frame(b'\x18' + DTLS_HELLO[1:])) == 'unknown'
    # TLS's version, DTLS's on TCP
    assert klass(udp_frame(DTLS_HELLO[:1] + b'\x03\x03' + DTLS_HELLO[3:])) \
        == 'unknown'
    assert klass(tcp_frame(DTLS_HELLO)) == 'unknown'
    # the record's length (its high byte: byte 12 is past the signature
    # bytes) must fit the payload: 0x01xx + 13 bytes here
    assert klass(udp_frame(DTLS_HELLO[:0x10D])) == 'dtls'
    assert klass(udp_frame(DTLS_HELLO[:0x10C])) == 'unknown'
    assert klass(udp_frame(DTLS_HELLO[:11] + b'\x02' + DTLS_HELLO[12:])) \
        == 'unknown'
    # a header and no byte after it
    assert klass(udp_frame(DTLS_HELLO[:11] + b'\x00\x00')) == 'unknown'
    assert klass(udp_frame(DTLS_HELLO[:11] + b'\x00\x01\x01')) == 'dtls'


@pytest.mark.parametrize('capture', [
    'dtls2.pcap', 'dtls_old_version.pcapng',
    'dtls_session_id_and_coockie_both.pcap'])
def test_a_flow_that_starts_with_dtls_is_dtls(capture):
    frame = first_payload_frame(capture, folder='ndpi-tuning')
    assert klass(frame) == 'dtls'


def test_stun_then_dtls_is_refined_to_dtls_once():
    model = vtc_model.VtcModel(policy={'stun': 12, 'dtls': 34})
    c = model.counters

    def reply(payload):
        return bytes(Ether() / IP(src='10.0.0.2', dst='10.0.0.1')
                     / UDP(sport=50000, dport=40000) / Raw(payload))

    flow = [udp_frame(STUN_BINDING), reply(STUN_BINDING),
            udp_frame(DTLS_HELLO), reply(DTLS_HELLO)]
    out = [model.process(frame) for frame in flow]
    key = vtc_model.parse(flow[0]).key
    assert model.flow_class(key) == 'dtls'
    assert (c['FLOWS_CLASSIFIED'], c['FLOWS_REFINED']) == (1, 1)
    assert (c['CLASS_FLOWS_STUN'], c['CLASS_FLOWS_DTLS']) == (0, 1)
    # marked by the class before each frame: none, stun, stun, then dtls
    assert [Ether(f)[IP].tos >> 2 for f in out] == [0, 12, 12, 34]
    # counted by the class after: the refining frame is dtls's
    assert (c['CLASS_PACKETS_STUN'], c['CLASS_PACKETS_DTLS']) == (2, 2)
    # STUN over TCP stays STUN (refinable over UDP only, as nDPI's STUN
    # dissector watches UDP flows only): a TLS record does not refine it
    model.process(tcp('PA', STUN_BINDING, sport=3478))
    model.process(tcp('PA', CLIENT_HELLO, sport=3478))
    assert model.flow_class(
        vtc_model.parse(tcp('PA', sport=3478)).key) == 'stun'
    assert (c['CLASS_FLOWS_STUN'], c['FLOWS_REFINED']) == (1, 1)


def test_stun_then_dtls_of_real_captures_is_dtls():
    for name, folder in (('stun_dtls_rtp.pcapng', 'ndpi-more'),
                         ('stun_zoom.pcapng', 'ndpi-tuning'),
                         ('stun_dtls_unidirectional_client.pcap',
                          'ndpi-tuning')):
        model = vtc_model.VtcModel()
        for frame in frames(name, folder):
            model.process(frame)
        assert model.counters['FLOWS_REFINED'] >= 1, name
        assert model.counters['CLASS_FLOWS_DTLS'] >= 1, name


def test_an_evicting_frame_that_ends_its_flow_guesses_it_if_nothing_else():
    model = vtc_model.VtcModel(flow_table_depth=4, flow_timeout=1)
    c = model.counters
    for n in range(4):  # no port of the list: nothing to guess
        model.process(udp_frame(b'', sport=1000 + n, dport=2000), now=0)
    model.process(tcp('R', dport=443), now=5)
    assert c['FLOW_EVICTIONS'] == 1
    assert (c['FLOWS_GUESSED'], c['CLASS_GUESSES_TLS']) == (1, 1)


#: a TLS record header and the start of a ClientHello
CLIENT_HELLO = bytes.fromhex('16030100a5010000a10303') + bytes(8)


def test_http_takes_whole_methods_as_ndpi_lists_them():
    for start in (b'GET / HTTP/1.1', b'PROPFIND /d', b'MKCOL /x',
                  b'RPC_IN_DATA /rpc', b'REPORT /c', b'HTTP/1.1 207',
                  b'OPTIONS * HTTP/1.1'):
        assert klass(tcp_frame(start)) == 'http', start
    for start in (b'GETTING', b'POSTAL code', b'COPYRIGHT 2024',
                  # RTSP shares OPTIONS; a STOMP server's CONNECTED; NATS
                  b'OPTIONS rtsp://10.2.2.2:8554/', b'CONNECTED\nversion',
                  b'CONNECT {"verbose":false}'):
        assert klass(tcp_frame(start)) == 'unknown', start
    assert klass(tcp_frame(b'CONNECT example.org:443 HTTP/1.1')) == 'http'
    # on SIP's port OPTIONS is SIP's, another method is HTTP's
    assert klass(tcp_frame(b'OPTIONS sip:a@b SIP/2.0', dport=5060)) == 'sip'
    assert klass(tcp_frame(b'GET /star-12 HTTP/1.1', sport=5060)) == 'http'


def test_ssdp_notify_is_not_sip():
    assert klass(udp_frame(b'NOTIFY * HTTP/1.1\r\n', 1900, 1900)) == \
        'unknown'
    assert klass(udp_frame(b'NOTIFY sip:bob@example.org SIP/2.0')) == 'sip'


def test_quic_greasing_and_mvfst_versions():
    for version in ('0a0a0a0a', '1a2a3a4a', 'faceb001', 'faceb00e'):
        initial = bytes([0xC3]) + bytes.fromhex(version) + bytes(20)
        assert klass(udp_frame(initial)) == 'quic', version
    for version in ('0a0a0a0b', 'faceb010'):
        initial = bytes([0xC3]) + bytes.fromhex(version) + bytes(20)
        assert klass(udp_frame(initial)) == 'unknown', version


def tcp_flow(*segments, syn=True):
    """A model after one TCP flow's frames: a SYN first if `syn`, then each
    (from_client, payload).
    """
    model = vtc_model.VtcModel()
    client = Ether() / IP(src='10.0.0.1', dst='10.0.0.2')
    server = Ether() / IP(src='10.0.0.2', dst='10.0.0.1')
    if syn:
        model.process(bytes(client / TCP(sport=40000, dport=3306,
                                         flags='S')))
    for from_client, payload in segments:
        packet = (client / TCP(sport=40000, dport=3306, flags='PA')
                  if from_client else
                  server / TCP(sport=3306, dport=40000, flags='PA'))
        model.process(bytes(packet / Raw(payload)))
    return model.flow_class(vtc_model.parse(bytes(
        client / TCP(sport=40000, dport=3306))).key)


def test_tls_after_another_protocols_first_message_is_not_tls():
    """MySQL's greeting, then TLS (mysql.pcapng: nDPI MySQL); a flow whose
    first message is the ClientHello is TLS; STARTTLS greetings and
    messages of zeros or of 1-2 bytes do not count; a flow seen without its
    SYN is not held to its first message.
    """
    greeting = b'\x4a\x00\x00\x00\x0a8.0.36\x00'
    hello = CLIENT_HELLO
    assert tcp_flow((False, greeting), (True, hello)) == 'unknown'
    assert tcp_flow((True, hello)) == 'tls'
    assert tcp_flow((False, greeting), (True, hello), syn=False) == 'tls'
    assert tcp_flow((False, b'* OK IMAP4rev1 ready'),
                    (True, b'a STARTTLS'), (True, hello)) == 'tls'
    assert tcp_flow((False, b'+OK POP3 ready'), (True, hello)) == 'tls'
    assert tcp_flow((True, bytes(12)), (True, hello)) == 'tls'
    assert tcp_flow((True, b'\x00\x00'), (True, hello)) == 'tls'
    # SOCKS4's request, then HTTP through the tunnel (socks.pcap: SOCKS)
    socks = bytes.fromhex('0401005000000001') + b'\x00www.example.com\x00'
    assert tcp_flow((True, socks), (True, b'GET / HTTP/1.1\r\n')) == \
        'unknown'
    # SSH opens its flow too
    assert tcp_flow((True, b'junk junk'), (True, b'SSH-2.0-x')) == 'unknown'
