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

"""The vTC's classes against nDPI's ground truth on the real captures of the
four nDPI folders: pcaps/ndpi, pcaps/ndpi-more, and nDPI's own test captures
split into pcaps/ndpi-tuning and pcaps/ndpi-heldout (never tuned on).

A protocol is covered when the model has its class (NDPI_TO_VTC names it,
vtc_model.CLASSES has it); flows of other protocols, and flows that are not
TCP/UDP (ESP, ICMP, ...), are not counted for agreement, but a covered class
the model gives one of them is a FALSE POSITIVE, and counts against the
class's precision when nDPI judged the flow (Verdict.judged: a protocol
found by DPI, not Unknown, not a guess by port, address or custom rule).
Flows none of whose frames the vTC parses by its specification (in tunnels,
of fragments, cut inside the TCP header) are printed as NOT SEEN and left
out; so are the flows nDPI itself only guessed, printed as NDPI GUESS with
what the vTC says.

Each capture is replayed through the vTC's reference model (default
parameters: the classes the RTL gives, frame for frame); every flow nDPI lists
in the capture's .out file is then looked up in the model's flow table.
Prints, per folder, for the folders tuned on and for all, per protocol, the
flows in the ground truth, those that agree, the flows the vTC puts in the
class and those nDPI names the same (precision), and every disagreement with
its reason; whether the goal (99 % agreement and precision) is met.  Asserts
>= 95 % agreement on the first two folders and the exact lists of
disagreements and false positives (KNOWN_DISAGREEMENTS,
KNOWN_FALSE_POSITIVES).  The same for the IPv6 and QinQ variants of the
captures, which must classify every flow as the original does.  Pure
Python: seconds.
"""
import collections
import dataclasses
import functools
import ipaddress
import sys

import pytest
from scapy.layers.inet import IP
from scapy.layers.inet import TCP
from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1AD
from scapy.layers.l2 import Dot1Q
from scapy.layers.l2 import Ether

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / 'hdl' / 'tests'))
import vtc_captures  # noqa: E402  (hdl/tests holds the cocotb suites' helpers)
from vtc_model import CLASSES  # noqa: E402
from vtc_model import FlowKey  # noqa: E402
from vtc_model import VtcModel  # noqa: E402

pytestmark = pytest.mark.hdl

#: nDPI protocol names -> vTC classes.  nDPI names a flow master.application
#: ("DNS.WhatsApp", "TLS.Google", "QUIC.YouTube"): the master protocol decides,
#: the application does not.  A name missing here (Unknown, OpenVPN,
#: ...), or whose class the model does not have, is not covered by the vTC.
NDPI_TO_VTC = {
    'HTTP': 'http',
    'TLS': 'tls',
    'DNS': 'dns',
    'SSH': 'ssh',
    'QUIC': 'quic',
    'SIP': 'sip',
    'RTP': 'rtp',
    'BitTorrent': 'bittorrent',
    'SMTP': 'smtp',
    'NTP': 'ntp',
    'STUN': 'stun',
    'DTLS': 'dtls',
    # a later, more specific match refines these to TLS, as the vTC does
    # (doc/source/contributor/vtc.rst)
    'HTTP_Connect': 'tls',
    'SMTPS': 'tls',
    # what nDPI names by the port or the content of a flow its HTTP or TLS
    # dissector found: HTTP to a proxy (an absolute URI), SOAP (HTTP with a
    # SOAP body), TLS on the ports of IMAP, POP3 and FTP
    'HTTP_Proxy': 'http',
    'SOAP': 'http',
    'IMAPS': 'tls',
    'POPS': 'tls',
    'FTPS': 'tls',
}

