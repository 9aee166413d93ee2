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
  two 802.1Q/802.1ad tags, IPv4 (any IHL, not a fragment) or IPv6 (fixed
  header), then TCP or UDP.  The L4 header must end inside the frame and
  inside the window; the IP header's length must not put the frame beyond
  max_frame_len.  Anything else is "unparsed": forwarded unchanged, counted.
- The flow key is bidirectional: the (address, port) pair that is smaller
  (address, then port, compared as unsigned integers) is endpoint a.  The
  table stores IPv6 addresses folded to 32 bits (XOR of the four words).
- The table has flow_table_depth entries in 4-way buckets.  A miss takes the
  lowest free way, else the lowest expired way (an eviction), else it fails
  (the frame is forwarded as unknown, nothing is stored).  An entry is
  expired when (now - last_seen) mod 2**16 > flow_timeout, in ticks.
- Only packets with payload are inspected, at most inspect_packets of them
  per flow, with SIGNATURE_BYTES of payload; the first match classifies the
  flow for good.
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

CLASSES = (
    'unknown',
    'http',
    'tls',
    'dns',
    'ssh',
    'quic',
    'sip',
    'rtp',
    'bittorrent',
    'smtp',
    'ntp',
)
CLASS_NUMBER = {name: number for number, name in enumerate(CLASSES)}

FlowKey = collections.namedtuple(
    'FlowKey', 'ip_version proto addr_a port_a addr_b port_b'
)

WINDOW_BYTES = 128
SIGNATURE_BYTES = 12
WAYS = 4
TIMESTAMP_BITS = 16
#: policy register: bit 7 enables marking, bits 5:0 are the DSCP
POLICY_ENABLE = 0x80

ETH_VLAN_TYPES = (0x8100, 0x88A8)
ETH_IPV4, ETH_IPV6 = 0x0800, 0x86DD
TCP, UDP = 6, 17

HTTP_STARTS = (
    b'GET ',
    b'POST',
    b'HEAD',
    b'PUT ',
    b'HTTP',
    b'DELE',
    b'OPTI',
    b'CONN',
    b'PATC',
)
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
BITTORRENT_START = b'\x13BitTorrent '  # the handshake's first 12 bytes

COUNTER_NAMES = (
    'FRAMES', 'BYTES', 'FLOWS_SEEN', 'FLOWS_CLASSIFIED', 'FLOW_OCCUPANCY',
    'FLOW_INSERTIONS', 'FLOW_EVICTIONS', 'FLOW_FAILED_INSERTIONS',
    'UNPARSED_FRAMES', 'OVERSIZE_FRAMES',
) + tuple('CLASS_PACKETS_%s' % name.upper() for name in CLASSES) \
  + tuple('CLASS_BYTES_%s' % name.upper() for name in CLASSES) \
  + tuple('CLASS_FLOWS_%s' % name.upper() for name in CLASSES[1:])

MASK32 = 0xFFFFFFFF


class FlowState:
    """One flow-table entry."""

    __slots__ = ('key', 'stored_key', 'klass', 'inspected', 'last_seen')

    def __init__(self, key, stored_key, now):
        self.key = key
        self.stored_key = stored_key
        self.klass = 'unknown'
        self.inspected = 0
        self.last_seen = now

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
    )


def _be16(data, offset):
    return data[offset] << 8 | data[offset + 1]


def parse(frame, max_frame_len=9018):
    """Parsed fields of a frame, or None when the module forwards it unparsed.
    """
    captured = min(len(frame), WINDOW_BYTES)
    window = bytes(frame[:captured]) + bytes(WINDOW_BYTES + 64 - captured)
    if captured < 14:
        return None
    ethertype = _be16(window, 12)
    l3 = 14
    for _ in range(2):
        if ethertype in ETH_VLAN_TYPES:
            l3 += 4
            ethertype = _be16(window, l3 - 2)
    if ethertype == ETH_IPV4:
        if window[l3] >> 4 != 4 or window[l3] & 15 < 5:
            return None
        if _be16(window, l3 + 6) & 0x3FFF:
            return None  # a fragment (MF set or a fragment offset)
        l3_header = (window[l3] & 15) * 4
        ip_len = _be16(window, l3 + 2)
        proto = window[l3 + 9]
        src = int.from_bytes(window[l3 + 12:l3 + 16], 'big')
        dst = int.from_bytes(window[l3 + 16:l3 + 20], 'big')
        version = 4
    elif ethertype == ETH_IPV6:
        if window[l3] >> 4 != 6:
            return None
        l3_header = 40
        ip_len = 40 + _be16(window, l3 + 4)
        proto = window[l3 + 6]
        src = int.from_bytes(window[l3 + 8:l3 + 24], 'big')
        dst = int.from_bytes(window[l3 + 24:l3 + 40], 'big')
        version = 6
    else:
        return None
    l4 = l3 + l3_header
    if proto == TCP:
        l4_header = (window[l4 + 12] >> 4) * 4
        if l4_header < 20:
            return None
    elif proto == UDP:
        l4_header = 8
    else:
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
    parsed.l3 = l3
    parsed.version = version
    parsed.payload_len = payload_len
    start = l4 + l4_header
    parsed.payload = window[start:start + SIGNATURE_BYTES]
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


