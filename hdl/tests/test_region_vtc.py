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

"""cocotb suite for region_vtc: real captures against the bit-exact model
(hdl/tests/vtc_model.py).

Two builds run it (tests/hdl/test_cocotb.py): the default one (4,096 flows)
runs everything but the table tests; a small one (16 flows, a 64-cycle
tick, a 4-tick timeout) runs the table-full and ageing tests.
"""
import struct

import cocotb
from cocotb.triggers import ClockCycles
from cocotb.triggers import RisingEdge
from cocotbext.axi import AxiLiteBus
from cocotbext.axi import AxiLiteMaster
from cocotbext.axi import AxiResp
from cocotbext.axi import AxiStreamBus
from cocotbext.axi import AxiStreamFrame
from cocotbext.axi import AxiStreamSink
from cocotbext.axi import AxiStreamSource
from scapy.layers.inet import IP
from scapy.layers.inet import TCP
from scapy.layers.inet import UDP
from scapy.layers.l2 import Dot1Q
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from axi_helpers import pauses
from axi_helpers import read_u32
from axi_helpers import seeded_random
from axi_helpers import start
from axi_helpers import write_u32
from nova_fpga import catalogue
import vtc_captures
import vtc_model
import vtc_names

VTC = catalogue.load().by_name('vtc')
REGS = VTC.registers
#: application numbers' names (0: none)
APPLICATIONS = REGS.labels('APP_POLICY')
#: a distinct DSCP per class, so every marked frame shows its flow's class
ALL_MARKED = {
    name: 8 + number for number, name in enumerate(vtc_model.CLASSES) if number
}

FLOW_COUNTERS = {
    'FLOWS_SEEN': REGS.FLOWS_SEEN,
    'FLOWS_CLASSIFIED': REGS.FLOWS_CLASSIFIED,
    'FLOWS_GUESSED': REGS.FLOWS_GUESSED,
    'FLOWS_REFINED': REGS.FLOWS_REFINED,
    'FLOW_OCCUPANCY': REGS.FLOW_OCCUPANCY,
    'FLOW_INSERTIONS': REGS.FLOW_INSERTIONS,
    'FLOW_EVICTIONS': REGS.FLOW_EVICTIONS,
    'FLOW_FAILED_INSERTIONS': REGS.FLOW_FAILED_INSERTIONS,
    'FLOWS_NAMED': REGS.FLOWS_NAMED,
    'NAMES_SKIPPED': REGS.NAMES_SKIPPED,
    'UNPARSED_FRAMES': REGS.UNPARSED_FRAMES,
    'OVERSIZE_FRAMES': REGS.OVERSIZE_FRAMES,
}


def attach(dut):
    source = AxiStreamSource(
        AxiStreamBus.from_prefix(dut, 's_axis'),
        dut.aclk,
        dut.aresetn,
        reset_active_level=False,
    )
    sink = AxiStreamSink(
        AxiStreamBus.from_prefix(dut, 'm_axis'),
        dut.aclk,
        dut.aresetn,
        reset_active_level=False,
    )
    axil = AxiLiteMaster(
        AxiLiteBus.from_prefix(dut, 's_axil'),
        dut.aclk,
        dut.aresetn,
        reset_active_level=False,
    )
    return source, sink, axil


async def read_ok(axil, address):
    value, resp = await read_u32(axil, address)
    assert resp == AxiResp.OKAY, 'read 0x%03X: %s' % (address, resp)
    return value


async def read_u64(axil, lo_address):
    lo = await read_ok(axil, lo_address)
    return await read_ok(axil, lo_address + 4) << 32 | lo


async def start_vtc(dut, expect_clearing=False):
    """Reset, then wait until the flow table has been cleared."""
    source, sink, axil = attach(dut)
    await start(dut)
    status = await read_ok(axil, REGS.STATUS)
    assert (
        bool(status & REGS.bit('STATUS', 'TABLE_CLEARING'))
        or not expect_clearing
    )
    while status & REGS.bit('STATUS', 'TABLE_CLEARING'):
        await ClockCycles(dut.aclk, 64)
        status = await read_ok(axil, REGS.STATUS)
    return source, sink, axil


async def model_for(axil, policy=None):
    """A model with the build's parameters (read from its registers) and the
    policy written.
    """
    model = vtc_model.VtcModel(
        flow_table_depth=await read_ok(axil, REGS.FLOW_TABLE_DEPTH),
        inspect_packets=await read_ok(axil, REGS.INSPECT_PACKETS),
        flow_timeout=await read_ok(axil, REGS.FLOW_TIMEOUT))
    for name, dscp in (policy or {}).items():
        value = REGS.bit('POLICY', 'ENABLE') | dscp
        assert (
            await write_u32(axil, REGS.at('POLICY', name), value)
            == AxiResp.OKAY
        )
        model.set_policy(name, value)
    return model


async def read_counters(axil):
    """Every counter register, by the model's names."""
    counters = {'FRAMES': await read_u64(axil, REGS.FRAMES_LO),
                'BYTES': await read_u64(axil, REGS.BYTES_LO),
                'FRAGMENT_FRAMES': await read_u64(axil,
                                                  REGS.FRAGMENT_FRAMES_LO),
                'FRAGMENT_BYTES': await read_u64(axil, REGS.FRAGMENT_BYTES_LO)}
    for name, offset in FLOW_COUNTERS.items():
        counters[name] = await read_ok(axil, offset)
    for klass in vtc_model.CLASSES:
        counters['CLASS_PACKETS_' + klass.upper()] = await read_u64(
            axil, REGS.at('CLASS_PACKETS', klass))
        counters['CLASS_BYTES_' + klass.upper()] = await read_u64(
            axil, REGS.at('CLASS_BYTES', klass))
    for klass in vtc_model.CLASSES[1:]:
        counters['CLASS_FLOWS_' + klass.upper()] = await read_ok(
            axil, REGS.at('CLASS_FLOWS', klass))
        counters['CLASS_GUESSES_' + klass.upper()] = await read_ok(
            axil, REGS.at('CLASS_GUESSES', klass))
    return counters


async def replay(dut, frames, model, source, sink, now=None):
    """Send frames, compare every output frame with the model's; return the
    outputs.
    """
    expected = [model.process(frame, now) for frame in frames]
    for frame in frames:
        await source.send(AxiStreamFrame(frame))
    received = []
    for index, want in enumerate(expected):
        got = (await sink.recv()).tdata
        assert got == want, 'frame %d of %d differs:\n got  %s\n want %s' % (
            index, len(frames), bytes(got[:64]).hex(), want[:64].hex())
        received.append(bytes(got))
    await ClockCycles(dut.aclk, 40)
    assert sink.empty(), 'more frames came out than went in'
    return received


def marked_classes(frames, outputs):
    """Flow -> class, as the DSCP marks of the output frames show it
    (ALL_MARKED policy).
    """
    by_dscp = {dscp: name for name, dscp in ALL_MARKED.items()}
    classes = {}
    for frame, out in zip(frames, outputs):
        parsed = vtc_model.parse(out)
        if not isinstance(parsed, vtc_model.Parsed) or out == frame:
            continue
        tc = out[parsed.l3 + 1] if parsed.version == 4 else \
            (out[parsed.l3] & 0x0F) << 4 | out[parsed.l3 + 1] >> 4
        classes[parsed.key] = by_dscp[tc >> 2]
    return classes