REQUIRED_AGREEMENT = 0.95
#: the two folders the harness began with
ORIGINAL_FOLDERS = ('ndpi', 'ndpi-more')
#: issue 35's goal, printed met or not per protocol
GOAL_AGREEMENT = GOAL_PRECISION = 0.99
#: (capture, flow) the vTC does not see as captured (NOT SEEN): in tunnels,
#: of IPv4 fragments, cut inside the TCP header
UNSEEN_AS_CAPTURED = [
    ('ip_fragmented_garbage.pcap', 1), ('4in4tunnel.pcap', 1),
    ('4in6tunnel.pcap', 1), ('capwap_data.pcapng', 1),
    ('capwap_data.pcapng', 2), ('capwap_data.pcapng', 3),
    ('syslog.pcap', 1), ('tls_change_cipher.pcap', 1),
    ('6in6tunnel.pcap', 1), ('gre.pcapng', 1),
]
#: every covered flow the vTC classifies otherwise than nDPI: (capture,
#: flow) -> (what the vTC says, why)
KNOWN_DISAGREEMENTS = {
    ('quic_sh.pcap', 1): ('unknown', 'QUIC short headers only: no version '
                          'to see (nDPI: three client packets to port 443 '
                          'with one 8-byte connection ID)'),
    ('quic_sh.pcap', 2): ('unknown', 'the same'),
    ('quic_sh.pcap', 3): ('unknown', 'the same'),
    ('radius_false_positive.pcapng', 1): (
        'unknown', 'short headers from the server only (nDPI: QUIC)'),
    ('rdp_over_tls.pcap', 1): (
        'unknown', "RDP's X.224 request, then TLS: an upgrade, which the vTC "
        'leaves to the first protocol; nDPI says TLS.RDP here and RDP in '
        'rdp.pcap, the same exchange'),
    ('soap.pcap', 1): ('unknown', 'its first payload is UTF-16 text, then '
                       'a POST: held to the first message'),
    ('soap.pcap', 2): ('unknown', 'the capture starts inside the body: no '
                       'HTTP header in the packets inspected'),
    ('dns_invert_query.pcapng', 1): (
        'unknown', 'an inverse query (opcode 1, obsolete): the vTC takes '
        'standard queries only (held out: not tuned on)'),
}
#: every flow the vTC puts in a class nDPI judges to be another protocol:
#: (capture, flow) -> (what the vTC says, why)
KNOWN_FALSE_POSITIVES = {
    ('lru_ipv6_caches.pcapng', 1): (
        'stun', 'STUN on 3478, then RTCP (nDPI: RTCP; held out)'),
}
#: the folders the signatures were chosen on (pcaps/ndpi-heldout never)
TUNED_ON = ORIGINAL_FOLDERS + (vtc_captures.TUNING_FOLDER,)
#: nDPI's name for a flow it could not classify
NDPI_UNKNOWN = 'Unknown'
#: nDPI's confidence for a flow it named by its port alone (a guess)
NDPI_PORT_GUESS = 'Match by port'
#: nDPI's confidences for flows it named without looking at their payload:
#: by port, by address (its IP lists) or by an operator's rule (its
#: protos.txt) -- guesses, no ground truth
NDPI_GUESSES = (NDPI_PORT_GUESS, 'Match by IP', 'Match by custom rule')
#: the transports the vTC keys flows on; nDPI's others are not covered
TRANSPORT = {'TCP': 6, 'UDP': 17}
SIGNATURE_PREVIEW = 12
UDP_HEADER_LEN = 8
#: the frame's first bytes the vTC's parser sees
WINDOW_BYTES = 128
COMBINED = 'all folders'
TUNED = 'the folders tuned on'


def vtc_class(ndpi_protocol):
    """The vTC class nDPI's protocol name stands for, or None when not covered
    (no such class in the model).
    """
    klass = NDPI_TO_VTC.get(ndpi_protocol.split('.', 1)[0])
    return klass if klass in CLASSES else None


def covered(flow):
    """The vTC class a flow of the ground truth must get, or None."""
    return vtc_class(flow.protocol) if flow.transport in TRANSPORT else None


@dataclasses.dataclass
class Verdict:
    folder: str
    capture: str
    flow: vtc_captures.NdpiFlow
    expected: str  # vTC class, None = not covered
    got: str  # None: not TCP/UDP, no flow of the model's
    reason: str = ''
    #: none of its frames is one the vTC parses (by its specification,
    #: e.g. more than two tags): the module never sees the flow, so it is
    #: reported apart and not counted for or against a protocol
    unparsed: bool = False
    #: the class the vTC guessed by port when the flow ended or was evicted
    #: unknown (FLOWS_GUESSED): reported apart, never counted as agreement
    guess: str = None

    @property
    def agrees(self):
        return self.got == self.expected

    @property
    def ndpi_guess(self):
        """nDPI matched the flow by its port only: a guess, not ground truth,
        so it is reported apart and not counted for or against a protocol.
        """
        return self.flow.confidence in NDPI_GUESSES

    @property
    def false_positive(self):
        """An uncovered flow the model puts in a covered class."""
        return not self.expected and self.got not in (None, 'unknown')

    @property
    def judged(self):
        """The vTC named a class and nDPI's verdict on the flow is ground
        truth to hold it against: a protocol nDPI found by more than a port
        (Unknown is no verdict), on a flow the vTC sees.
        """
        return (self.got not in (None, 'unknown') and not self.unparsed
                and not self.ndpi_guess
                and self.flow.protocol.split('.', 1)[0] != NDPI_UNKNOWN)


def flow_key(flow, address=lambda a: a):
    """The model's key for an nDPI flow, endpoints through `address` (for the
    variants).
    """
    a, b = (address(flow.addr_1), flow.port_1), (
        address(flow.addr_2),
        flow.port_2,
    )
    if (int(b[0]), b[1]) < (int(a[0]), a[1]):
        a, b = b, a
    return FlowKey(
        a[0].version, TRANSPORT[flow.transport], a[0], a[1], b[0], b[1]
    )


#: A TCP/UDP frame as scapy reads it (through encapsulations the vTC does not
#: parse).
Dissected = collections.namedtuple(
    'Dissected', 'frame transport ends layers payload'
)


