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

"""Bit-exact Python reference model of region_vtc (hdl/rtl/region_vtc.v), used
only by the tests.

It does what the RTL does, in the same order, with the same hash, bucket and
ageing rules, so output frames and counters can be compared bit for bit
(hdl/README.md, "The virtual Traffic Classifier", is the specification):

- A frame is parsed from its first WINDOW_BYTES (128) bytes: Ethernet, up to
  two 802.1Q/802.1ad tags, a PPPoE session header, IPv4 (any IHL; a first
  fragment is parsed on the bytes it carries, a later one is a FRAGMENT) or
  IPv6 (fixed header), then TCP or UDP; a GTP-U G-PDU (UDP port 2152) is
  decapsulated once, so the inner packet's addresses, ports and payload
  count.  The L4 header must end inside the frame and inside the window;
  the IP header's length must not put the frame beyond max_frame_len.
  Anything else is "unparsed": forwarded unchanged, counted.
- The flow key is bidirectional: the (address, port) pair that is smaller
  (address, then port, compared as unsigned integers) is endpoint a.  The
  table stores IPv6 addresses folded to 32 bits (XOR of the four words).
- The table has flow_table_depth entries in 4-way buckets.  A miss takes the
  lowest free way, else the lowest expired way (an eviction), else it fails
  (the frame is forwarded as unknown, nothing is stored).  An entry is
  expired when (now - last_seen) mod 2**16 > flow_timeout, in ticks.
- Only packets with payload are inspected, at most inspect_packets of them
  per flow, with SIGNATURE_BYTES of payload; the first match classifies the
  flow, except that an HTTP flow that began with CONNECT and an SMTP flow
  stay inspected and are refined to TLS (once) when a TLS record is seen,
  and a STUN flow over UDP to DTLS (once) when a DTLS record is.
  A flow stored by a TCP SYN whose first inspected packet is another
  protocol's message (3 bytes or more, matching nothing, not four zero
  bytes, not a STARTTLS greeting) is not classified later by an HTTP, TLS,
  SSH or SMTP match (OPENING_CLASSES): that is an upgrade (MySQL or RDP to
  TLS) or a tunnel (HTTP through SOCKS), which nDPI names by the first
  protocol.
  UDP RTP is stateful: a candidate packet (RTP header, both ports >= 1024)
  stores its SSRC and sequence number in the flow (RTP_PENDING); a later
  candidate of the same SSRC whose sequence number is 1..16 ahead makes the
  flow rtp; one that repeats the stored sequence number rules RTP out for
  the flow (nDPI's "same seq on consecutive pkts": RTP_OFF, which the RTL
  keeps in the entry's SPOKE bit, unused by UDP flows).  RTP over TCP
  (RFC 4571) stays a one-packet signature.
- A flow that ends (a TCP FIN or RST) or is evicted while unknown is guessed
  by its ports (PORT_GUESSES, from the module catalogue) once: counted in
  FLOWS_GUESSED and CLASS_GUESSES, never changing its class.
- A frame is marked with the DSCP of the class its flow had *before* the
  frame (if that class's policy entry is enabled); it is counted in the
  per-class counters under the class its flow has *after* the frame.

`process(frame, now=None)` takes the timestamp (in ticks of the RTL's
FLOW_TICK_CYCLES-cycle tick counter, register TIMESTAMP) at which the RTL
looks the frame up; None keeps the previous one (0 at start).  Tests run with
timeouts far longer than the simulated time unless they test ageing, where
the gaps are far longer than the timeout.
"""
import collections
import ipaddress

import vtc_names

from nova_fpga import catalogue

#: the class names by number, from the module catalogue's [labels.classes]
CLASSES = tuple(catalogue.load().by_name('vtc').labels['classes'].names)
CLASS_NUMBER = {name: number for number, name in enumerate(CLASSES)}

FlowKey = collections.namedtuple(
    'FlowKey', 'ip_version proto addr_a port_a addr_b port_b'
)

WINDOW_BYTES = 128
#: Ethernet + IPv4 + UDP headers: shorter frames are never parsed
MIN_PARSE_BYTES = 42
SIGNATURE_BYTES = 12
WAYS = 4
TIMESTAMP_BITS = 16
#: policy register: bit 7 enables marking, bits 5:0 are the DSCP
POLICY_ENABLE = 0x80
#: an application's policy (APP_POLICY): bit 6 set, it decides how the
#: application's frames are marked, not their class's
POLICY_DECIDES = 0x40

ETH_VLAN_TYPES = (0x8100, 0x88A8)
ETH_IPV4, ETH_IPV6, ETH_PPPOE_SESSION = 0x0800, 0x86DD, 0x8864
#: PPP protocol numbers -> the ethertype they stand for
PPP_PROTOCOLS = {0x0021: ETH_IPV4, 0x0057: ETH_IPV6}
PPPOE_HEADER = 8  # PPPoE session header (6) + PPP protocol (2)
TCP, UDP = 6, 17
GTP_U_PORT = 2152
GTP_G_PDU = 0xFF
#: GTP-U extension headers longer than this (4-byte units) are not parsed
GTP_MAX_EXTENSION_WORDS = 4
#: parse() answers this for an IPv4 fragment other than the first
FRAGMENT = 'fragment'