async def check_against_model(axil, model, frames, outputs, marked=True):
    """Counters equal the model's; every flow's class shown by the marks is the
    model's.
    """
    assert await read_counters(axil) == model.counters
    shown = marked_classes(frames, outputs)
    assert bool(shown) == marked
    for key, klass in shown.items():
        assert model.flow_class(key) == klass, key


def ipv4_header_sum(frame):
    """One's complement sum of a frame's IPv4 header: 0xFFFF when its checksum
    is valid.
    """
    parsed = vtc_model.parse(frame)
    header = frame[parsed.l3:parsed.l3 + (frame[parsed.l3] & 15) * 4]
    return vtc_model._ones_add(
        *struct.unpack('!%dH' % (len(header) // 2), header)
    )


#: cycles from a frame's first beat in to its first beat out, beyond the
#: window's beats (hdl/README.md, "Forwarding")
LATENCY_AFTER_WINDOW = 26
#: a DNS query header: one question
DNS_QUERY = bytes.fromhex('bc1f01000001000000000000')
#: an RTP header (PCMA)
RTP_HEADER = bytes.fromhex('80086fae000004d83796cb71')


def rtp_next(header, step, ssrc=None):
    """An RTP header `step` sequence numbers on (modulo 2**16), of another
    SSRC if given.
    """
    seq = (int.from_bytes(header[2:4], 'big') + step) & 0xFFFF
    ssrc = header[8:12] if ssrc is None else ssrc.to_bytes(4, 'big')
    return header[:2] + seq.to_bytes(2, 'big') + header[4:8] + ssrc \
        + header[12:]


def udp_frame(flow, payload=b'', size=None, dport=30000):
    """An Ethernet/IPv4/UDP frame of flow number `flow`, padded to `size` bytes
    if given.
    """
    packet = (
        Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')
        / IP(src='10.0.%d.%d' % (flow >> 8 & 255, flow & 255), dst='10.1.0.1')
        / UDP(sport=20000, dport=dport)
        / Raw(payload)
    )
    if size is not None:
        packet = packet / Raw(bytes(size - len(packet)))
    return bytes(packet)


def dns_frame(flow, size=None):
    return udp_frame(flow, DNS_QUERY, size, dport=53)


def tcp_frame(flow, flags, payload=b'', sport=40000, dport=50000):
    """An Ethernet/IPv4/TCP frame of flow number `flow`."""
    return bytes(
        Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')
        / IP(src='10.0.%d.%d' % (flow >> 8 & 255, flow & 255), dst='10.1.0.1')
        / TCP(sport=sport, dport=dport, flags=flags)
        / Raw(payload)
    )


async def read_app_counters(axil):
    """APP_FLOWS, APP_PACKETS and APP_BYTES of every application of the
    table, as the model's app_counters: {number: {'flows', 'packets',
    'bytes'}} for those not all 0.
    """
    counters = {}
    for number, name in enumerate(APPLICATIONS[1:], 1):
        counts = {
            'flows': await read_ok(axil, REGS.at('APP_FLOWS', name)),
            'packets': await read_u64(axil, REGS.at('APP_PACKETS', name)),
            'bytes': await read_u64(axil, REGS.at('APP_BYTES', name)),
        }
        if any(counts.values()):
            counters[number] = counts
    return counters


def model_app_counters(model):
    """The model's counts by application, for the applications the
    registers show (not OTHER, a name under another application's).
    """
    return {number: dict(counts)
            for number, counts in model.app_counters.items()
            if 0 < number < len(APPLICATIONS) and any(counts.values())}


#: a TLS record header (handshake, TLS 1.0) and the start of a ClientHello
CLIENT_HELLO = bytes.fromhex('160301020001000200') + bytes(8)


async def clear_counters(axil, model):
    assert (
        await write_u32(
            axil, REGS.CONTROL, REGS.bit('CONTROL', 'CLEAR_COUNTERS')
        )
        == AxiResp.OKAY
    )
    model.clear_counters()


@cocotb.test()
async def registers_follow_the_contract(dut):
    """ID, version, parameters, policy masking; unmapped offsets SLVERR; RO
    writes ignored.
    """
    _, _, axil = await start_vtc(dut, expect_clearing=True)
    assert await read_ok(axil, REGS.MODULE_ID) == VTC.module_id
    assert await read_ok(axil, REGS.VERSION) == VTC.version
    assert await read_ok(axil, REGS.CONTROL) == 0
    assert await read_ok(axil, REGS.STATUS) == 0
    assert await read_ok(axil, REGS.FLOW_TABLE_DEPTH) == 4096
    assert await read_ok(axil, REGS.INSPECT_PACKETS) == 8
    assert await read_ok(axil, REGS.FLOW_TIMEOUT) == 4096
    assert await read_ok(axil, REGS.TIMESTAMP) == 0
    assert await read_counters(axil) == vtc_model.VtcModel().counters

    assert await write_u32(axil, REGS.MODULE_ID, 0x12345678) == AxiResp.OKAY
    assert await read_ok(axil, REGS.MODULE_ID) == VTC.module_id
    assert await write_u32(axil, REGS.FLOWS_SEEN, 7) == AxiResp.OKAY
    assert await read_ok(axil, REGS.FLOWS_SEEN) == 0
    assert (
        await write_u32(axil, REGS.at('CLASS_FLOWS', 'tls'), 7) == AxiResp.OKAY
    )
    assert await read_ok(axil, REGS.at('CLASS_FLOWS', 'tls')) == 0

    for klass in vtc_model.CLASSES[1:]:
        assert await read_ok(axil, REGS.at('POLICY', klass)) == 0
        assert (
            await write_u32(
                axil, REGS.at('POLICY', klass), 0xFFFFFF00 | len(klass)
            )
            == AxiResp.OKAY
        )
        assert await read_ok(axil, REGS.at('POLICY', klass)) == len(klass)
    assert (
        await write_u32(axil, REGS.at('POLICY', 'tls'), 0xFF) == AxiResp.OKAY
    )
    assert await read_ok(axil, REGS.at('POLICY', 'tls')) == 0xBF

    classes = len(vtc_model.CLASSES)
    for offset in (0x30, REGS.POLICY, REGS.POLICY + 4 * classes,
                   REGS.CLASS_PACKETS + 8 * classes,
                   REGS.CLASS_BYTES + 8 * classes, REGS.NAMES_SKIPPED + 4,
                   REGS.CLASS_FLOWS, REGS.CLASS_FLOWS + 4 * classes,
                   REGS.CLASS_GUESSES, REGS.CLASS_GUESSES + 4 * classes,
                   REGS.NAME_TABLE - 4, REGS.NAME_TABLE_DATA + 4,
                   REGS.APP_POLICY, REGS.APP_POLICY + 4 * len(APPLICATIONS),
                   REGS.APP_FLOWS, REGS.APP_FLOWS + 4 * len(APPLICATIONS),
                   REGS.APP_PACKETS, REGS.APP_PACKETS + 4,
                   REGS.APP_PACKETS + 8 * len(APPLICATIONS),
                   REGS.APP_BYTES, REGS.APP_BYTES + 4,
                   REGS.APP_BYTES + 8 * len(APPLICATIONS), 0xFFC):
        assert await read_u32(axil, offset) == (0, AxiResp.SLVERR), hex(offset)
        assert await write_u32(axil, offset, 1) == AxiResp.SLVERR, hex(offset)

    # the policies by application: 0 after the reset, all eight bits kept
    for number, name in enumerate(APPLICATIONS[1:], 1):
        assert await read_ok(axil, REGS.at('APP_POLICY', name)) == 0, name
        assert await write_u32(axil, REGS.at('APP_POLICY', name),
                               0xFFFFFF00 | number * 5) == AxiResp.OKAY
    for number, name in enumerate(APPLICATIONS[1:], 1):
        assert await read_ok(axil, REGS.at('APP_POLICY', name)) == \
            number * 5, name

    # the counters by application: 0 after the reset, read-only
    assert await read_app_counters(axil) == {}
    last = APPLICATIONS[-1]
    for register in ('APP_FLOWS', 'APP_PACKETS', 'APP_BYTES'):
        assert await write_u32(axil, REGS.at(register, last),
                               7) == AxiResp.OKAY
    assert await read_app_counters(axil) == {}


@cocotb.test()
async def real_captures_match_the_model(dut):
    """Every shared capture, random gaps and stalls: frames, counters, classes
    as modelled.
    """
    rng = seeded_random(dut)
    source, sink, axil = await start_vtc(dut)
    model = await model_for(axil, ALL_MARKED)
    source.set_pause_generator(pauses(rng, 0.2))
    sink.set_pause_generator(pauses(rng, 0.3))
    frames = [frame for path in vtc_captures.ndpi_capture_paths()
              for frame in vtc_captures.read_frames(path)]
    outputs = await replay(dut, frames, model, source, sink)
    await check_against_model(axil, model, frames, outputs)
    assert len(model.flows) == 46  # dns.pcap's PPPoE-carried flow included
    assert model.counters['UNPARSED_FRAMES'] == 0

    assert (
        await write_u32(
            axil, REGS.CONTROL, REGS.bit('CONTROL', 'CLEAR_COUNTERS')
        )
        == AxiResp.OKAY
    )
    cleared = await read_counters(axil)
    assert cleared.pop('FLOW_OCCUPANCY') == len(model.flows)
    assert set(cleared.values()) == {0}


def more_capture_paths():
    """The captures of pcaps/ndpi-more, all 17 (the capture reader turns the
    NULL and the Linux cooked capture into Ethernet frames too).
    """
    paths = [out.with_suffix('') for out in sorted(
        (vtc_captures.realdata_dir() / 'pcaps' / 'ndpi-more').glob('*.out'))]
    assert len(paths) == 17, paths
    return paths


@cocotb.test()
async def more_captures_match_the_model(dut):
    """The Ethernet captures of ndpi-more (STUN, GTP-U, fragments, QUIC
    versions, BitTorrent over UDP), random gaps and stalls: frames, counters,
    classes as modelled.
    """
    rng = seeded_random(dut)
    source, sink, axil = await start_vtc(dut)
    model = await model_for(axil, ALL_MARKED)
    source.set_pause_generator(pauses(rng, 0.2))
    sink.set_pause_generator(pauses(rng, 0.3))
    frames = [frame for path in more_capture_paths()
              for frame in vtc_captures.read_frames(path)]
    outputs = await replay(dut, frames, model, source, sink)
    await check_against_model(axil, model, frames, outputs)
    counters = model.counters
    assert counters['FRAGMENT_FRAMES'] == 1248  # ip_fragmented_garbage.pcap
    assert counters['CLASS_FLOWS_STUN'] > 0
    assert counters['CLASS_FLOWS_QUIC'] > 0
    assert sum(counters['CLASS_PACKETS_' + name.upper()]
               for name in vtc_model.CLASSES) \
        + counters['FRAGMENT_FRAMES'] == counters['FRAMES']


@cocotb.test()
async def ipv6_and_qinq_variants_match_the_model(dut):
    """The captures as IPv6 and with 802.1ad + 802.1Q tags: marked and counted
    as modelled.
    """
    source, sink, axil = await start_vtc(dut)
    model = await model_for(axil, ALL_MARKED)
    frames = []
    for path in vtc_captures.ndpi_capture_paths():
        if path.name in ('bittorrent.pcap', 'quic.pcap'):
            # the two large ones: the default-policy replay covers them
            continue
        original = vtc_captures.read_frames(path)
        frames += vtc_captures.ipv6_variant(
            original
        ) + vtc_captures.qinq_variant(original)
    outputs = await replay(dut, frames, model, source, sink)
    await check_against_model(axil, model, frames, outputs)
    assert any(
        vtc_model.parse(out)
        and vtc_model.parse(out).version == 6
        and out != frame
        for frame, out in zip(frames, outputs)
    ), 'no IPv6 frame was marked'


@cocotb.test()
async def policy_writes_change_marking(dut):
    """Unmarked by default; a policy write marks, another changes the DSCP;
    checksums stay right.
    """
    source, sink, axil = await start_vtc(dut)
    model = await model_for(axil)
    paths = {path.name: path for path in vtc_captures.ndpi_capture_paths()}
    ssh = vtc_captures.read_frames(paths['ssh.pcap'])[:40]
    torrent = vtc_captures.read_frames(paths['bittorrent.pcap'])[:40]

    outputs = await replay(dut, ssh, model, source, sink)
    assert outputs == ssh, 'no policy: every frame unchanged'

    for dscp in (46, 10):
        value = REGS.bit('POLICY', 'ENABLE') | dscp
        for klass in ('ssh', 'bittorrent'):
            assert (
                await write_u32(axil, REGS.at('POLICY', klass), value)
                == AxiResp.OKAY
            )
            model.set_policy(klass, value)
        outputs = await replay(dut, ssh + torrent, model, source, sink)
        changed = [
            (frame, out)
            for frame, out in zip(ssh + torrent, outputs)
            if out != frame
        ]
        assert len(changed) >= 60
        for frame, out in changed:
            tos = vtc_model.parse(out).l3 + 1
            assert out[tos] >> 2 == dscp and out[tos] & 3 == frame[tos] & 3
            # valid stays valid; bittorrent.pcap's zero (offloaded) checksums
            # stay wrong by the same amount
            assert ipv4_header_sum(out) == ipv4_header_sum(frame)
        sums = {ipv4_header_sum(frame) for frame, _ in changed}
        assert 0xFFFF in sums and len(sums) > 1

    value = 10  # enable bit clear: no marking
    assert (
        await write_u32(axil, REGS.at('POLICY', 'ssh'), value) == AxiResp.OKAY
    )
    model.set_policy('ssh', value)
    assert await replay(dut, ssh, model, source, sink) == ssh
    assert await read_counters(axil) == model.counters


@cocotb.test()
async def long_frames_are_forwarded_and_counted(dut):
    """1,602 (ssh.pcap) and 9,018-byte frames classified; longer ones pass and
    are counted.
    """
    source, sink, axil = await start_vtc(dut)
    model = await model_for(axil, ALL_MARKED)
    ssh = vtc_captures.read_frames(
        [p for p in vtc_captures.ndpi_capture_paths() if p.name == 'ssh.pcap'][
            0
        ]
    )
    assert max(map(len, ssh)) == 1602
    rtp = RTP_HEADER
    jumbo = [
        # UDP RTP takes two packets of one SSRC: the third is marked
        udp_frame(1, rtp + bytes(64), size=9018),
        udp_frame(1, rtp_next(rtp, 1), size=9018),
        udp_frame(1, rtp_next(rtp, 2), size=9018),
        udp_frame(2, rtp, size=9019),
        udp_frame(3, rtp),
        udp_frame(3, rtp, size=9100),
    ]
    frames = ssh + jumbo
    outputs = await replay(dut, frames, model, source, sink)
    assert outputs[-5] == frames[-5], 'RTP after one packet of its SSRC'
    assert (
        outputs[-4] != frames[-4]
    ), 'the third 9,018-byte frame is not marked as RTP'
    assert outputs[-3] == frames[-3] and outputs[-1] == frames[-1]
    assert model.counters['OVERSIZE_FRAMES'] == 2
    assert model.counters['UNPARSED_FRAMES'] == 2
    await check_against_model(axil, model, frames, outputs)


@cocotb.test()
async def one_beat_per_cycle_at_a_fixed_latency(dut):
    """Back-to-back 64-byte frames of many flows leave as one unbroken run of
    beats.
    """
    source, sink, axil = await start_vtc(dut)
    model = await model_for(axil, ALL_MARKED)
    beat_bytes = len(dut.s_axis_tkeep)
    frames = [dns_frame(flow, size=64) for flow in range(40)] * 2
    beats = sum(-(-len(frame) // beat_bytes) for frame in frames)

    for frame in frames:
        await source.send(AxiStreamFrame(frame))
    cycles_in = 0
    while not (dut.s_axis_tvalid.value and dut.s_axis_tready.value):
        await RisingEdge(dut.aclk)
    while not (dut.m_axis_tvalid.value and dut.m_axis_tready.value):
        await RisingEdge(dut.aclk)
        cycles_in += 1
    cycles = 1
    while cycles < beats:
        await RisingEdge(dut.aclk)
        assert dut.m_axis_tvalid.value and dut.m_axis_tready.value, \
            'bubble after %d of %d beats' % (cycles, beats)
        cycles += 1
    dut._log.info(
        'first beat out %d cycles after the first beat in', cycles_in
    )
    assert cycles_in == 128 // beat_bytes + LATENCY_AFTER_WINDOW
    expected = [model.process(frame) for frame in frames]
    assert [(await sink.recv()).tdata for _ in frames] == expected
    assert expected[40:] != frames[40:], 'second round marked as DNS'
    await check_against_model(axil, model, frames, expected)


@cocotb.test()
async def inspection_stops_after_inspect_packets(dut):
    """Only payload-carrying packets are inspected, at most INSPECT_PACKETS of
    an unknown flow.
    """
    source, sink, axil = await start_vtc(dut)
    model = await model_for(axil, ALL_MARKED)
    limit = await read_ok(axil, REGS.INSPECT_PACKETS)
    opaque = bytes(range(0x30, 0x3C))  # matches no signature
    frames = (
        [udp_frame(1, b'', dport=53)] * 3  # no payload: not inspected
        + [udp_frame(1, opaque, dport=53)] * (limit - 1)
        + [dns_frame(1)]
        * 2  # the limit-th inspection classifies, the next is marked
        + [udp_frame(2, opaque, dport=53)] * limit
        + [dns_frame(2)] * 2
    )  # too late
    outputs = await replay(dut, frames, model, source, sink)
    assert model.flow_class(vtc_model.parse(dns_frame(1)).key) == 'dns'
    assert model.flow_class(vtc_model.parse(dns_frame(2)).key) == 'unknown'
    assert (
        outputs[-1] == frames[-1] and outputs[3 + limit] != frames[3 + limit]
    )
    await check_against_model(axil, model, frames, outputs)


@cocotb.test()
async def bytes_past_a_short_frames_end_read_zero(dut):
    """A payload that ends its frame before the signature bytes do is read
    with zeros past its end, whatever a frame before left in the parser's
    window: each signature word less its last byte is no match after a frame
    that carried the whole word at the same offset (TCP options of 0 to 12
    bytes, or UDP behind 0 to 2 VLAN tags, move it across the beats), and
    the whole word is one.
    """
    source, sink, axil = await start_vtc(dut)
    model = await model_for(axil, ALL_MARKED)
    words = vtc_model.HTTP_STARTS + (
        b'SSH-', b'EHLO', vtc_model.BITTORRENT_START)
    frames = []
    flow = 0

    def frame(payload, options):
        return bytes(
            Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')
            / IP(src='10.2.%d.%d' % (flow >> 8, flow & 255), dst='10.1.0.1')
            / TCP(sport=40000, dport=50000, flags='PA',
                  options=[('NOP', None)] * options)
            / Raw(payload))

    def udp(payload, tags):
        vlans = Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02')
        for _ in range(tags):
            vlans = vlans / Dot1Q(vlan=7)
        return bytes(
            vlans / IP(src='10.2.%d.%d' % (flow >> 8, flow & 255),
                       dst='10.1.0.1')
            / UDP(sport=20000, dport=30000) / Raw(payload))

    for options in (0, 4, 8, 12):
        for word in words:
            flow += 1
            frames.append(frame(word + b'0123456789ab', options))
            flow += 1
            frames.append(frame(word[:-1], options))
    # UDP's, moved by 802.1Q tags
    for tags in (0, 1, 2):
        # gQUIC's public header: its version's second byte starts a beat
        # behind one tag
        for word in vtc_model.DHT_STARTS + (
                vtc_model.BITTORRENT_LOCAL_DISCOVERY,
                b'\x09' + bytes(8) + b'Q0'):
            flow += 1
            frames.append(udp(word + b'0123456789ab', tags))
            flow += 1
            frames.append(udp(word[:-1], tags))
    outputs = await replay(dut, frames, model, source, sink)
    # a flow of one frame: classified by it, none of its frames marked
    await check_against_model(axil, model, frames, outputs, marked=False)
    classes = [model.flow_class(vtc_model.parse(f).key) for f in frames]
    assert 'unknown' not in classes[0::2]
    assert set(classes[1::2]) == {'unknown'}


@cocotb.test()
async def words_other_protocols_share_with_http_and_stun(dut):
    """The method words HTTP shares are not HTTP where another protocol
    uses them (RTSP's OPTIONS rtsp://, SIP's OPTIONS on port 5060, a NATS
    client's CONNECT {), and are HTTP elsewhere; a STUN header with the
    magic cookie is STUN only with its first two bits 0, one without it
    only as a classic Binding message whose length is the payload's.
    """
    source, sink, axil = await start_vtc(dut)
    model = await model_for(axil, ALL_MARKED)
    cookie = vtc_model.STUN_COOKIE
    cases = [  # (frame, the class the model gives its flow)
        (tcp_frame(1, 'PA', b'OPTIONS rtsp://cam/ RTSP/1.0\r\n'), 'unknown'),
        (tcp_frame(2, 'PA', b'OPTIONS sip:a@b SIP/2.0\r\n', dport=5060),
         'sip'),
        (tcp_frame(3, 'PA', b'CONNECT {"verbose":false}\r\n'), 'unknown'),
        (tcp_frame(4, 'PA', b'OPTIONS * HTTP/1.1\r\n'), 'http'),
        (tcp_frame(5, 'PA', b'CONNECT example.org:443 HTTP/1.1\r\n'),
         'http'),
        (udp_frame(6, b'\x00\x01\x00\x00' + cookie + bytes(12)), 'stun'),
        (udp_frame(7, b'\x40\x01\x00\x00' + cookie + bytes(12)),
         'unknown'),
        (udp_frame(8, b'\x00\x01\x00\x04' + bytes(16) + b'abcd'), 'stun'),
        (udp_frame(9, b'\x00\x01\x00\x08' + bytes(16) + b'abcd'),
         'unknown'),
        (udp_frame(10, b'\x00\x01\x00\x00' + cookie + bytes(8)),
         'unknown'),
    ]
    frames = [frame for frame, _ in cases]
    outputs = await replay(dut, frames, model, source, sink)
    await check_against_model(axil, model, frames, outputs, marked=False)
    assert [model.flow_class(vtc_model.parse(frame).key)
            for frame in frames] == [klass for _, klass in cases]


@cocotb.test()
async def udp_rtp_takes_two_packets_of_one_ssrc(dut):
    """A UDP flow is RTP after two packets of one SSRC whose sequence number
    moved 1..16 on; one packet, a jump of 17, a step of 0 or another SSRC
    do not do it, and a step of 0 (a repeat) rules RTP out for the flow; the
    other direction's SSRC does not replace the first.
    """
    source, sink, axil = await start_vtc(dut)
    model = await model_for(axil, ALL_MARKED)
    x, y = 0x11111111, 0x22222222
    cases = {  # flow -> (sequence step, SSRC) of each packet after the first
        1: [],
        2: [(1, x), (1, x)],
        3: [(16, x), (1, x)],
        4: [(17, x)],
        5: [(0, x), (0, x)],
        6: [(1, y), (1, y)],
        7: [(0xFFFF - 0x6FAE + 1, x), (1, x)],  # wraps to 0
        9: [(0, x), (1, x), (1, x)],  # a repeat first: never rtp
    }
    frames = []
    for flow, steps in cases.items():
        header = rtp_next(RTP_HEADER, 0, x)
        frames.append(udp_frame(flow, header))
        for step, ssrc in steps:
            header = rtp_next(header, step, ssrc)
            frames.append(udp_frame(flow, header))
    # both directions of flow 8, each its own SSRC: A x, B y, A x + 1
    there = rtp_next(RTP_HEADER, 0, x)
    back = bytes(
        Ether(src='02:00:00:00:00:02', dst='02:00:00:00:00:01')
        / IP(src='10.1.0.1', dst='10.0.0.8')
        / UDP(sport=30000, dport=20000)
        / Raw(rtp_next(RTP_HEADER, 400, y))
    )
    frames += [udp_frame(8, there), back, udp_frame(8, rtp_next(there, 1)),
               back]
    outputs = await replay(dut, frames, model, source, sink)
    await check_against_model(axil, model, frames, outputs)
    got = {flow: model.flow_class(vtc_model.parse(udp_frame(flow)).key)
           for flow in range(1, 10)}
    assert got == {1: 'unknown', 2: 'rtp', 3: 'rtp', 4: 'unknown',
                   5: 'unknown', 6: 'unknown', 7: 'rtp', 8: 'rtp',
                   9: 'unknown'}
    assert model.counters['CLASS_FLOWS_RTP'] == 4
    assert outputs[-1] != frames[-1]  # marked as RTP
    assert outputs[-2] == frames[-2]


@cocotb.test()
async def ended_flows_are_guessed_and_tunnels_refined(dut):
    """An unknown TCP flow that ends (FIN or RST) is guessed by its port once,
    counted apart and never classified or marked; a flow with no port of the
    list is not guessed.  HTTP CONNECT and SMTP flows become TLS when TLS
    follows (FLOWS_REFINED, CLASS_FLOWS moved, FLOWS_CLASSIFIED once); after
    CLEAR_COUNTERS the old class's counter wraps below 0, as modelled.
    """
    source, sink, axil = await start_vtc(dut)
    model = await model_for(axil, ALL_MARKED)
    frames = [
        tcp_frame(1, 'S', dport=443), tcp_frame(1, 'FA', dport=443),
        tcp_frame(1, 'R', dport=443), tcp_frame(1, 'A', dport=443),
        tcp_frame(2, 'R'),  # no port of the list
        tcp_frame(3, 'PA', b'GET / HTTP/1.1\r\n', dport=80),
        tcp_frame(3, 'FA', dport=80),  # classified: not guessed
        tcp_frame(4, 'R', dport=22),
        tcp_frame(5, 'PA', b'CONNECT a:443 HTTP/1.1\r\n'),
        tcp_frame(5, 'PA', b'HTTP/1.1 200 OK\r\n\r\n'),
        tcp_frame(5, 'PA', CLIENT_HELLO), tcp_frame(5, 'PA', CLIENT_HELLO),
        tcp_frame(6, 'PA', b'GET / HTTP/1.1\r\n'),
        tcp_frame(6, 'PA', CLIENT_HELLO),  # a GET flow stays http
        tcp_frame(7, 'PA', b'220 mail ESMTP\r\n', sport=25),
        tcp_frame(7, 'PA', b'EHLO client\r\n', sport=25),
        tcp_frame(7, 'PA', b'STARTTLS\r\n', sport=25),
        tcp_frame(7, 'PA', CLIENT_HELLO, sport=25),
        tcp_frame(7, 'PA', CLIENT_HELLO, sport=25),
        tcp_frame(8, 'PA', b'CONNECT b:443 HTTP/1.1\r\n'),
    ]
    outputs = await replay(dut, frames, model, source, sink)
    await check_against_model(axil, model, frames, outputs)
    c = model.counters
    assert (c['FLOWS_GUESSED'], c['CLASS_GUESSES_TLS'],
            c['CLASS_GUESSES_SSH']) == (2, 1, 1)
    assert (c['FLOWS_CLASSIFIED'], c['FLOWS_REFINED']) == (5, 2)
    assert (c['CLASS_FLOWS_HTTP'], c['CLASS_FLOWS_TLS'],
            c['CLASS_FLOWS_SMTP']) == (3, 2, 0)  # flows 3, 6, 8; 5, 7
    assert model.flow_class(vtc_model.parse(frames[0]).key) == 'unknown'
    assert outputs[3] == frames[3]  # guessed, not marked
    assert outputs[11] != frames[11] and outputs[10] != frames[10]
    assert marked_classes(frames[10:12], outputs[10:12]) == {
        vtc_model.parse(frames[10]).key: 'tls'}
    # flow 8 (http) is refined after the counters were cleared
    await clear_counters(axil, model)
    more = [tcp_frame(8, 'PA', CLIENT_HELLO)]
    outputs = await replay(dut, more, model, source, sink)
    # marked by the class before it (http), as modelled (replay)
    assert marked_classes(more, outputs) == {
        vtc_model.parse(more[0]).key: 'http'}
    assert await read_counters(axil) == model.counters
    assert c['CLASS_FLOWS_HTTP'] == 0xFFFFFFFF
    assert (c['CLASS_FLOWS_TLS'], c['FLOWS_REFINED']) == (1, 1)


#: a STUN Binding Request (RFC 5389: the cookie, no attributes) and a DTLS
#: 1.2 handshake record of 0x0101 bytes after its 13-byte header
STUN_BINDING = bytes.fromhex('000100002112a442') + bytes(12)
DTLS_HELLO = bytes.fromhex('16fefd00000000000000000101') + bytes(0x101)


@cocotb.test()
async def stun_flows_are_refined_to_dtls(dut):
    """A STUN flow over UDP stays inspected and becomes DTLS when a DTLS
    record follows (FLOWS_REFINED, CLASS_FLOWS moved from stun to dtls,
    FLOWS_CLASSIFIED once; the refining frame marked as stun, the next as
    dtls); a flow that starts with a DTLS record is dtls at once; a record
    whose length does not fit, or a TLS record after STUN over TCP, refines
    nothing; after CLEAR_COUNTERS stun's counter wraps below 0, as modelled.
    """
    source, sink, axil = await start_vtc(dut)
    model = await model_for(axil, ALL_MARKED)
    too_long = DTLS_HELLO[:11] + b'\x02' + DTLS_HELLO[12:]
    frames = [
        udp_frame(1, STUN_BINDING), udp_frame(1, STUN_BINDING),
        udp_frame(1, DTLS_HELLO), udp_frame(1, DTLS_HELLO),
        udp_frame(2, STUN_BINDING), udp_frame(2, bytes(range(40))),
        udp_frame(3, DTLS_HELLO), udp_frame(3, DTLS_HELLO),
        udp_frame(4, STUN_BINDING), udp_frame(4, too_long),
        udp_frame(4, too_long),
        tcp_frame(5, 'PA', STUN_BINDING, dport=3478),
        tcp_frame(5, 'PA', CLIENT_HELLO, dport=3478),
        tcp_frame(5, 'PA', CLIENT_HELLO, dport=3478),
        udp_frame(6, STUN_BINDING),
    ]
    outputs = await replay(dut, frames, model, source, sink)
    await check_against_model(axil, model, frames, outputs)
    c = model.counters
    assert (c['FLOWS_CLASSIFIED'], c['FLOWS_REFINED']) == (6, 1)
    assert (c['CLASS_FLOWS_STUN'], c['CLASS_FLOWS_DTLS']) == (4, 2)
    got = {flow: model.flow_class(vtc_model.parse(frames[n]).key)
           for flow, n in ((1, 0), (2, 4), (3, 6), (4, 8), (5, 11), (6, 14))}
    assert got == {1: 'dtls', 2: 'stun', 3: 'dtls', 4: 'stun', 5: 'stun',
                   6: 'stun'}
    # the refining frame is marked by the class before it, the next by dtls's
    assert marked_classes(frames[2:3], outputs[2:3]) == {
        vtc_model.parse(frames[2]).key: 'stun'}
    assert marked_classes(frames[3:4], outputs[3:4]) == {
        vtc_model.parse(frames[3]).key: 'dtls'}
    # flow 6 (stun) is refined after the counters were cleared
    await clear_counters(axil, model)
    more = [udp_frame(6, DTLS_HELLO), udp_frame(6, DTLS_HELLO)]
    outputs = await replay(dut, more, model, source, sink)
    assert marked_classes(more, outputs) == {
        vtc_model.parse(more[0]).key: 'dtls'}
    assert await read_counters(axil) == model.counters
    assert c['CLASS_FLOWS_STUN'] == 0xFFFFFFFF
    assert (c['CLASS_FLOWS_DTLS'], c['FLOWS_REFINED']) == (1, 1)


def same_bucket_flows(buckets, count, frame=dns_frame):
    """`count` flows (numbers for `frame`, DNS by default) whose keys hash to
    one bucket.
    """
    found = {}
    for flow in range(1, 5000):
        key = vtc_model.parse(frame(flow)).key
        found.setdefault(vtc_model.bucket_index(key, buckets), []).append(flow)
        for flows in found.values():
            if len(flows) == count:
                return flows
    raise AssertionError('no bucket with %d flows' % count)


async def count_input_cycles(dut, beats):
    """Cycles from the first input beat to the last of `beats` beats."""
    while not (dut.s_axis_tvalid.value and dut.s_axis_tready.value):
        await RisingEdge(dut.aclk)
    cycles = seen = 1
    while seen < beats:
        await RisingEdge(dut.aclk)
        cycles += 1
        seen += bool(dut.s_axis_tvalid.value and dut.s_axis_tready.value)
    return cycles


@cocotb.test()
async def back_to_back_shortest_frames_see_each_others_writes(dut):
    """The shortest frames the table looks up (42 to 48 bytes: 6 beats at 64
    bits), back to back: of one flow, then of two flows of one bucket, each
    lookup sees the entry the frame before it wrote (inspections counted,
    classes and marks as modelled).
    """
    source, sink, axil = await start_vtc(dut)
    model = await model_for(axil, ALL_MARKED)
    limit = await read_ok(axil, REGS.INSPECT_PACKETS)
    opaque = bytes(range(0x30, 0x36))  # matches no signature
    invite = b'INVITE'  # a SIP method: class sip
    # no payload (not inspected), limit - 1 inspections, then the limit-th
    # classifies and the next frames are marked
    one_flow = (
        [udp_frame(1)] * 2
        + [udp_frame(1, opaque)] * (limit - 1)
        + [udp_frame(1, invite)] * 3
    )
    a, b = same_bucket_flows(model.buckets, 2, udp_frame)
    two_flows = []
    for n in range(limit + 2):
        two_flows += [
            udp_frame(a, opaque if n < limit - 1 else invite),
            udp_frame(b, invite),
        ]
    frames = one_flow + two_flows
    assert {len(frame) for frame in frames} == {42, 48}
    beat_bytes = len(dut.s_axis_tkeep)
    beats = sum(-(-len(frame) // beat_bytes) for frame in frames)

    counting = cocotb.start_soon(count_input_cycles(dut, beats))
    outputs = await replay(dut, frames, model, source, sink)
    assert await counting == beats, 'the frames did not come in back to back'
    await check_against_model(axil, model, frames, outputs)
    assert model.counters['FLOWS_SEEN'] == 3
    assert model.counters['FLOWS_CLASSIFIED'] == 3
    for flow in (1, a, b):
        assert model.flow_class(vtc_model.parse(udp_frame(flow)).key) == 'sip'
    marked = [out != frame for frame, out in zip(frames, outputs)]
    assert marked[len(one_flow) - 2:len(one_flow)] == [True, True]
    assert marked[-3:] == [True, True, True]


@cocotb.test()
async def one_beat_frames_back_to_back_are_each_counted(dut):
    """Frames of one beat (unparsed, class unknown) back to back: one class's
    frame counters take an update a cycle, each reading what the one before
    writes (without that a count is lost); among them frames of another
    class, then a beat-long frame after each.
    """
    source, sink, axil = await start_vtc(dut)
    model = await model_for(axil, ALL_MARKED)
    width = len(dut.s_axis_tkeep)
    rng = seeded_random(dut)
    frames = [bytes(rng.randrange(256) for _ in range(rng.randint(1, width)))
              for _ in range(40)]
    frames += [udp_frame(1, b'INVITE'), bytes(width)] * 3 + frames[:10]
    beats = sum(-(-len(frame) // width) for frame in frames)
    cycles = cocotb.start_soon(count_input_cycles(dut, beats))
    await replay(dut, frames, model, source, sink)
    # every frame came in the cycle after the one before
    assert await cycles == beats
    counters = await read_counters(axil)
    assert counters == model.counters
    assert counters['CLASS_PACKETS_UNKNOWN'] == len(frames) - 3


@cocotb.test()
async def full_bucket_fails_insertion_and_still_forwards(dut):
    """Small build: a fifth flow in a full bucket is counted as failed and
    forwarded unmarked.
    """
    source, sink, axil = await start_vtc(dut)
    model = await model_for(axil, ALL_MARKED)
    assert model.buckets == 4
    frames = [dns_frame(flow) for flow in same_bucket_flows(model.buckets, 5)]
    now = await read_ok(axil, REGS.TIMESTAMP)
    outputs = await replay(dut, frames + frames, model, source, sink, now=now)
    assert model.counters['FLOW_FAILED_INSERTIONS'] == 2
    assert model.counters['FLOW_OCCUPANCY'] == 4
    assert outputs[9] == frames[4] and outputs[5] != frames[0]
    await check_against_model(axil, model, frames + frames, outputs)


@cocotb.test()
async def idle_flows_age_out(dut):
    """Small build: after the timeout, new flows evict idle ones, lowest way
    first.
    """
    source, sink, axil = await start_vtc(dut)
    model = await model_for(axil, ALL_MARKED)
    timeout = await read_ok(axil, REGS.FLOW_TIMEOUT)
    frames = [dns_frame(flow) for flow in same_bucket_flows(model.buckets, 6)]

    now = await read_ok(axil, REGS.TIMESTAMP)
    outputs = await replay(dut, frames[:4], model, source, sink, now=now)
    while await read_ok(axil, REGS.TIMESTAMP) <= now + timeout + 2:
        await ClockCycles(dut.aclk, 100)
    now = await read_ok(axil, REGS.TIMESTAMP)
    more = frames[4:] + frames[:1]
    outputs += await replay(dut, more, model, source, sink, now=now)
    assert model.counters['FLOW_EVICTIONS'] == 3
    assert model.counters['FLOW_FAILED_INSERTIONS'] == 0
    assert (
        model.flow_class(vtc_model.parse(frames[1]).key) == 'unknown'
    )  # evicted
    assert model.flow_class(vtc_model.parse(frames[3]).key) == 'dns'
    await check_against_model(
        axil, model, frames[:4] + more, outputs, marked=False
    )


def in_bucket(frame, bucket, buckets, count):
    """`count` frames `frame(n)` whose flows hash to `bucket`."""
    found = [frame(n) for n in range(1, 5000) if vtc_model.bucket_index(
        vtc_model.parse(frame(n)).key, buckets) == bucket]
    return found[:count]


@cocotb.test()
async def evicted_unknown_flows_are_guessed(dut):
    """Small build: an unknown flow evicted is guessed by its port (if a port
    is listed); a frame that evicts one and ends its own new flow guesses the
    evicted one only, its own flow when it ends again.
    """
    source, sink, axil = await start_vtc(dut)
    model = await model_for(axil, ALL_MARKED)
    timeout = await read_ok(axil, REGS.FLOW_TIMEOUT)
    buckets = model.buckets
    bucket = vtc_model.bucket_index(
        vtc_model.parse(udp_frame(1, dport=53)).key, buckets)
    dns = in_bucket(lambda n: udp_frame(n, dport=53), bucket, buckets, 3)
    other = in_bucket(lambda n: udp_frame(n, dport=2000), bucket, buckets, 4)
    rst = in_bucket(lambda n: tcp_frame(n, 'R', dport=443), bucket, buckets,
                    1)
    # ways 0, 1: dns; 2: port 2000; 3: dns
    first = dns[:2] + other[:1] + dns[2:]
    now = await read_ok(axil, REGS.TIMESTAMP)
    outputs = await replay(dut, first, model, source, sink, now=now)
    while await read_ok(axil, REGS.TIMESTAMP) <= now + timeout + 2:
        await ClockCycles(dut.aclk, 100)
    now = await read_ok(axil, REGS.TIMESTAMP)
    more = rst + other[1:] + rst
    outputs += await replay(dut, more, model, source, sink, now=now)
    c = model.counters
    assert c['FLOW_EVICTIONS'] == 4
    # the three dns flows as they were evicted, not the port-2000 one; the
    # RST flow when its second RST came
    assert (c['FLOWS_GUESSED'], c['CLASS_GUESSES_DNS'],
            c['CLASS_GUESSES_TLS']) == (4, 3, 1)
    await check_against_model(axil, model, first + more, outputs,
                              marked=False)
    # an RST that evicts a flow with nothing to guess (port 2000) is guessed
    # at once
    while await read_ok(axil, REGS.TIMESTAMP) <= now + timeout + 2:
        await ClockCycles(dut.aclk, 100)
    now = await read_ok(axil, REGS.TIMESTAMP)
    last = in_bucket(lambda n: tcp_frame(n + 100, 'R', dport=443), bucket,
                     buckets, 4)
    # the ways now: the rst flow (guessed already), then port-2000 flows
    # (nothing to guess): each new RST flow is guessed as it evicts one
    outputs = await replay(dut, last[1:3], model, source, sink, now=now)
    assert (c['FLOW_EVICTIONS'], c['FLOWS_GUESSED'],
            c['CLASS_GUESSES_TLS']) == (6, 6, 3)
    assert await read_counters(axil) == model.counters


def app_policy(number):
    """A policy per application: odd numbers mark with a DSCP of their own
    (32 and above: no class's), even ones are not marked (DECIDES alone),
    every fifth leaves it to the class (ENABLE alone).
    """
    decides = vtc_model.POLICY_DECIDES if number % 5 else 0
    if number % 2:
        return decides | vtc_model.POLICY_ENABLE | 32 + number % 32
    return decides


def named_capture_frames():
    """The frames of NAMED_CAPTURES, in order."""
    frames = []
    for folder, names in NAMED_CAPTURES.items():
        for path in vtc_captures.ndpi_capture_paths(folder):
            if path.name in names:
                frames += vtc_captures.read_frames(path)
    return frames


#: cycles the names of one frame take at most: read from the frame's kept
#: bytes (a byte a cycle, four cycles a beat missed) and matched (n + 5 l +
#: 8): the catalogue entry's quiet_cycles (what the emulators clock after
#: frames)
NAME_CYCLES = VTC.quiet_cycles
#: captures whose flows the table names (HTTP, TLS and DNS names; 35 flows)
NAMED_CAPTURES = {
    'ndpi': ('dns.pcap',),
    'ndpi-more': ('tls_1.3_unidirectional_client.pcapng',),
    'ndpi-tuning': ('dns-google-nsid.pcapng', 'dazn.pcapng',
                    'tls_cipher_lens.pcap', 'pluralsight.pcap', 'http.pcapng',
                    'steam.pcapng',
                    'salesforce.pcap', 'conncheck.pcap', 'zattoo.pcap',
                    'snapchat.pcap', 'facebook.pcap'),
}


async def load_names(axil, table):
    """The application table through NAME_TABLE and NAME_TABLE_DATA, then
    NAMES_ON.
    """
    for bucket, ways in enumerate(table.words):
        for way, word in enumerate(ways):
            if word:
                assert await write_u32(
                    axil, REGS.NAME_TABLE,
                    bucket * vtc_names.TABLE_WAYS + way) == AxiResp.OKAY
                assert await write_u32(axil, REGS.NAME_TABLE_DATA,
                                       word) == AxiResp.OKAY
    assert await write_u32(axil, REGS.NAME_TABLE,
                           REGS.bit('NAME_TABLE', 'NAMES_ON')) == AxiResp.OKAY


@cocotb.test()
async def names_from_captures_match_the_model(dut):
    """With the application table loaded and names on, the captures whose
    flows nDPI names by host name give the model's counters (FLOWS_NAMED
    among them) and frames, each frame sent once the one before has left
    and the names it carries have been read (the model names a flow at
    once, the module NAME_CYCLES later at most).
    """
    source, sink, axil = await start_vtc(dut)
    table = vtc_names.load()
    await load_names(axil, table)
    model = await model_for(axil, ALL_MARKED)
    model.applications = table
    by_class = vtc_model.VtcModel(applications=table)
    for name, dscp in ALL_MARKED.items():
        by_class.set_policy(name, vtc_model.POLICY_ENABLE | dscp)
    for number, name in enumerate(APPLICATIONS[1:], 1):
        policy = app_policy(number)
        assert await write_u32(axil, REGS.at('APP_POLICY', name),
                               policy) == AxiResp.OKAY
        model.set_app_policy(name, policy)
    frames = named_capture_frames()
    by_application = unmarked = 0
    for index, frame in enumerate(frames):
        want = model.process(frame)
        await source.send(AxiStreamFrame(frame))
        got = (await sink.recv()).tdata
        assert got == want, 'frame %d differs' % index
        if want != by_class.process(frame):
            by_application += 1
            unmarked += want == frame
        await ClockCycles(dut.aclk, NAME_CYCLES)
    counters = await read_counters(axil)
    assert counters == model.counters
    assert counters['FLOWS_NAMED'] >= 30, counters['FLOWS_NAMED']
    assert counters['NAMES_SKIPPED'] == 0
    # frames marked by their application's DSCP, and frames their
    # application's policy keeps unmarked, each seen
    assert by_application > unmarked > 0, (by_application, unmarked)
    # the counts by application: the model's, for many applications
    by_app = await read_app_counters(axil)
    assert by_app == model_app_counters(model)
    assert len(by_app) >= 10, by_app
    assert sum(c['flows'] for c in by_app.values()) \
        == counters['FLOWS_NAMED']

    # after CLEAR_COUNTERS they count from 0: the captures again, back to
    # back (the flows are named: no name is read again)
    await clear_counters(axil, model)
    assert await read_app_counters(axil) == {}
    await replay(dut, frames, model, source, sink)
    by_app = await read_app_counters(axil)
    assert by_app == model_app_counters(model)
    assert by_app and not any(c['flows'] for c in by_app.values()), by_app


@cocotb.test()
async def names_back_to_back_change_nothing_else(dut):
    """The captures of names_from_captures_match_the_model back to back with
    names on and no application policy: a name whose frame finds the
    extractor's slots taken is skipped (NAMES_SKIPPED), a flow waits for its
    name's result before it is read again; every frame and every other
    counter stays the model's, and no more flows are named than the model
    names.
    """
    source, sink, axil = await start_vtc(dut)
    table = vtc_names.load()
    await load_names(axil, table)
    model = await model_for(axil, ALL_MARKED)
    model.applications = table
    await replay(dut, named_capture_frames(), model, source, sink)
    await ClockCycles(dut.aclk, NAME_CYCLES)
    counters = await read_counters(axil)
    named, skipped = counters.pop('FLOWS_NAMED'), counters.pop('NAMES_SKIPPED')
    want = dict(model.counters)
    named_by_model = want.pop('FLOWS_NAMED')
    assert want.pop('NAMES_SKIPPED') == 0
    assert counters == want
    assert 0 < named <= named_by_model, (named, named_by_model)
    # at 64 bits frames come faster than names are read; a flow is left
    # unnamed only by a skip
    assert skipped > 0 or named == named_by_model, (named, named_by_model)


def first_named_frame(table):
    """The first frame of the named captures that names its flow (the model
    with the table), TLS or HTTP.
    """
    model = vtc_model.VtcModel()
    model.applications = table
    for frame in named_capture_frames():
        before = model.counters['FLOWS_NAMED']
        model.process(frame)
        parsed = vtc_model.parse(frame)
        if (model.counters['FLOWS_NAMED'] > before
                and model.flow_class(parsed.key) in ('tls', 'http')):
            return frame
    raise AssertionError('no capture frame names its flow')


@cocotb.test()
async def a_flow_is_named_once_while_its_name_is_read(dut):
    """A flow's naming frame and seven copies of it back to back: the copies
    come while its name is being read and are not read again (not skipped
    either: one name read, one flow named), as the model names it once.
    """
    source, sink, axil = await start_vtc(dut)
    table = vtc_names.load()
    await load_names(axil, table)
    model = await model_for(axil, ALL_MARKED)
    model.applications = table
    frame = first_named_frame(table)
    await replay(dut, [frame] * 8, model, source, sink)
    await ClockCycles(dut.aclk, NAME_CYCLES)
    counters = await read_counters(axil)
    assert counters == model.counters
    assert (counters['FLOWS_NAMED'], counters['NAMES_SKIPPED']) == (1, 0)
    # the copies that left after its name was read count in its
    # application (the model names it at once: all seven), and each copy
    # after that
    (number, counts), = (await read_app_counters(axil)).items()
    (want, wanted), = model_app_counters(model).items()
    assert number == want and counts['flows'] == wanted['flows'] == 1
    assert 0 < counts['packets'] < wanted['packets'] == 7, counts
    await replay(dut, [frame] * 3, model, source, sink)
    assert (await read_app_counters(axil))[number] == {
        'flows': 1, 'packets': counts['packets'] + 3,
        'bytes': counts['bytes'] + 3 * len(frame)}