def dissect(frames):
    """Every TCP/UDP frame of a capture, dissected once.  A runt (no whole
    Ethernet header) is none; scapy takes a frame cut inside its TCP/UDP
    header as raw bytes, so that is none either.
    """
    out = []
    for frame in frames:
        packet = vtc_captures.ethernet(frame)
        if packet is None:
            continue
        ip = packet.getlayer(IP) or packet.getlayer(IPv6)
        if ip is None or not isinstance(ip.payload, (TCP, UDP)):
            continue
        transport = ip.payload
        if isinstance(ip, IP):
            segment = bytes(ip)[ip.ihl * 4:ip.len]
        else:
            segment = bytes(ip)[40:40 + ip.plen]
        header = (transport.dataofs * 4 if isinstance(transport, TCP)
                  else UDP_HEADER_LEN)
        out.append(
            Dissected(
                frame=frame,
                transport='TCP' if isinstance(transport, TCP) else 'UDP',
                ends=frozenset(
                    {
                        (ipaddress.ip_address(ip.src), transport.sport),
                        (ipaddress.ip_address(ip.dst), transport.dport),
                    }
                ),
                layers=' / '.join(
                    layer.__name__
                    for layer in packet.layers()
                    if layer.__name__ not in ('Raw', 'Padding')
                ),
                payload=segment[header:],
            )
        )
    return out


def frames_of(flow, dissected, address):
    """The dissected frames of one nDPI flow (endpoints through `address`)."""
    ends = {
        (address(flow.addr_1), flow.port_1),
        (address(flow.addr_2), flow.port_2),
    }
    return [
        d
        for d in dissected
        if d.transport == flow.transport and d.ends == ends
    ]


def reason(flow, key, got, dissected, address, inspect_packets):
    """Why the model's class differs from nDPI's, as far as the frames tell."""
    mine = frames_of(flow, dissected, address)
    if not mine:
        return 'no frame of this flow in the capture'
    parsed = [d.payload for d in mine if VtcModel.flow_key(d.frame) == key]
    if not parsed:
        return (
            'none of its %d frames is parsed by the vTC (%s: an '
            'encapsulation the vTC forwards unparsed)'
            % (len(mine), mine[0].layers)
        )
    inspected = [payload for payload in parsed if payload][:inspect_packets]
    if not inspected:
        return 'no payload in any of its %d frames: nothing to inspect' % len(
            parsed
        )
    preview = ', '.join(repr(p[:SIGNATURE_PREVIEW]) for p in inspected[:3])
    by_port = (' (nDPI itself named it by %s)' % flow.confidence
               if flow.confidence in NDPI_GUESSES else '')
    if got == 'unknown':
        return (
            'no signature matched in its first %d payload packets%s; '
            'payloads start %s'
            % (len(inspected), by_port, preview)
        )
    return (
        'a %s signature matched first in its first %d payload packets%s; '
        'payloads start %s' % (got, len(inspected), by_port, preview)
    )


def replay(frames):
    model = VtcModel()
    for frame in frames:
        model.process(frame)
    return model


VARIANTS = {
    'IPv4 (as captured)': (lambda frames: frames, lambda a: a),
    'IPv6 variant': (vtc_captures.ipv6_variant,
                     vtc_captures.ipv6_variant_address),
    'QinQ variant': (vtc_captures.qinq_variant, lambda a: a),
}
AS_CAPTURED = 'IPv4 (as captured)'
#: (capture, flow) of the TCP/UDP flows of nDPI's that no frame carries as a
#: TCP/UDP segment scapy takes apart: one inside GTP-U (nDPI looks inside the
#: tunnel, the vTC does not), one of IPv4 fragments
FLOWS_IN_FRAMES_NOT_TCP_UDP = [
    ('ip_fragmented_garbage.pcap', 1),
    ('ipv6_in_gtp.pcap', 1),
    # ndpi-tuning: inside IP-in-IP, CAPWAP and GRE tunnels; cut by the
    # capture's snap length inside the TCP header (syslog.pcap's flow 1:
    # its only frame is an IPv6 packet with no room for its header)
    ('4in4tunnel.pcap', 1),
    ('capwap_data.pcapng', 1),
    ('capwap_data.pcapng', 2),
    ('capwap_data.pcapng', 3),
    ('http_origin_different_than_host.pcap', 1),
    ('syslog.pcap', 1),
    ('tls_change_cipher.pcap', 1),
    ('tls_invalid_reads.pcap', 2),
    # ndpi-heldout, the same kinds
    ('6in6tunnel.pcap', 1),
    ('false_positives.pcapng', 3),
    ('false_positives.pcapng', 4),
    ('false_positives.pcapng', 5),
    ('gre.pcapng', 1),
    ('ja3_lots_of_cipher_suites_2_anon.pcap', 1),
    ('rtmp.pcap', 1),
    ('rtmp.pcap', 2),
]
#: TCP/UDP flows whose frames scapy takes apart but the vTC by its
#: specification does not: IPv4 inside IPv6 (the vTC parses one IP header)
FLOWS_THE_VTC_DOES_NOT_PARSE = [('4in6tunnel.pcap', 1)]


@functools.lru_cache(maxsize=None)
def captured(path):
    """A capture's frames (and what its file's end cut off), read once."""
    return vtc_captures.read_capture(path)


def cut_short():
    """What the end of each cut capture file cut off (printed, never dropped
    in silence).
    """
    return [capture.cut_short
            for folder in vtc_captures.NDPI_FOLDERS
            for capture in map(captured,
                               vtc_captures.ndpi_capture_paths(folder))
            if capture.cut_short]