def signature(parsed):
    """The class one payload-carrying packet proves (0 = none); the lowest
    class number wins.
    """
    p = parsed.payload
    tcp, udp = parsed.key.proto == TCP, parsed.key.proto == UDP
    ports = (parsed.sport, parsed.dport)
    upper = bytes(byte & 0xDF for byte in p[:4])
    matches = {
        'http': tcp and 5060 not in ports and _starts(p, HTTP_STARTS),
        'tls': tcp and ((0x14 <= p[0] <= 0x17 and p[1] == 3 and p[2] <= 4)
                        or (p[0] & 0x80 and p[2] == 1 and p[3] == 3
                            and p[4] <= 4)),
        'dns': (udp and 53 in ports and parsed.payload_len >= 12
                and p[2] & 0x78 == 0 and p[4] == 0 and p[5] == 1),
        'ssh': tcp and p[:4] == b'SSH-',
        'quic': udp and ((p[0] & 0x08 and p[9] == ord('Q')
                          and p[10] == ord('0'))
                         or (p[0] & 0xC0 == 0xC0
                             and p[1:5] == b'\x00\x00\x00\x01')
                         or 443 in ports),
        'sip': (udp or (tcp and 5060 in ports)) and _starts(p, SIP_STARTS),
        'rtp': (udp and parsed.payload_len >= 12 and p[0] & 0xC0 == 0x80
                and ((p[1] & 0x7F) <= 34 or (p[1] & 0x7F) >= 96)
                and parsed.sport >= 1024 and parsed.dport >= 1024),
        'bittorrent': tcp and p[:12] == BITTORRENT_START,
        'smtp': tcp and (upper in (b'EHLO', b'HELO')
                         or (p[:4] == b'220 '
                             and (25 in ports or 587 in ports))),
        'ntp': (udp and 123 in ports and parsed.payload_len >= 48
                and 1 <= (p[0] >> 3) & 7 <= 4 and p[0] & 7 != 0),
    }
    for number, name in enumerate(CLASSES[1:], start=1):
        if matches[name]:
            return number
    return 0


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

    def set_policy(self, name, register_value):
        """What a write of `register_value` to the class's POLICY register
        does.
        """
        if name == 'unknown':
            raise ValueError('the unknown class has no policy entry')
        self.policy[CLASS_NUMBER[name]] = register_value & (
            POLICY_ENABLE | 0x3F
        )

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
        return parsed.key if parsed else None

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

    def _lookup(self, parsed):
        """Update the table for one parsed frame; return (class before, class
        after) numbers.
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
                    before == 0
                    and carries_payload
                    and entry.inspected < self.inspect_packets
                ):
                    entry.inspected += 1
                    if match:
                        entry.klass = CLASSES[match]
                        c['FLOWS_CLASSIFIED'] += 1
                        c['CLASS_FLOWS_' + entry.klass.upper()] += 1
                entry.last_seen = self.now
                return before, CLASS_NUMBER[entry.klass]
        c['FLOWS_SEEN'] += 1
        free = [way for way, entry in enumerate(bucket) if entry is None]
        expired = [
            way
            for way, entry in enumerate(bucket)
            if entry and self._expired(entry)
        ]
        if free:
            way = free[0]
            c['FLOW_OCCUPANCY'] += 1
        elif expired:
            way = expired[0]
            c['FLOW_EVICTIONS'] += 1
        else:
            c['FLOW_FAILED_INSERTIONS'] += 1
            return 0, 0
        c['FLOW_INSERTIONS'] += 1
        entry = bucket[way] = FlowState(key, wanted, self.now)
        if carries_payload and self.inspect_packets > 0:
            entry.inspected = 1
            if match:
                entry.klass = CLASSES[match]
                c['FLOWS_CLASSIFIED'] += 1
                c['CLASS_FLOWS_' + entry.klass.upper()] += 1
        return 0, CLASS_NUMBER[entry.klass]

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
        if parsed is None:
            c['UNPARSED_FRAMES'] += 1
            after = 0
        else:
            before, after = self._lookup(parsed)
            policy = self.policy[before]
            if before and policy & POLICY_ENABLE:
                out = mark(frame, parsed.l3, parsed.version, policy & 0x3F)
        name = CLASSES[after].upper()
        c['CLASS_PACKETS_' + name] += 1
        c['CLASS_BYTES_' + name] += len(frame)
        c['FRAMES'] += 1
        c['BYTES'] += len(frame)
        return out