#: HTTP's request methods as nDPI's HTTP dissector lists them, each with its
#: space (WebDAV's and RPC over HTTP's included; cut at SIGNATURE_BYTES), and
#: a reply's start
HTTP_STARTS = tuple(word[:12] for word in (
    b'GET ', b'POST ', b'OPTIONS ', b'HEAD ', b'PUT ', b'PATCH ', b'DELETE ',
    b'CONNECT ', b'PROPFIND ', b'PROPPATCH ', b'MKCOL ', b'MOVE ', b'COPY ',
    b'LOCK ', b'UNLOCK ', b'REPORT ', b'RPC_CONNECT ', b'RPC_IN_DATA ',
    b'RPC_OUT_DATA ', b'HTTP/'))
SIP_STARTS = (
    b'SIP/',
    b'INVI',
    b'REGI',
    b'ACK ',
    b'BYE ',
    b'CANC',
    b'OPTI',
    b'NOTI',
    b'SUBS',
    b'MESS',
    b'INFO',
    b'PRAC',
    b'REFE',
    b'UPDA',
    b'PUBL',
)
SIP_KEEPALIVE = b'hello'  # a SIP peer's keep-alive on port 5060
BITTORRENT_START = b'\x13BitTorrent '  # the handshake's first 12 bytes
BITTORRENT_LOCAL_DISCOVERY = b'BT-SEARCH * '  # BEP 14, UDP 6771
#: DHT (BEP 5): a bencoded dictionary whose first key is y's payload a/r/e
DHT_STARTS = (b'd1:a', b'd1:r', b'd1:e')
#: TCP protocols whose first message opens the flow: after another
#: protocol's message, theirs is an upgrade or a tunnel (MySQL or RDP to
#: TLS, HTTP in SOCKS), which nDPI names by the protocol that came first
OPENING_CLASSES = ('http', 'tls', 'ssh', 'smtp')
SPOKE_BYTES = 3
#: greetings of the plain-text protocols that upgrade with STARTTLS (FTP and
#: SMTP, IMAP, POP3): a flow they open may still become TLS
STARTTLS_GREETINGS = (b'220 ', b'* OK', b'+OK ')
UTP_HEADER = 20
UTP_SYN = 4
#: a uTP packet with extensions and no data is at most this long (its
#: header, a selective ACK of up to 32 bytes and another extension)
UTP_MAX_WITH_EXTENSIONS = 64
STUN_COOKIE = b'\x21\x12\xa4\x42'
#: RFC 3489 Binding Request / Response / Error Response
STUN_CLASSIC_TYPES = (0x0001, 0x0101, 0x0111)
STUN_HEADER = 20
#: DTLS record content types (change_cipher_spec, alert, handshake,
#: application_data) and versions as nDPI's is_dtls() takes them: DTLS 1.0,
#: 1.2, 1.3 and OpenSSL's pre-standard 0x0100
DTLS_TYPES = range(0x14, 0x18)
DTLS_VERSIONS = (b'\xfe\xff', b'\xfe\xfd', b'\xfe\xfc', b'\x01\x00')
DTLS_HEADER = 13
QUIC_VERSIONS = (b'\x00\x00\x00\x01', b'\x6b\x33\x43\xcf')  # v1, v2
#: RFC 9000 section 15: versions 0x?a?a?a?a are reserved for forcing version
#: negotiation (clients grease with them)
QUIC_GREASE_MASK, QUIC_GREASE = 0x0F0F0F0F, 0x0A0A0A0A
#: Facebook's mvfst versions, 0xfaceb00x
QUIC_MVFST = 0xFACEB000

TCP_SYN = 0x02
#: TCP flags that end a flow: FIN, RST
TCP_END_FLAGS = 0x05
#: a later RTP packet of the same SSRC confirms when its sequence number is
#: this many ahead at most (and at least 1), modulo 2**16
RTP_SEQUENCE_WINDOW = 16
#: refinement: a classified flow that may still change class (REFINE) takes
#: the class of the first record of one of these that follows: an HTTP
#: CONNECT tunnel's or a STARTTLS session's TLS, a STUN flow's DTLS (as
#: nDPI's STUN dissector switches a flow to DTLS); TLS is TCP's and DTLS
#: UDP's, and a flow refines only from classes of its transport (below)
REFINED_CLASSES = ('tls', 'dtls')

#: (transport, port) -> class, from the catalogue's [port_guesses] (the
#: lowest class number wins when both ports are listed)
PORT_GUESSES = {
    (guess.transport, guess.port): guess.label
    for guess in reversed(catalogue.load().by_name('vtc').port_guesses)
}