def _verdict(folder, path, flow, frames, model, address, seen):
    """The Verdict on one flow; `seen` is every flow key the model parsed a
    frame of.
    """
    if flow.transport not in TRANSPORT:
        return Verdict(folder, path.name, flow, None, None,
                       'not TCP/UDP: the vTC keys no flow on %s'
                       % flow.transport)
    key = flow_key(flow, address)
    verdict = Verdict(folder, path.name, flow, covered(flow),
                      model.flow_class(key), unparsed=key not in seen,
                      guess=model.guesses.get(VtcModel.canonical(key)))
    if verdict.unparsed or (verdict.expected and not verdict.agrees):
        verdict.reason = reason(flow, key, verdict.got, dissect(frames),
                                address, model.inspect_packets)
    return verdict


@functools.lru_cache(maxsize=None)
def verdicts(variant):
    """A Verdict for every flow of every capture's ground truth, in that
    variant, both folders.
    """
    make, address = VARIANTS[variant]
    out = []
    for folder in vtc_captures.NDPI_FOLDERS:
        for path in vtc_captures.ndpi_capture_paths(folder):
            frames = make(captured(path).frames)
            model = replay(frames)
            seen = {VtcModel.flow_key(frame) for frame in frames}
            out.extend(
                _verdict(folder, path, flow, frames, model, address, seen)
                for flow in vtc_captures.ndpi_flows(
                    vtc_captures.ndpi_result_path(path)))
    return tuple(out)


def agreement(all_verdicts):
    """{vTC class: (flows in ground truth, agreeing)} over the covered flows.
    """
    table = collections.OrderedDict((name, [0, 0]) for name in CLASSES[1:])
    for v in all_verdicts:
        if v.expected and not (v.unparsed or v.ndpi_guess):
            table[v.expected][0] += 1
            table[v.expected][1] += v.agrees
    return {name: tuple(counts) for name, counts in table.items() if counts[0]}


def precision(all_verdicts):
    """{vTC class: (flows the vTC puts in it that nDPI judges, of which
    nDPI names the same class)} (Verdict.judged).
    """
    table = collections.OrderedDict((name, [0, 0]) for name in CLASSES[1:])
    for v in all_verdicts:
        if v.judged:
            table[v.got][0] += 1
            table[v.got][1] += v.agrees
    return {name: tuple(counts) for name, counts in table.items() if counts[0]}


def guesses(all_verdicts):
    """{vTC class: (flows nDPI guessed by port as it, flows the vTC guessed
    by port as it)}: neither counts in agreement().
    """
    table = collections.OrderedDict((name, [0, 0]) for name in CLASSES[1:])
    for v in all_verdicts:
        if v.expected and v.ndpi_guess and not v.unparsed:
            table[v.expected][0] += 1
        if v.guess:
            table[v.guess][1] += 1
    return {name: tuple(counts) for name, counts in table.items()
            if any(counts)}


def by_folder(all_verdicts):
    """{each folder, then the folders tuned on, then COMBINED: its
    verdicts}.
    """
    groups = {folder: [v for v in all_verdicts if v.folder == folder]
              for folder in vtc_captures.NDPI_FOLDERS}
    groups[TUNED] = [v for v in all_verdicts if v.folder in TUNED_ON]
    groups[COMBINED] = list(all_verdicts)
    return groups


def _table(variant, group, group_verdicts):
    captures = len({(v.folder, v.capture) for v in group_verdicts})
    lines = [
        'vTC accuracy against nDPI, %s, %s (%d flows in %d captures, '
        'reference model, default parameters):'
        % (variant, group, len(group_verdicts), captures),
        '  %-11s %8s %6s %7s %8s %6s %9s %11s %10s' % (
            'protocol', 'ground', 'agree', '%', 'vTC says', 'right',
            'precision', 'nDPI guess', 'vTC guess'),
    ]
    agreed = agreement(group_verdicts)
    named = precision(group_verdicts)
    guessed = guesses(group_verdicts)

    def share(part, whole, width):
        return ('%*.1f%%' % (width - 1, 100.0 * part / whole) if whole
                else '%*s' % (width, '-'))
    for name in CLASSES[1:]:
        if name not in agreed and name not in guessed and name not in named:
            continue
        flows, agree = agreed.get(name, (0, 0))
        says, right = named.get(name, (0, 0))
        lines.append('  %-11s %8d %6d %s %8d %6d %s %11d %10d'
                     % ((name, flows, agree, share(agree, flows, 7), says,
                         right, share(right, says, 9))
                        + guessed.get(name, (0, 0))))
    return lines


def _endpoint(address, port):
    """As nDPI prints it: an IPv6 address bracketed."""
    return ('[%s]:%d' if address.version == 6 else '%s:%d') % (address, port)


def _ends(flow):
    return '%s %s %s %s' % (
        flow.transport, _endpoint(flow.addr_1, flow.port_1),
        '<->' if flow.bidirectional else '->',
        _endpoint(flow.addr_2, flow.port_2))


