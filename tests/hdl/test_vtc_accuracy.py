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

"""The vTC's classes against nDPI's ground truth on the real captures (>= 90 %
per protocol).

Flows none of whose frames the vTC parses by its specification (the DNS flow
dns.pcap carries inside PPPoE, which the module forwards unparsed) are
printed as NOT SEEN and left out of the percentages.

Each shared capture is replayed through the vTC's reference model (default
parameters: the classes the RTL gives, frame for frame); every flow nDPI lists
in the capture's .out file is then looked up in the model's flow table.
Prints, per protocol, the flows in the ground truth, those that agree and
the percentage, and every disagreement with its reason.  The same for the
IPv6 and QinQ variants of the captures, which must classify every flow as
the original does.  Pure Python: a few seconds.
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
#: the application does not.  A name missing here (STUN, Unknown, Google, ...)
#: is not covered by the vTC and not counted.
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
}

REQUIRED_AGREEMENT = 0.90
TRANSPORT = {'TCP': 6, 'UDP': 17}
SIGNATURE_PREVIEW = 12


def vtc_class(ndpi_protocol):
    """The vTC class nDPI's protocol name stands for, or None when not covered.
    """
    return NDPI_TO_VTC.get(ndpi_protocol.split('.', 1)[0])


@dataclasses.dataclass
class Verdict:
    capture: str
    flow: vtc_captures.NdpiFlow
    expected: str  # vTC class, None = not covered
    got: str
    reason: str = ''
    #: none of its frames is one the vTC parses (by its specification,
    #: e.g. PPPoE): the module never sees the flow, so it is reported
    #: apart and not counted for or against a protocol
    unparsed: bool = False

    @property
    def agrees(self):
        return self.got == self.expected


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
    """Every TCP/UDP frame of a capture, dissected once."""
    out = []
    for frame in frames:
        packet = Ether(frame)
        ip = packet.getlayer(IP) or packet.getlayer(IPv6)
        if ip is None or not isinstance(ip.payload, (TCP, UDP)):
            continue
        transport = ip.payload
        if isinstance(ip, IP):
            segment = bytes(ip)[ip.ihl * 4:ip.len]
        else:
            segment = bytes(ip)[40:40 + ip.plen]
        header = (segment[12] >> 4) * 4 if isinstance(transport, TCP) else 8
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
    by_port = (' (nDPI itself matched it by port only)'
               if flow.confidence == 'Match by port' else '')
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
    'IPv6 variant': (vtc_captures.ipv6_variant, vtc_captures.ipv6_address),
    'QinQ variant': (vtc_captures.qinq_variant, lambda a: a),
}


@functools.lru_cache(maxsize=None)
def verdicts(variant):
    """A Verdict for every flow of every capture's ground truth, in that
    variant.
    """
    make, address = VARIANTS[variant]
    out = []
    for path in vtc_captures.ndpi_capture_paths():
        frames = make(vtc_captures.read_frames(path))
        model = replay(frames)
        for flow in vtc_captures.ndpi_flows(
            vtc_captures.ndpi_result_path(path)
        ):
            key = flow_key(flow, address)
            verdict = Verdict(
                path.name,
                flow,
                vtc_class(flow.protocol),
                model.flow_class(key),
            )
            if verdict.expected and not verdict.agrees:
                dissected = dissect(frames)
                verdict.reason = reason(
                    flow,
                    key,
                    verdict.got,
                    dissected,
                    address,
                    model.inspect_packets,
                )
                verdict.unparsed = not any(
                    VtcModel.flow_key(d.frame) == key
                    for d in frames_of(flow, dissected, address))
            out.append(verdict)
    return tuple(out)


def agreement(all_verdicts):
    """{vTC class: (flows in ground truth, agreeing)} over the covered flows.
    """
    table = collections.OrderedDict((name, [0, 0]) for name in CLASSES[1:])
    for v in all_verdicts:
        if v.expected and not v.unparsed:
            table[v.expected][0] += 1
            table[v.expected][1] += v.agrees
    return {name: tuple(counts) for name, counts in table.items() if counts[0]}


def describe(variant, all_verdicts):
    """The per-protocol table and every disagreement, as printed lines."""
    lines = [
        'vTC accuracy against nDPI, %s (%d flows in 9 captures, reference '
        'model, default parameters):' % (variant, len(all_verdicts)),
        '  %-11s %8s %6s %7s' % ('protocol', 'ground', 'agree', '%'),
    ]
    for name, (flows, agree) in agreement(all_verdicts).items():
        lines.append(
            '  %-11s %8d %6d %6.1f%%'
            % (name, flows, agree, 100.0 * agree / flows)
        )
    uncovered = [v for v in all_verdicts if not v.expected]
    for v in uncovered:
        lines.append('  not covered: %s flow %d, nDPI %s, vTC says %s'
                     % (v.capture, v.flow.number, v.flow.protocol, v.got))
    for v in all_verdicts:
        if v.unparsed:
            lines.append(
                '  NOT SEEN %s flow %d %s %s:%d <-> %s:%d (nDPI %s): %s; '
                'not counted'
                % (
                    v.capture,
                    v.flow.number,
                    v.flow.transport,
                    v.flow.addr_1,
                    v.flow.port_1,
                    v.flow.addr_2,
                    v.flow.port_2,
                    v.flow.protocol,
                    v.reason,
                )
            )
        elif v.expected and not v.agrees:
            lines.append(
                '  DISAGREE %s flow %d %s %s:%d <-> %s:%d (nDPI %s, %d pkts, '
                'confidence %s): vTC says %s: %s'
                % (
                    v.capture,
                    v.flow.number,
                    v.flow.transport,
                    v.flow.addr_1,
                    v.flow.port_1,
                    v.flow.addr_2,
                    v.flow.port_2,
                    v.flow.protocol,
                    v.flow.packets,
                    v.flow.confidence,
                    v.got,
                    v.reason,
                )
            )
    return lines


def test_mapping_covers_every_class_and_goes_by_master_protocol():
    assert set(NDPI_TO_VTC.values()) == set(CLASSES) - {'unknown'}
    assert vtc_class('DNS.WhatsApp') == 'dns'
    assert vtc_class('TLS.Google') == 'tls'
    assert vtc_class('QUIC.YouTube') == 'quic'
    assert vtc_class('HTTP.Microsoft') == 'http'
    assert (
        vtc_class('RTP') == 'rtp' and vtc_class('BitTorrent') == 'bittorrent'
    )
    assert vtc_class('STUN') is None and vtc_class('Unknown') is None
    assert vtc_class('Google') is None


def test_ground_truth_is_read_whole():
    """The flow lines read add up to nDPI's own per-protocol totals at the top
    of each file.
    """
    for path in vtc_captures.ndpi_capture_paths():
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


def test_ndpi_flows_are_keyed_like_the_model_keys_their_frames():
    """The key built from an .out line is the one the model gives the flow's
    own frames (so a miss is a misclassification, never a lookup under the
    wrong key).
    """
    unparsed = []
    for path in vtc_captures.ndpi_capture_paths():
        dissected = dissect(vtc_captures.read_frames(path))
        for flow in vtc_captures.ndpi_flows(
            vtc_captures.ndpi_result_path(path)
        ):
            mine = frames_of(flow, dissected, lambda a: a)
            assert mine, (path.name, flow.number)
            keys = {VtcModel.flow_key(d.frame) for d in mine} - {None}
            if keys:
                assert keys == {flow_key(flow)}, (path.name, flow.number, keys)
            else:
                unparsed.append((path.name, flow.number))
    # only the DNS flow carried in PPPoE, which the vTC does not parse
    assert unparsed == [('dns.pcap', 1)]


def test_accuracy_against_ndpi_per_protocol(report):
    """On every protocol the vTC covers, at least 90 % of nDPI's flows get the
    same class.
    """
    variant = 'IPv4 (as captured)'
    all_verdicts = verdicts(variant)
    lines = describe(variant, all_verdicts)
    for line in lines:
        print(line)
        report(line)
    below = {name: '%d/%d' % (agree, flows)
             for name, (flows, agree) in agreement(all_verdicts).items()
             if agree < REQUIRED_AGREEMENT * flows}
    # the flows the module cannot see are exactly the PPPoE-carried one
    assert [
        (v.capture, v.flow.number) for v in all_verdicts if v.unparsed
    ] == [('dns.pcap', 1)]
    assert (
        not below
    ), 'protocols below %d %% agreement with nDPI: %s (reasons above)' % (
        REQUIRED_AGREEMENT * 100,
        below,
    )


def _same_classes_as_captured(variant, report):
    original = verdicts('IPv4 (as captured)')
    changed = verdicts(variant)
    for line in describe(variant, changed):
        print(line)
        report(line)
    differ = [
        '%s flow %d (%s): %s as captured, %s in the %s'
        % (a.capture, a.flow.number, a.flow.protocol, a.got, b.got, variant)
        for a, b in zip(original, changed)
        if a.got != b.got
    ]
    assert len(changed) == len(original)
    assert not differ, differ


def test_ipv6_variant_classifies_every_flow_like_ipv4(report):
    """Classification does not depend on the IP version."""
    _same_classes_as_captured('IPv6 variant', report)


def test_qinq_variant_classifies_every_flow_like_the_capture(report):
    """Nor on an 802.1ad + 802.1Q tag pair in front."""
    _same_classes_as_captured('QinQ variant', report)