COUNTER_NAMES = (
    'FRAMES', 'BYTES', 'FLOWS_SEEN', 'FLOWS_CLASSIFIED', 'FLOWS_GUESSED',
    'FLOWS_REFINED', 'FLOW_OCCUPANCY',
    'FLOW_INSERTIONS', 'FLOW_EVICTIONS', 'FLOW_FAILED_INSERTIONS',
    'UNPARSED_FRAMES', 'OVERSIZE_FRAMES', 'FRAGMENT_FRAMES', 'FRAGMENT_BYTES',
    # flows given an application of the table (1..MAX_APPLICATIONS); names not
    # read because the module's name extractor was full (the model reads
    # every name: 0)
    'FLOWS_NAMED', 'NAMES_SKIPPED',
) + tuple('CLASS_PACKETS_%s' % name.upper() for name in CLASSES) \
  + tuple('CLASS_BYTES_%s' % name.upper() for name in CLASSES) \
  + tuple('CLASS_FLOWS_%s' % name.upper() for name in CLASSES[1:]) \
  + tuple('CLASS_GUESSES_%s' % name.upper() for name in CLASSES[1:])

MASK32 = 0xFFFFFFFF


class FlowState:
    """One flow-table entry."""

    __slots__ = ('key', 'stored_key', 'klass', 'inspected', 'last_seen',
                 'rtp_pending', 'rtp_ssrc', 'rtp_seq', 'guessed', 'refine',
                 'spoke', 'opened', 'application', 'name_tries', 'rtp_off')

    def __init__(self, key, stored_key, now):
        self.key = key
        self.stored_key = stored_key
        self.klass = 'unknown'
        self.inspected = 0
        self.last_seen = now
        #: an RTP candidate was seen: its SSRC and sequence number
        self.rtp_pending = False
        self.rtp_ssrc = 0
        self.rtp_seq = 0
        #: guessed by port once
        self.guessed = False
        #: still inspected: may become one of REFINED_CLASSES
        self.refine = False
        #: the flow's first message was another protocol's (OPENING_CLASSES)
        self.spoke = False
        #: a UDP flow's RTP candidate repeated the stored sequence number of
        #: its SSRC: never rtp (the RTL keeps it in SPOKE, a TCP flow's bit)
        self.rtp_off = False
        #: stored by a TCP SYN: its first payload is its first message
        self.opened = False
        #: the application its host name named (vtc_names; 0: none), None
        #: while no name was found; packets looked at for one
        self.application = None
        self.name_tries = 0

    def __repr__(self):
        return 'FlowState(%s, %s, inspected=%d)' % (
            self.key,
            self.klass,
            self.inspected,
        )


class Parsed:
    """What the RTL's parser extracts from a frame's window."""

    __slots__ = (
        'key',
        'l3',
        'version',
        'payload_len',
        'payload',
        'sport',
        'dport',
        'end',
        'syn',
        'start',
    )


def _be16(data, offset):
    return data[offset] << 8 | data[offset + 1]


def _link(window):
    """(L3 offset, ethertype) of the IP header the link layer carries: up to
    two VLAN tags, then optionally a PPPoE session header (its PPP protocol
    stands for the ethertype); None for a PPPoE frame that carries no IP.
    """
    ethertype = _be16(window, 12)
    l3 = 14
    for _ in range(2):
        if ethertype in ETH_VLAN_TYPES:
            l3 += 4
            ethertype = _be16(window, l3 - 2)
    if ethertype == ETH_PPPOE_SESSION:
        ethertype = PPP_PROTOCOLS.get(_be16(window, l3 + 6))
        if window[l3] != 0x11 or window[l3 + 1] != 0 or ethertype is None:
            return None
        l3 += PPPOE_HEADER
    return l3, ethertype


def _ip(window, l3, ethertype):
    """(version, header length, IP length, protocol, source, destination,
    fragment) of the IP header at l3, fragment = (MF, offset != 0); None
    when it is not IPv4/IPv6.
    """
    if ethertype == ETH_IPV4:
        if window[l3] >> 4 != 4 or window[l3] & 15 < 5:
            return None
        flags = _be16(window, l3 + 6)
        return (4, (window[l3] & 15) * 4, _be16(window, l3 + 2),
                window[l3 + 9],
                int.from_bytes(window[l3 + 12:l3 + 16], 'big'),
                int.from_bytes(window[l3 + 16:l3 + 20], 'big'),
                (bool(flags & 0x2000), bool(flags & 0x1FFF)))
    if ethertype == ETH_IPV6:
        if window[l3] >> 4 != 6:
            return None
        return (6, 40, 40 + _be16(window, l3 + 4), window[l3 + 6],
                int.from_bytes(window[l3 + 8:l3 + 24], 'big'),
                int.from_bytes(window[l3 + 24:l3 + 40], 'big'),
                (False, False))
    return None