def _flow_line(v):
    """One line for a flow that is not simply covered and agreed on."""
    where = '%s/%s flow %d %s' % (
        v.folder, v.capture, v.flow.number, _ends(v.flow))
    if v.unparsed:
        return '  NOT SEEN %s (nDPI %s): %s; not counted' % (
            where, v.flow.protocol, v.reason)
    if v.expected and v.ndpi_guess:
        return ('  NDPI GUESS %s: nDPI %s, %s (not counted), vTC '
                'says %s%s' % (where, v.flow.protocol,
                               v.flow.confidence.lower(), v.got,
                               ', guesses %s' % v.guess if v.guess else ''))
    if v.guess and not (v.expected and not v.agrees):
        return ('  VTC GUESS %s: vTC says %s, guesses %s by port (not '
                'counted); nDPI %s' % (where, v.got, v.guess,
                                       v.flow.protocol))
    if v.expected:
        return ('  DISAGREE %s (nDPI %s, %d pkts, confidence %s): vTC says '
                '%s%s: %s' % (where, v.flow.protocol, v.flow.packets,
                              v.flow.confidence, v.got,
                              ' (guesses %s by port, not counted)' % v.guess
                              if v.guess else '', v.reason))
    if v.false_positive:
        return ('  FALSE POSITIVE %s: nDPI %s (%s, confidence %s), '
                'vTC says %s' % (where, v.flow.protocol,
                                 'counted against the class' if v.judged
                                 else 'not counted: no verdict',
                                 v.flow.confidence, v.got))
    return '  not covered: %s, nDPI %s, vTC says %s' % (
        where, v.flow.protocol, v.got or v.reason)


def describe(variant, all_verdicts):
    """The per-protocol tables (each folder, then both), every capture cut
    short, false positive, disagreement and flow not covered, as printed
    lines.
    """
    lines = []
    for group, group_verdicts in by_folder(all_verdicts).items():
        lines += _table(variant, group, group_verdicts)
    lines += ['  CUT SHORT %s' % text for text in cut_short()]
    false_positives = [v for v in all_verdicts if v.false_positive]
    lines.append('  false positives (uncovered flows the vTC puts in a '
                 'covered class): %d' % len(false_positives))
    vtc_guesses = [v for v in all_verdicts if v.guess]
    lines.append('  vTC guesses by port (not counted as agreement): %d, of '
                 'which nDPI names the same class: %d'
                 % (len(vtc_guesses),
                    sum(v.guess == v.expected for v in vtc_guesses)))
    lines += [_flow_line(v) for v in all_verdicts
              if v.unparsed or v.ndpi_guess or v.guess
              or not (v.expected and v.agrees)]
    return lines


def goals(all_verdicts):
    """Lines saying, per covered protocol over all folders, whether
    GOAL_AGREEMENT and GOAL_PRECISION are met.
    """
    agreed, named = agreement(all_verdicts), precision(all_verdicts)
    lines = ['  goal, all folders: >= %d %% agreement and >= %d %% '
             'precision per covered protocol'
             % (GOAL_AGREEMENT * 100, GOAL_PRECISION * 100)]
    for name in CLASSES[1:]:
        flows, agree = agreed.get(name, (0, 0))
        says, right = named.get(name, (0, 0))
        short = []
        if flows and agree < GOAL_AGREEMENT * flows:
            short.append('agreement %d/%d' % (agree, flows))
        if says and right < GOAL_PRECISION * says:
            short.append('precision %d/%d' % (right, says))
        if flows or says:
            lines.append('    %-11s %s' % (
                name, 'NOT MET: ' + ', '.join(short) if short else 'met'))
    return lines


def below_required(all_verdicts):
    """{covered class: 'agree/flows'} for those below REQUIRED_AGREEMENT."""
    return {name: '%d/%d' % (agree, flows)
            for name, (flows, agree) in agreement(all_verdicts).items()
            if agree < REQUIRED_AGREEMENT * flows}


def test_mapping_covers_every_class_and_goes_by_master_protocol():
    """Every class of the model has its nDPI name; what is covered is what
    the model has (STUN once the model has a stun class).
    """
    assert set(CLASSES[1:]) <= set(NDPI_TO_VTC.values())
    assert vtc_class('DNS.WhatsApp') == 'dns'
    assert vtc_class('TLS.Google') == 'tls'
    assert vtc_class('QUIC.YouTube') == 'quic'
    assert vtc_class('HTTP.Microsoft') == 'http'
    assert (
        vtc_class('RTP') == 'rtp' and vtc_class('BitTorrent') == 'bittorrent'
    )
    assert vtc_class('STUN.WhatsAppCall') == (
        'stun' if 'stun' in CLASSES else None)
    assert vtc_class('DTLS.GoogleCall') == (
        'dtls' if 'dtls' in CLASSES else None)
    for name in ('Unknown', 'Google', 'OpenVPN', 'IPSec', 'WhatsApp'):
        assert vtc_class(name) is None, name


def _out_file(tmp_path, *lines):
    out = tmp_path / 'capture.pcap.out'
    out.write_text(''.join('\t%d\t%s\n' % (number, line)
                           for number, line in enumerate(lines, start=1)))
    return out


def test_one_way_flows_and_other_transports_are_read(tmp_path):
    """`a -> b` flows, non-TCP/UDP transports and encapsulation-prefixed
    protocols (ipv6_in_gtp.pcap.out) are read; the harness covers no flow
    that is not TCP/UDP, whatever nDPI calls it.
    """
    esp, udp = vtc_captures.ndpi_flows(_out_file(
        tmp_path,
        'ESP [2a01:4c8::1]:0 -> [2a01:4c8::4]:0 [VLAN: 2][proto: '
        'GTP:79/IPSec][Confidence: DPI][1 pkts/166 bytes -> 0 pkts/0 bytes]',
        'UDP 10.0.0.1:5000 -> 10.0.0.2:53 [proto: 5/DNS][Confidence: DPI]'
        '[DPI packets: 1][2 pkts/180 bytes -> 0 pkts/0 bytes]'))
    assert (esp.transport, esp.protocol, esp.vlan, esp.port_1) == (
        'ESP', 'IPSec', 2, 0)
    assert not esp.bidirectional and esp.packets == 1
    assert str(esp.addr_2) == '2a01:4c8::4'
    assert covered(esp) is None
    assert (udp.transport, udp.bidirectional, udp.packets) == ('UDP', False, 2)
    assert covered(udp) == 'dns'
    assert covered(udp._replace(transport='ICMP')) is None


def test_a_flow_line_that_does_not_read_is_an_error(tmp_path):
    out = _out_file(tmp_path, 'UDP 10.0.0.1 <-> 10.0.0.2:53 [proto: 5/DNS]'
                    '[1 pkts/90 bytes <-> 1 pkts/90 bytes]')
    with pytest.raises(ValueError, match='cannot read flow line'):
        vtc_captures.ndpi_flows(out)


def test_ground_truth_is_read_whole():
    """The flow lines read add up to nDPI's own per-protocol totals at the top
    of each file, in all 371 files of the four folders.
    """
    paths = [path for folder in vtc_captures.NDPI_FOLDERS
             for path in vtc_captures.ndpi_capture_paths(folder)]
    assert len(paths) == 371
    for path in paths:
        out = vtc_captures.ndpi_result_path(path)
        totals = {}
        for line in out.read_text(encoding='utf-8').splitlines():
            fields = line.split('\t')
            if len(fields) == 4 and all(f.isdigit() for f in fields[1:]):
                totals[fields[0]] = (int(fields[1]), int(fields[3]))
        counted = collections.defaultdict(lambda: [0, 0])
        for flow in vtc_captures.ndpi_flows(out):
            # nDPI totals a flow under its application (the part after the dot)
            counted[flow.protocol.split('.')[-1]][0] += flow.packets
            counted[flow.protocol.split('.')[-1]][1] += 1
        assert {
            name: tuple(c) for name, c in counted.items()
        } == totals, path.name


def test_ipv6_addresses_in_brackets_are_read(tmp_path):
    out = tmp_path / 'v6.pcap.out'
    out.write_text(
        '\t1\tTCP [2001:db8::1]:443 <-> [2001:db8::2]:51000 '
        '[proto: 91.126/TLS.Google][Confidence: DPI][DPI packets: 5]'
        '[3 pkts/400 bytes <-> 2 pkts/300 bytes]\n'
    )
    (flow,) = vtc_captures.ndpi_flows(out)
    assert str(flow.addr_1) == '2001:db8::1' and flow.port_2 == 51000
    assert flow_key(flow).ip_version == 6 and vtc_class(flow.protocol) == 'tls'


def test_dissect_takes_runts_and_cut_headers():
    """0- and 1-byte frames, a frame cut inside its Ethernet header and one
    cut inside its TCP header are what captures can hold: none is a TCP/UDP
    frame to dissect, and the model forwards them unparsed.
    """
    ether = Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')
    tcp = bytes(ether / IP(src='192.0.2.1', dst='192.0.2.2')
                / TCP(sport=1, dport=2) / b'GET / HTTP/1.1\r\n')
    runts = [b'', b'\x00', tcp[:13], tcp[:14 + 20 + 10]]
    (whole,) = dissect(runts + [tcp])
    assert whole.payload == b'GET / HTTP/1.1\r\n' and whole.transport == 'TCP'
    assert replay(runts).counters['UNPARSED_FRAMES'] == len(runts)
    assert vtc_captures.ipv6_variant(runts) == runts
    assert vtc_captures.qinq_variant(runts[:3]) == runts[:3]


def test_ndpi_flows_are_keyed_like_the_model_keys_their_frames():
    """The key built from an .out line is the one the model gives the flow's
    own frames (so a miss is a misclassification, never a lookup under the
    wrong key).
    """
    unparsed, frameless = [], []
    for folder in vtc_captures.NDPI_FOLDERS:
        for path in vtc_captures.ndpi_capture_paths(folder):
            dissected = dissect(captured(path).frames)
            for flow in vtc_captures.ndpi_flows(
                vtc_captures.ndpi_result_path(path)
            ):
                if flow.transport not in TRANSPORT:
                    continue
                mine = frames_of(flow, dissected, lambda a: a)
                if not mine:
                    frameless.append((path.name, flow.number))
                    continue
                keys = {VtcModel.flow_key(d.frame) for d in mine} - {None}
                if keys:
                    assert keys == {flow_key(flow)}, (path.name, flow.number,
                                                      keys)
                else:
                    unparsed.append((path.name, flow.number))
    # every other TCP/UDP flow has frames the vTC parses (dns.pcap's DNS
    # flow inside PPPoE included)
    assert unparsed == FLOWS_THE_VTC_DOES_NOT_PARSE
    # nDPI's flows in frames scapy does not take apart as TCP/UDP
    assert frameless == FLOWS_IN_FRAMES_NOT_TCP_UDP