def _gtp_inner(window, l4):
    """The L3 offset and ethertype of the packet a GTP-U G-PDU at UDP offset
    l4 carries: version 1, PT 1, message type 0xFF; 4 more header bytes when
    any of E/S/PN is set; with E and a next extension type, one extension
    header (1..GTP_MAX_EXTENSION_WORDS words) that must end the chain.  None
    when it is no G-PDU, (None, None) for a G-PDU the vTC does not unpack.
    """
    gtp = l4 + 8
    flags = window[gtp]
    if flags >> 4 != 0x3 or window[gtp + 1] != GTP_G_PDU:
        return None
    inner = gtp + 8
    if flags & 0x07:
        inner += 4
    if flags & 0x04 and window[gtp + 11]:
        words = window[gtp + 12]
        if not 1 <= words <= GTP_MAX_EXTENSION_WORDS:
            return None, None
        inner += 4 * words
        if window[inner - 1]:
            return None, None  # a chain deeper than one extension header
    version = window[inner] >> 4
    ethertype = {4: ETH_IPV4, 6: ETH_IPV6}.get(version)
    return (inner, ethertype) if ethertype else (None, None)


def _l4_header(window, l4, proto):
    if proto == TCP:
        header = (window[l4 + 12] >> 4) * 4
        return header if header >= 20 else None
    return 8 if proto == UDP else None


def parse(frame, max_frame_len=9018):
    """Parsed fields of a frame, FRAGMENT for an IPv4 fragment other than the
    first, or None when the module forwards it unparsed.

    A GTP-U G-PDU is parsed as the packet it carries (key, ports, payload),
    but `l3` and `version` stay the outer IP header's: marking rewrites the
    header the network sees.
    """
    captured = min(len(frame), WINDOW_BYTES)
    window = bytes(frame[:captured]) + bytes(WINDOW_BYTES + 64 - captured)
    if captured < MIN_PARSE_BYTES:
        return None
    link = _link(window)
    if link is None:
        return None
    outer_l3, ethertype = link
    outer = _ip(window, outer_l3, ethertype)
    if outer is None:
        return None
    if outer[6][1]:
        return FRAGMENT
    if outer_l3 + outer[2] > max_frame_len:
        return None
    l3, ip = outer_l3, outer
    if ip[3] == UDP and ip[6] == (False, False):
        l4 = l3 + ip[1]
        if GTP_U_PORT in (_be16(window, l4), _be16(window, l4 + 2)):
            tunnel = _gtp_inner(window, l4)
            if tunnel == (None, None):
                return None
            if tunnel:
                l3 = tunnel[0]
                if l3 + 28 > WINDOW_BYTES:
                    return None  # no IP and UDP header would fit
                ip = _ip(window, l3, tunnel[1])
                if ip is None:
                    return None
                if ip[6][1]:
                    return FRAGMENT
    version, l3_header, ip_len, proto, src, dst, _ = ip
    l4 = l3 + l3_header
    l4_header = _l4_header(window, l4, proto)
    if l4_header is None:
        return None
    if l4 + l4_header > captured or l3 + ip_len > max_frame_len:
        return None
    payload_len = ip_len - l3_header - l4_header
    if payload_len < 0:
        return None
    parsed = Parsed()
    parsed.sport, parsed.dport = _be16(window, l4), _be16(window, l4 + 2)
    if (src, parsed.sport) <= (dst, parsed.dport):
        a, b = (src, parsed.sport), (dst, parsed.dport)
    else:
        a, b = (dst, parsed.dport), (src, parsed.sport)
    address = ipaddress.IPv4Address if version == 4 else ipaddress.IPv6Address
    parsed.key = FlowKey(
        version, proto, address(a[0]), a[1], address(b[0]), b[1]
    )
    parsed.l3 = outer_l3
    parsed.version = outer[0]
    parsed.payload_len = payload_len
    start = l4 + l4_header
    parsed.payload = window[start:start + SIGNATURE_BYTES]
    parsed.start = start
    parsed.end = proto == TCP and bool(window[l4 + 13] & TCP_END_FLAGS)
    parsed.syn = proto == TCP and bool(window[l4 + 13] & TCP_SYN)
    return parsed


def fold(address):
    """A stored address: IPv4 as is, IPv6 as the XOR of its four 32-bit words.
    """
    value = int(address)
    if address.version == 4:
        return value
    return (value >> 96 ^ value >> 64 ^ value >> 32 ^ value) & MASK32


def stored_key(key):
    """The 105-bit key the table stores: {is_ipv6, proto, addr_a, port_a,
    addr_b, port_b}.
    """
    return (
        (key.ip_version == 6) << 104
        | key.proto << 96
        | fold(key.addr_a) << 64
        | key.port_a << 48
        | fold(key.addr_b) << 16
        | key.port_b
    )


def crc32(value, bits=105):
    """CRC-32 of a `bits`-bit value: polynomial 0x04C11DB7, preset to ones, MSB
    first, no final XOR (CRC-32/MPEG-2 for whole bytes).
    """
    crc = MASK32
    for n in range(bits - 1, -1, -1):
        feedback = crc >> 31 ^ value >> n & 1
        crc = crc << 1 & MASK32
        if feedback:
            crc ^= 0x04C11DB7
    return crc


def bucket_index(key, buckets):
    """The RTL's bucket of a canonical key: the low bits of the stored key's
    CRC-32 (buckets is a power of two).
    """
    return crc32(stored_key(key)) & (buckets - 1)


def _starts(payload, prefixes):
    return payload[:4] in prefixes