def test_false_positives_are_reported_apart():
    flow = vtc_captures.NdpiFlow(1, 'UDP', ipaddress.ip_address('::1'), 1,
                                 ipaddress.ip_address('::1'), 2, True, None,
                                 'OpenVPN', 'DPI', 4, 13)
    quic = Verdict('ndpi-more', 'openvpn.pcap', flow, covered(flow), 'quic')
    unknown = Verdict('ndpi-more', 'openvpn.pcap', flow, None, 'unknown')
    assert quic.false_positive and not unknown.false_positive
    lines = describe(AS_CAPTURED, (quic, unknown))
    assert any(line.startswith('  FALSE POSITIVE ndpi-more/openvpn.pcap '
                               'flow 1') and 'vTC says quic' in line
               for line in lines)
    assert '(uncovered flows the vTC puts in a covered class): 1' in '\n'.join(
        lines)
    esp = Verdict('ndpi-more', 'gtp.pcap', flow._replace(transport='ESP'),
                  None, None, 'not TCP/UDP')
    assert ('  not covered: ndpi-more/gtp.pcap flow 1 ESP [::1]:1 <-> '
            '[::1]:2, nDPI OpenVPN, vTC says not TCP/UDP'
            in describe(AS_CAPTURED, (esp,)))


def test_ndpi_port_guesses_are_reported_apart_and_not_counted():
    flow = vtc_captures.NdpiFlow(10, 'UDP', ipaddress.ip_address('10.0.0.1'),
                                 40461, ipaddress.ip_address('10.0.0.2'), 443,
                                 True, None, 'QUIC', NDPI_PORT_GUESS, 3, 3)
    guess = Verdict('ndpi', 'quic.pcap', flow, covered(flow), 'unknown')
    dpi = Verdict('ndpi', 'quic.pcap', flow._replace(confidence='DPI'),
                  covered(flow), 'unknown')
    assert guess.ndpi_guess and not dpi.ndpi_guess
    assert agreement([guess]) == {}
    assert agreement([guess, dpi]) == {'quic': (1, 0)}
    assert describe(AS_CAPTURED, [guess])[-1] == (
        '  NDPI GUESS ndpi/quic.pcap flow 10 UDP 10.0.0.1:40461 <-> '
        '10.0.0.2:443: nDPI QUIC, match by port (not counted), vTC says '
        'unknown')


def test_vtc_port_guesses_are_reported_apart_and_never_agree():
    flow = vtc_captures.NdpiFlow(3, 'TCP', ipaddress.ip_address('10.0.0.1'),
                                 40000, ipaddress.ip_address('10.0.0.2'), 443,
                                 True, None, 'TLS', 'DPI', 3, 3)
    # nDPI says TLS by DPI, the vTC only guessed tls: a disagreement
    guessed = Verdict('ndpi', 'x.pcap', flow, covered(flow), 'unknown',
                      guess='tls')
    assert not guessed.agrees
    assert agreement([guessed]) == {'tls': (1, 0)}
    assert guesses([guessed]) == {'tls': (0, 1)}
    lines = describe(AS_CAPTURED, [guessed])
    assert ('  tls                1      0    0.0%        0      0         '
            '-           0          1' in lines)
    assert any(line.startswith('  DISAGREE ndpi/x.pcap flow 3') and
               'vTC says unknown (guesses tls by port, not counted)' in line
               for line in lines)
    assert ('  vTC guesses by port (not counted as agreement): 1, of which '
            'nDPI names the same class: 1' in lines)
    # an uncovered flow the vTC guessed is no false positive
    other = Verdict('ndpi', 'x.pcap', flow._replace(protocol='WhatsApp'),
                    None, 'unknown', guess='tls')
    assert not other.false_positive
    assert describe(AS_CAPTURED, [other])[-1] == (
        '  VTC GUESS ndpi/x.pcap flow 3 TCP 10.0.0.1:40000 <-> '
        '10.0.0.2:443: vTC says unknown, guesses tls by port (not counted); '
        'nDPI WhatsApp')


def test_http_connect_and_smtps_are_tls():
    assert vtc_class('HTTP_Connect') == 'tls'
    assert vtc_class('HTTP_Connect.Google') == 'tls'
    assert vtc_class('SMTPS') == 'tls'
    assert vtc_class('SMTP') == 'smtp' and vtc_class('HTTP') == 'http'