def _rtp_header(header):
    """An RTP header's first two bytes: version 2, a static audio/video
    payload type (0..34) or a dynamic one (96..127).
    """
    kind = header[1] & 0x7F
    return header[0] & 0xC0 == 0x80 and (kind <= 34 or kind >= 96)


def _stun(p, payload_len):
    """A STUN message: RFC 5389 (type's top bits 00, the magic cookie, a
    length that fits the payload) or a classic RFC 3489 Binding message whose
    length is exactly the payload's after the 20-byte header.
    """
    length = _be16(p, 2)
    if p[0] & 0xC0 == 0 and p[4:8] == STUN_COOKIE:
        return length + STUN_HEADER <= payload_len
    return (_be16(p, 0) in STUN_CLASSIC_TYPES
            and length + STUN_HEADER == payload_len)


def _dtls(p, payload_len):
    """A DTLS record header as nDPI's is_dtls() checks it: a content type of
    20..23, a DTLS version, the record's length (bytes 11..12) non-zero and
    fitting the payload after the 13-byte header.  Byte 12 is past the
    signature bytes: the length is checked by its high byte (byte 11), so
    a record fits when byte 11 * 256 + 13 <= L, and L >= 14.
    """
    return (p[0] in DTLS_TYPES and p[1:3] in DTLS_VERSIONS
            and payload_len > DTLS_HEADER
            and p[11] << 8 | DTLS_HEADER <= payload_len)


def _http(p):
    """An HTTP message's start: a method and its space, as nDPI lists them,
    or HTTP/.  Not RTSP's "OPTIONS rtsp://" (the one method the two share;
    RTSP's others and its replies start with words HTTP has not), nor a
    NATS client's "CONNECT {".  (On port 5060 OPTIONS is SIP's: signature().)
    """
    if not any(p.startswith(word) for word in HTTP_STARTS):
        return False
    if p.startswith(b'OPTIONS '):
        return p[8:12] != b'rtsp'
    if p.startswith(b'CONNECT '):
        return p[8:9] != b'{'
    return True


def _sip(p):
    """A SIP message's start: a method or SIP/.  Not SSDP's "NOTIFY *" (a SIP
    request URI is never '*').
    """
    return _starts(p, SIP_STARTS) and p[:8] != b'NOTIFY *'


def _utp(p, length):
    """A uTP (BEP 29) packet that carries no data: version 1, type ST_FIN,
    ST_STATE, ST_RESET or ST_SYN (1..4), extension 0..2, a non-zero
    connection ID and timestamp, and nothing after its header: exactly the
    20-byte header without an extension, 22..UTP_MAX_WITH_EXTENSIONS bytes
    with one; a SYN's timestamp difference 0.  An ST_DATA packet proves
    nothing alone (a 20-byte header in front of anything: DHCP, WireGuard,
    Zoom and RakNet packets start like one), and a uTP flow acknowledges its
    data with ST_STATE packets.
    """
    kind, extension = p[0] >> 4, p[1]
    if p[0] & 0x0F != 1 or not 1 <= kind <= 4 or extension > 2:
        return False
    if p[2:4] == bytes(2) or p[4:8] == bytes(4):
        return False
    if kind == UTP_SYN and p[8:12] != bytes(4):
        return False
    if extension == 0:
        return length == UTP_HEADER
    return UTP_HEADER + 2 <= length <= UTP_MAX_WITH_EXTENSIONS


def _quic(p):
    """A QUIC long header (form and fixed bits) with a known version: v1, v2,
    an IETF draft (0xff0000xx), a greasing one (0x?a?a?a?a), mvfst's
    (0xfaceb00x) or Google's Q0xx/T0xx; or a gQUIC public
    header with the version flag, a connection ID and Q0xx/T0xx.
    """
    google = (b'Q0', b'T0')
    if p[0] & 0xC0 == 0xC0:
        version = int.from_bytes(p[1:5], 'big')
        return (p[1:5] in QUIC_VERSIONS or p[1:4] == b'\xff\x00\x00'
                or p[1:3] in google
                or version & QUIC_GREASE_MASK == QUIC_GREASE
                or version >> 4 == QUIC_MVFST >> 4)
    return p[0] & 0x89 == 0x09 and p[9:11] in google


def signature(parsed):
    """The class one payload-carrying packet proves (0 = none); the lowest
    class number wins.
    """
    p = parsed.payload
    length = parsed.payload_len
    tcp, udp = parsed.key.proto == TCP, parsed.key.proto == UDP
    ports = (parsed.sport, parsed.dport)
    high_ports = parsed.sport >= 1024 and parsed.dport >= 1024
    upper = bytes(byte & 0xDF for byte in p[:4])
    prefix = _be16(p, 0)  # TCP's RFC 1035 / RFC 4571 2-byte length
    stun = _stun(p, length)
    matches = {
        'http': tcp and _http(p) and not (
            5060 in ports and p.startswith(b'OPTIONS ')),
        'tls': tcp and ((0x14 <= p[0] <= 0x17 and p[1] == 3 and p[2] <= 4)
                        or (p[0] & 0x80 and p[2] == 1 and p[3] == 3
                            and p[4] <= 4)),
        'dns': 53 in ports and (
            (udp and length >= 12 and p[2] & 0x78 == 0 and p[4] == 0
             and p[5] == 1)
            or (tcp and length >= 14 and prefix >= 12
                and p[4] & 0x78 == 0 and p[6] == 0 and p[7] == 1)),
        'ssh': tcp and p[:4] == b'SSH-',
        'quic': udp and _quic(p),
        'sip': ((udp or (tcp and 5060 in ports)) and _sip(p)
                or (5060 in ports and length == len(SIP_KEEPALIVE)
                    and p.startswith(SIP_KEEPALIVE))),
        # UDP RTP takes two packets: rtp_candidate()
        'rtp': high_ports and (tcp and length >= 14 and prefix >= 12
                               and prefix + 2 <= length
                               and _rtp_header(p[2:4])),
        'bittorrent': (
            (tcp and p[:12] == BITTORRENT_START)
            or (udp and (p[:12] == BITTORRENT_LOCAL_DISCOVERY
                         or _starts(p, DHT_STARTS)
                         or (high_ports and _utp(p, length)
                             and not stun)))),
        'smtp': tcp and (upper in (b'EHLO', b'HELO')
                         or (p[:4] == b'220 '
                             and (25 in ports or 587 in ports))),
        'ntp': (udp and 123 in ports and length >= 48
                and 1 <= (p[0] >> 3) & 7 <= 4 and p[0] & 7 != 0),
        'stun': stun,
        'dtls': udp and _dtls(p, length),
    }
    for number, name in enumerate(CLASSES[1:], start=1):
        if matches[name]:
            return number
    return 0


def rtp_candidate(parsed):
    """A UDP packet that may be RTP: both ports >= 1024, L >= 12, an RTP
    header (version 2, a plausible payload type).  No other signature
    matches such a packet (its first byte is 0x80..0xBF).
    """
    return (parsed.key.proto == UDP and parsed.sport >= 1024
            and parsed.dport >= 1024 and parsed.payload_len >= 12
            and _rtp_header(parsed.payload[0:2]))


def rtp_id(parsed):
    """(SSRC, sequence number) of an RTP header at payload byte 0."""
    p = parsed.payload
    return int.from_bytes(p[8:12], 'big'), _be16(p, 2)


def connect(parsed):
    """The payload starts an HTTP CONNECT request (a tunnel: TLS may follow).
    """
    return parsed.payload[:4] == b'CONN'


def refinable(klass, parsed):
    """A flow classified as klass by this packet stays inspected and may be
    refined (REFINED_CLASSES): SMTP (STARTTLS), HTTP that began with
    CONNECT (a tunnel) to TLS, STUN over UDP to DTLS.
    """
    return (klass == 'smtp' or (klass == 'http' and connect(parsed))
            or (klass == 'stun' and parsed.key.proto == UDP))


def port_guess(key):
    """The class a flow's ports guess (PORT_GUESSES), or None."""
    guesses = [PORT_GUESSES.get((key.proto, port))
               for port in (key.port_a, key.port_b)]
    guesses = [CLASS_NUMBER[g] for g in guesses if g]
    return CLASSES[min(guesses)] if guesses else None


def _ones_add(*words):
    total = sum(words)
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def mark(frame, l3, version, dscp):
    """The frame with its DSCP rewritten (ECN kept), IPv4 checksum updated per
    RFC 1624 eq. 3.
    """
    out = bytearray(frame)
    if version == 4:
        old_word = out[l3] << 8 | out[l3 + 1]
        out[l3 + 1] = dscp << 2 | out[l3 + 1] & 3
        new_word = out[l3] << 8 | out[l3 + 1]
        checksum = _be16(out, l3 + 10)
        checksum = (
            ~_ones_add(~checksum & 0xFFFF, ~old_word & 0xFFFF, new_word)
            & 0xFFFF
        )
        out[l3 + 10], out[l3 + 11] = checksum >> 8, checksum & 0xFF
    else:
        out[l3] = out[l3] & 0xF0 | dscp >> 2
        out[l3 + 1] = (dscp & 3) << 6 | out[l3 + 1] & 0x3F
    return bytes(out)