def test_accuracy_against_ndpi_per_protocol(report):
    """On every protocol the vTC covers, at least 95 % of nDPI's flows in the
    first two folders get the same class; in all four folders, every
    disagreement and every flow the vTC puts in a class nDPI judges to be
    another is one of the known ones, for the reason given (so a change
    that adds one, or removes one, shows here); the goal, 99 % agreement
    and 99 % precision per protocol, is printed met or not.
    """
    all_verdicts = verdicts(AS_CAPTURED)
    for line in describe(AS_CAPTURED, all_verdicts):
        print(line)
        report(line)
    for line in goals(all_verdicts):
        print(line)
        report(line)
    # the module sees every covered flow but those in tunnels, of IPv4
    # fragments or cut inside their TCP header by the snap length
    assert [(v.capture, v.flow.number) for v in all_verdicts
            if v.unparsed] == UNSEEN_AS_CAPTURED
    assert not cut_short()
    below = below_required([v for v in all_verdicts
                            if v.folder in ORIGINAL_FOLDERS])
    assert not below, (
        'protocols below %d %% agreement with nDPI (the first two folders): '
        '%s (reasons above)' % (REQUIRED_AGREEMENT * 100, below))
    disagreements = {(v.capture, v.flow.number): v.got for v in all_verdicts
                     if v.expected and not (v.unparsed or v.ndpi_guess)
                     and not v.agrees}
    assert disagreements == {flow: got for flow, (got, _) in
                             KNOWN_DISAGREEMENTS.items()}
    false_positives = {(v.capture, v.flow.number): v.got
                       for v in all_verdicts if v.judged and not v.agrees}
    assert false_positives == {flow: got for flow, (got, _) in
                               KNOWN_FALSE_POSITIVES.items()}


def beyond_the_specification(frame):
    """Why the vTC's specification leaves a frame unparsed (more than two
    tags; an L4 header that ends beyond the 128-byte window or the frame),
    worked out with scapy, not with the model; None when it should parse.
    """
    packet = Ether(frame)
    if sum(1 for layer in packet.layers() if layer in (Dot1Q, Dot1AD)) > 2:
        return 'more than two tags'
    ip = next((layer for layer in packet.iterpayloads()
               if isinstance(layer, (IP, IPv6))), None)
    if ip is None:
        return 'no IP header'
    l3 = len(frame) - len(bytes(ip))
    l4 = l3 + (ip.ihl * 4 if isinstance(ip, IP) else 40)
    proto = ip.proto if isinstance(ip, IP) else ip.nh
    if proto == TRANSPORT['TCP']:
        end = l4 + (frame[l4 + 12] >> 4) * 4 if l4 + 12 < len(frame) else None
    elif proto == TRANSPORT['UDP']:
        end = l4 + UDP_HEADER_LEN
    else:
        return 'not TCP/UDP behind the IP header'
    if end is None or end > min(len(frame), WINDOW_BYTES):
        return 'the L4 header ends beyond the %d-byte window or the frame' % (
            WINDOW_BYTES)
    return None


def _same_classes_as_captured(variant, report, unseen=()):
    """Every flow classified as captured, except the `unseen` ones of the
    first two folders and, in the folders of nDPI's test captures, those
    each of whose frames the variant puts beyond what the vTC parses by its
    specification (beyond_the_specification).
    """
    original = verdicts(AS_CAPTURED)
    changed = verdicts(variant)
    for line in describe(variant, changed):
        print(line)
        report(line)
    assert [(v.capture, v.flow.number) for v in changed
            if v.unparsed and v.folder in ORIGINAL_FOLDERS] == list(unseen)
    make, address = VARIANTS[variant]
    for before, v in zip(original, changed):
        if (v.unparsed and not before.unparsed
                and v.folder not in ORIGINAL_FOLDERS):
            path = vtc_captures.realdata_dir() / 'pcaps' / v.folder / \
                v.capture
            mine = frames_of(v.flow, dissect(make(captured(path).frames)),
                             address)
            assert all(beyond_the_specification(d.frame) for d in mine), (
                '%s flow %d is not parsed in the %s, though its frames are '
                'within what the vTC parses'
                % (v.capture, v.flow.number, variant))
    differ = [
        '%s flow %d (%s): %s as captured, %s in the %s'
        % (a.capture, a.flow.number, a.flow.protocol, a.got, b.got, variant)
        for a, b in zip(original, changed)
        if a.got != b.got and not b.unparsed
    ]
    assert len(changed) == len(original)
    assert not differ, differ


def test_ipv6_variant_classifies_every_flow_like_ipv4(report):
    """Classification does not depend on the IP version."""
    _same_classes_as_captured('IPv6 variant', report,
                              unseen=[('ip_fragmented_garbage.pcap', 1)])


def test_qinq_variant_classifies_every_flow_like_the_capture(report):
    """Nor on an 802.1ad + 802.1Q tag pair in front, except where the pair
    makes more tags than the vTC parses: dns.pcap's PPPoE frames already carry
    two 802.1Q tags and ipv6_in_gtp.pcap's frames one, so their variants have
    four and three and stay unparsed.
    """
    _same_classes_as_captured(
        'QinQ variant', report,
        unseen=[('dns.pcap', 1), ('ip_fragmented_garbage.pcap', 1),
                ('ipv6_in_gtp.pcap', 1)])