class VtcModel:
    """The classifier as the RTL implements it; see the module docstring."""

    def __init__(
        self,
        flow_table_depth=4096,
        inspect_packets=8,
        max_frame_len=9018,
        policy=None,
        flow_timeout=4096,
        applications=None,
    ):
        if flow_table_depth < WAYS or flow_table_depth & (
            flow_table_depth - 1
        ):
            raise ValueError(
                'flow_table_depth must be a power of two >= %d' % WAYS
            )
        self.buckets = flow_table_depth // WAYS
        self.inspect_packets = inspect_packets
        self.max_frame_len = max_frame_len
        self.flow_timeout = flow_timeout
        self.policy = [0] * len(CLASSES)
        for name, dscp in (policy or {}).items():
            self.set_policy(name, POLICY_ENABLE | dscp)
        self.table = [[None] * WAYS for _ in range(self.buckets)]
        self.counters = dict.fromkeys(COUNTER_NAMES, 0)
        self.now = 0
        #: canonical key -> the class its ports guessed (flows guessed)
        self.guesses = {}
        #: the application table (vtc_names.Table), None: no names (the RTL
        #: has no name matcher yet)
        self.applications = applications
        #: application number -> DSCP policy (as a class's POLICY)
        self.app_policy = {}
        #: application number -> {'flows', 'packets', 'bytes'}
        self.app_counters = collections.defaultdict(
            lambda: dict.fromkeys(('flows', 'packets', 'bytes'), 0))

    def set_policy(self, name, register_value):
        """What a write of `register_value` to the class's POLICY register
        does.
        """
        if name == 'unknown':
            raise ValueError('the unknown class has no policy entry')
        self.policy[CLASS_NUMBER[name]] = register_value & (
            POLICY_ENABLE | 0x3F
        )

    def set_app_policy(self, name, register_value):
        """An application's policy (by its table name), as APP_POLICY:
        with DECIDES set its flows are marked by it (ENABLE: with its DSCP;
        clear: not at all), whatever their class's policy.
        """
        number = self.applications.applications.index(name) + 1
        self.app_policy[number] = register_value & (
            POLICY_ENABLE | POLICY_DECIDES | 0x3F)

    def flow_application(self, key):
        """The application name of a flow (None: none, or no such flow)."""
        wanted = self.canonical(key)
        for entry in self.table[bucket_index(wanted, self.buckets)]:
            if entry and entry.stored_key == stored_key(wanted):
                return self.applications.name(entry.application or 0)
        return None

    def _name(self, entry, parsed, frame):
        """Look for the host name of a flow in its first inspect_packets
        payload packets while it is not named (each is a try, whatever its
        class), in those of a named class (vtc_names); the first name found
        names the application (or none).
        """
        if (self.applications is None or entry.application is not None
                or not parsed.payload_len
                or entry.name_tries >= self.inspect_packets):
            return
        entry.name_tries += 1
        if entry.klass not in vtc_names.EXTRACT:
            return
        host = vtc_names.frame_name(
            entry.klass, frame, parsed.start, parsed.payload_len,
            tcp=parsed.key.proto == TCP)
        if host is not None:
            entry.application = self.applications.lookup(host)
            if entry.application:
                self.app_counters[entry.application]['flows'] += 1
            if 0 < entry.application <= vtc_names.MAX_APPLICATIONS:
                self.counters['FLOWS_NAMED'] += 1

    def clear_counters(self):
        """What CONTROL.CLEAR_COUNTERS does: every counter 0 but
        FLOW_OCCUPANCY (state, not a count), those by application too.
        """
        for name in self.counters:
            if name != 'FLOW_OCCUPANCY':
                self.counters[name] = 0
        self.app_counters.clear()

    @property
    def flows(self):
        return {
            entry.key: entry
            for bucket in self.table
            for entry in bucket
            if entry
        }

    @staticmethod
    def flow_key(frame):
        parsed = parse(frame)
        return parsed.key if isinstance(parsed, Parsed) else None

    @staticmethod
    def canonical(key):
        a, b = (key.addr_a, key.port_a), (key.addr_b, key.port_b)
        if (int(b[0]), b[1]) < (int(a[0]), a[1]):
            a, b = b, a
        return FlowKey(key.ip_version, key.proto, a[0], a[1], b[0], b[1])

    def flow_class(self, key):
        wanted = self.canonical(key)
        for entry in self.table[bucket_index(wanted, self.buckets)]:
            if entry and entry.stored_key == stored_key(wanted):
                return entry.klass
        return 'unknown'

    def _expired(self, entry):
        return (self.now - entry.last_seen) % (
            1 << TIMESTAMP_BITS
        ) > self.flow_timeout

    def _classify(self, entry, klass):
        c = self.counters
        entry.klass = klass
        c['FLOWS_CLASSIFIED'] += 1
        c['CLASS_FLOWS_' + klass.upper()] += 1

    def _inspect(self, entry, parsed, match):
        """One inspected packet of a flow that is unknown or may be refined.
        """
        c = self.counters
        entry.inspected += 1
        if entry.klass != 'unknown':
            # refinement: a TLS record in an HTTP CONNECT tunnel or after
            # STARTTLS, a DTLS record after STUN; the flow moves from its
            # class to the record's, counted once
            if CLASSES[match] in REFINED_CLASSES:
                name = 'CLASS_FLOWS_' + entry.klass.upper()
                c[name] = c[name] - 1 & MASK32  # wraps as in the RTL
                c['CLASS_FLOWS_' + CLASSES[match].upper()] += 1
                c['FLOWS_REFINED'] += 1
                entry.klass = CLASSES[match]
                entry.refine = False
            return
        if entry.spoke and CLASSES[match] in OPENING_CLASSES:
            match = 0
        candidate = rtp_candidate(parsed)
        ssrc, seq = rtp_id(parsed)
        same = entry.rtp_pending and entry.rtp_ssrc == ssrc
        confirmed = (candidate and same and not entry.rtp_off
                     and 1 <= (seq - entry.rtp_seq)
                     % (1 << 16) <= RTP_SEQUENCE_WINDOW)
        # consecutive RTP packets of one SSRC have different sequence
        # numbers: a repeat rules RTP out (nDPI's rtp.c does the same)
        if candidate and same and seq == entry.rtp_seq:
            entry.rtp_off = True
        if not match and confirmed:
            match = CLASS_NUMBER['rtp']
        if match:
            self._classify(entry, CLASSES[match])
            entry.refine = refinable(entry.klass, parsed)
        elif entry.opened and entry.inspected == 1:
            entry.spoke = (parsed.payload_len >= SPOKE_BYTES
                           and parsed.payload[:4] not in STARTTLS_GREETINGS
                           and parsed.payload[:4] != bytes(4))
        if not match and candidate and (same or not entry.rtp_pending):
            # the first SSRC seen stays (the other direction's does not
            # replace it); its sequence number follows
            entry.rtp_ssrc, entry.rtp_seq = ssrc, seq
        entry.rtp_pending = entry.rtp_pending or candidate

    def _guess(self, entry):
        """Guess an unknown flow by its ports, once; True if a port matched.
        """
        klass = port_guess(entry.key)
        if klass is None:
            return False
        entry.guessed = True
        self.counters['FLOWS_GUESSED'] += 1
        self.counters['CLASS_GUESSES_' + klass.upper()] += 1
        self.guesses[self.canonical(entry.key)] = klass
        return True

    def _lookup(self, parsed, frame):
        """Update the table for one parsed frame; return (class before, class
        after) numbers and the application number before (0: none).
        """
        c = self.counters
        key = parsed.key
        bucket = self.table[bucket_index(key, self.buckets)]
        wanted = stored_key(key)
        carries_payload = parsed.payload_len > 0
        match = signature(parsed) if carries_payload else 0
        for entry in bucket:
            if entry and entry.stored_key == wanted:
                before = CLASS_NUMBER[entry.klass]
                if (
                    (before == 0 or entry.refine)
                    and carries_payload
                    and entry.inspected < self.inspect_packets
                ):
                    self._inspect(entry, parsed, match)
                if parsed.end and entry.klass == 'unknown' \
                        and not entry.guessed:
                    self._guess(entry)
                entry.last_seen = self.now
                application = entry.application or 0
                self._name(entry, parsed, frame)
                return before, CLASS_NUMBER[entry.klass], application
        c['FLOWS_SEEN'] += 1
        free = [way for way, entry in enumerate(bucket) if entry is None]
        expired = [
            way
            for way, entry in enumerate(bucket)
            if entry and self._expired(entry)
        ]
        victim = None
        if free:
            way = free[0]
            c['FLOW_OCCUPANCY'] += 1
        elif expired:
            way = expired[0]
            c['FLOW_EVICTIONS'] += 1
            victim = bucket[way]
        else:
            c['FLOW_FAILED_INSERTIONS'] += 1
            return 0, 0, 0
        c['FLOW_INSERTIONS'] += 1
        # an evicted flow that is still unknown is guessed as it goes; if it
        # was, the new flow is not guessed by this frame (one guess a frame)
        victim_guessed = (victim is not None and victim.klass == 'unknown'
                          and not victim.guessed and self._guess(victim))
        entry = bucket[way] = FlowState(key, wanted, self.now)
        entry.opened = parsed.syn
        if carries_payload and self.inspect_packets > 0:
            self._inspect(entry, parsed, match)
        if parsed.end and entry.klass == 'unknown' and not victim_guessed:
            self._guess(entry)
        self._name(entry, parsed, frame)
        return 0, CLASS_NUMBER[entry.klass], 0

    def process(self, frame, now=None):
        """One frame (no FCS) in, the frame the RTL sends out."""
        if now is not None:
            self.now = now
        frame = bytes(frame)
        c = self.counters
        if len(frame) > self.max_frame_len:
            c['OVERSIZE_FRAMES'] += 1
        parsed = parse(frame, self.max_frame_len)
        out = frame
        c['FRAMES'] += 1
        c['BYTES'] += len(frame)
        if parsed is FRAGMENT:
            c['FRAGMENT_FRAMES'] += 1
            c['FRAGMENT_BYTES'] += len(frame)
            return out
        if parsed is None:
            c['UNPARSED_FRAMES'] += 1
            after = 0
        else:
            before, after, application = self._lookup(parsed, frame)
            policy = self.policy[before] if before else 0
            if self.app_policy.get(application, 0) & POLICY_DECIDES:
                policy = self.app_policy[application]
            if policy & POLICY_ENABLE:
                out = mark(frame, parsed.l3, parsed.version, policy & 0x3F)
            if application:
                counts = self.app_counters[application]
                counts['packets'] += 1
                counts['bytes'] += len(frame)
        name = CLASSES[after].upper()
        c['CLASS_PACKETS_' + name] += 1
        c['CLASS_BYTES_' + name] += len(frame)
        return out
