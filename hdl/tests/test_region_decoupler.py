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

"""cocotb suite for region_decoupler: isolation, DECERR, and frames cut in
half.

The region side is modelled by cocotbext-axi models reset by the decoupler's
rp_aresetn, as a real region is: a decoupled region is held in reset.
"""
import cocotb
from cocotb.triggers import ClockCycles
from cocotb.triggers import RisingEdge
from cocotbext.axi import AxiLiteBus
from cocotbext.axi import AxiLiteMaster
from cocotbext.axi import AxiLiteRam
from cocotbext.axi import AxiResp
from cocotbext.axi import AxiStreamBus
from cocotbext.axi import AxiStreamFrame
from cocotbext.axi import AxiStreamSink
from cocotbext.axi import AxiStreamSource

from axi_helpers import pauses
from axi_helpers import random_frames
from axi_helpers import read_u32
from axi_helpers import seeded_random
from axi_helpers import start
from axi_helpers import write_u32


class Bench:
    """Shell-side masters and region-side models around the decoupler."""

    def __init__(self, dut, region_registers=True):
        self.dut = dut
        # nothing undriven before the models' resets take over
        for name in (
            'aresetn',
            'decouple',
            's_axis_tvalid',
            'm_axis_tready',
            's_rp_axis_tvalid',
            'm_rp_axis_tready',
            's_axil_awvalid',
            's_axil_wvalid',
            's_axil_arvalid',
        ):
            getattr(dut, name).value = 0
        clk, rst, rp_rst = dut.aclk, dut.aresetn, dut.rp_aresetn
        self.shell_tx = AxiStreamSource(
            AxiStreamBus.from_prefix(dut, 's_axis'),
            clk,
            rst,
            reset_active_level=False,
        )
        self.shell_rx = AxiStreamSink(
            AxiStreamBus.from_prefix(dut, 'm_axis'),
            clk,
            rst,
            reset_active_level=False,
        )
        self.shell_axil = AxiLiteMaster(
            AxiLiteBus.from_prefix(dut, 's_axil'),
            clk,
            rst,
            reset_active_level=False,
        )
        self.region_rx = AxiStreamSink(
            AxiStreamBus.from_prefix(dut, 'm_rp_axis'),
            clk,
            rp_rst,
            reset_active_level=False,
        )
        self.region_tx = AxiStreamSource(
            AxiStreamBus.from_prefix(dut, 's_rp_axis'),
            clk,
            rp_rst,
            reset_active_level=False,
        )
        self.region_regs = None
        if region_registers:
            self.region_regs = AxiLiteRam(
                AxiLiteBus.from_prefix(dut, 'm_rp_axil'),
                clk,
                rp_rst,
                reset_active_level=False,
                size=2**12,
            )
        self.beats = {
            'shell_in': 0,
            'region_in': 0,
            'region_out': 0,
            'shell_out': 0,
        }
        self.pulses = {
            'ingress_frame_cut': 0,
            'egress_frame_cut': 0,
            'egress_frame_oversize': 0,
        }
        cocotb.start_soon(self._monitor())

    async def _monitor(self):
        """Count stream handshakes on all four ports and the decoupler's event
        pulses.
        """
        dut = self.dut
        ports = {'shell_in': 's_axis', 'region_in': 'm_rp_axis',
                 'region_out': 's_rp_axis', 'shell_out': 'm_axis'}
        while True:
            await RisingEdge(dut.aclk)
            for name, prefix in ports.items():
                if (getattr(dut, prefix + '_tvalid').value == 1
                        and getattr(dut, prefix + '_tready').value == 1):
                    self.beats[name] += 1
            for name in self.pulses:
                if getattr(dut, name).value == 1:
                    self.pulses[name] += 1

    async def start(self, decoupled=False):
        self.dut.decouple.value = int(decoupled)
        await start(self.dut)

    async def set_decouple(self, value):
        self.dut.decouple.value = int(value)
        await RisingEdge(self.dut.aclk)

    async def wait_for(self, counter, count, limit=20000):
        for _ in range(limit):
            if self.beats[counter] >= count:
                return
            await RisingEdge(self.dut.aclk)
        raise AssertionError('%s stuck at %d beats, waited for %d'
                             % (counter, self.beats[counter], count))


def beats_of(frame, dut):
    width = len(dut.s_axis_tkeep)
    return -(-len(frame) // width)


def drain(sink):
    frames = []
    while not sink.empty():
        frames.append(bytes(sink.recv_nowait().tdata))
    return frames


def assert_ordered_subsequence(received, sent, what):
    """Every received frame is a whole sent frame, in order, none twice."""
    remaining = iter(sent)
    for index, frame in enumerate(received):
        assert any(
            frame == candidate for candidate in remaining
        ), '%s frame %d (%d bytes) is not a whole sent frame in order' % (
            what,
            index,
            len(frame),
        )


@cocotb.test()
async def coupled_passes_everything(dut):
    """While coupled, frames cross both ways unchanged under random stalls,
    registers are reached.
    """
    rng = seeded_random(dut)
    bench = Bench(dut)
    await bench.start()
    for model, busy in ((bench.shell_tx, 0.3), (bench.region_rx, 0.4),
                        (bench.region_tx, 0.3), (bench.shell_rx, 0.4)):
        model.set_pause_generator(pauses(rng, busy))

    ingress = random_frames(rng, 30)
    egress = random_frames(rng, 30)
    for frame in ingress:
        await bench.shell_tx.send(AxiStreamFrame(frame))
    for frame in egress:
        await bench.region_tx.send(AxiStreamFrame(frame))
    assert [
        bytes((await bench.region_rx.recv()).tdata) for _ in ingress
    ] == ingress
    assert [
        bytes((await bench.shell_rx.recv()).tdata) for _ in egress
    ] == egress

    assert await write_u32(bench.shell_axil, 0x40, 0xCAFEF00D) == AxiResp.OKAY
    assert bench.region_regs.read(0x40, 4) == (0xCAFEF00D).to_bytes(
        4, 'little'
    )
    bench.region_regs.write(0x44, (0x01020304).to_bytes(4, 'little'))
    assert await read_u32(bench.shell_axil, 0x44) == (0x01020304, AxiResp.OKAY)
    assert bench.pulses == {
        'ingress_frame_cut': 0,
        'egress_frame_cut': 0,
        'egress_frame_oversize': 0,
    }


@cocotb.test()
async def decoupled_region_is_isolated(dut):
    """Decoupled: no beats either way, the region is in reset, registers answer
    DECERR.
    """
    bench = Bench(dut)
    await bench.start(decoupled=True)
    await ClockCycles(dut.aclk, 2)
    assert dut.decouple_status.value == 1
    assert dut.rp_aresetn.value == 0

    waiting = [bytes(range(200)), b'\x42' * 64]
    for frame in waiting:
        await bench.shell_tx.send(AxiStreamFrame(frame))
    # the region's own outputs, driven by hand: a region misbehaving while
    # decoupled
    dut.s_rp_axis_tvalid.value = 1
    dut.s_rp_axis_tlast.value = 1
    dut.s_rp_axis_tkeep.value = (1 << len(dut.s_rp_axis_tkeep)) - 1
    for _ in range(100):
        await RisingEdge(dut.aclk)
        assert dut.m_rp_axis_tvalid.value == 0
        assert dut.s_axis_tready.value == 0
        assert dut.s_rp_axis_tready.value == 0
        assert dut.m_axis_tvalid.value == 0
    dut.s_rp_axis_tvalid.value = 0

    assert (
        await write_u32(bench.shell_axil, 0x40, 0x55AA55AA) == AxiResp.DECERR
    )
    assert await read_u32(bench.shell_axil, 0x40) == (0, AxiResp.DECERR)
    assert bench.region_regs.read(0x40, 4) == bytes(4)
    assert bench.beats == {
        'shell_in': 0,
        'region_in': 0,
        'region_out': 0,
        'shell_out': 0,
    }

    # frames that had not started wait for the region and then arrive whole
    await bench.set_decouple(False)
    assert [
        bytes((await bench.region_rx.recv()).tdata) for _ in waiting
    ] == waiting
    assert await write_u32(bench.shell_axil, 0x40, 0x55AA55AA) == AxiResp.OKAY


@cocotb.test()
async def ingress_frame_cut_in_half_is_dropped_whole(dut):
    """Shell to region: the cut frame's tail is drained from the shell, its
    head dies in the region reset.
    """
    bench = Bench(dut)
    await bench.start()
    cut = bytes(n & 0xFF for n in range(800))
    after = b'\x77' * 100
    await bench.shell_tx.send(AxiStreamFrame(cut))
    await bench.shell_tx.send(AxiStreamFrame(after))
    await bench.wait_for('region_in', 40)
    await bench.set_decouple(True)
    region_beats_at_cut = bench.beats['region_in']
    assert region_beats_at_cut < beats_of(cut, dut)
    # decoupled: the rest of the cut frame is taken from the shell and
    # discarded; the next frame has not started, so it waits
    await bench.wait_for('shell_in', beats_of(cut, dut))
    await ClockCycles(dut.aclk, 50)
    assert bench.beats['shell_in'] == beats_of(cut, dut)
    assert bench.beats['region_in'] == region_beats_at_cut
    assert bench.pulses['ingress_frame_cut'] == 1

    await bench.set_decouple(False)
    received = bytes((await bench.region_rx.recv()).tdata)
    assert (
        received == after
    ), 'the region got %d bytes, not the frame after the cut' % len(received)
    await ClockCycles(dut.aclk, 20)
    assert bench.region_rx.empty()


@cocotb.test()
async def ingress_recouple_before_the_tail_still_drops_it(dut):
    """Coupling again while the cut frame's tail is still coming does not hand
    the tail to the region.
    """
    bench = Bench(dut)
    await bench.start()
    cut = bytes(range(256)) * 3
    after = b'\x33' * 72
    bench.shell_tx.set_pause_generator(
        iter([False] * 20 + [True] * 40 + [False] * 100000)
    )
    await bench.shell_tx.send(AxiStreamFrame(cut))
    await bench.shell_tx.send(AxiStreamFrame(after))
    await bench.wait_for('region_in', 15)
    await bench.set_decouple(True)
    await ClockCycles(dut.aclk, 3)
    await bench.set_decouple(False)
    assert bytes((await bench.region_rx.recv()).tdata) == after
    assert bench.beats['shell_in'] == beats_of(cut, dut) + beats_of(after, dut)
    assert bench.pulses['ingress_frame_cut'] == 1


@cocotb.test()
async def egress_frame_cut_in_half_never_reaches_the_shell(dut):
    """Region to shell: frames are stored and forwarded, so a cut frame is
    dropped before any of it leaves.
    """
    bench = Bench(dut)
    await bench.start()
    whole = b'\x11' * 300
    cut = bytes(n & 0xFF for n in range(1000))
    after = b'\x22' * 64
    await bench.region_tx.send(AxiStreamFrame(whole))
    await bench.region_tx.send(AxiStreamFrame(cut))
    await bench.wait_for('region_out', beats_of(whole, dut) + 30)
    await bench.set_decouple(True)
    assert bytes((await bench.shell_rx.recv()).tdata) == whole
    await ClockCycles(dut.aclk, 200)
    assert bench.shell_rx.empty()
    assert bench.beats['shell_out'] == beats_of(whole, dut)
    assert bench.pulses['egress_frame_cut'] == 1

    await bench.set_decouple(False)
    await ClockCycles(dut.aclk, 2)
    await bench.region_tx.send(AxiStreamFrame(after))
    assert bytes((await bench.shell_rx.recv()).tdata) == after
    await ClockCycles(dut.aclk, 20)
    assert bench.shell_rx.empty()


@cocotb.test()
async def register_access_in_flight_gets_decerr(dut):
    """An access the region has taken but not answered is answered with DECERR
    on decoupling.
    """
    bench = Bench(dut, region_registers=False)
    # a region that takes requests and never answers
    dut.m_rp_axil_awready.value = 1
    dut.m_rp_axil_wready.value = 1
    dut.m_rp_axil_bvalid.value = 0
    dut.m_rp_axil_arready.value = 1
    dut.m_rp_axil_rvalid.value = 0
    await bench.start()

    read = cocotb.start_soon(read_u32(bench.shell_axil, 0x10))
    write = cocotb.start_soon(write_u32(bench.shell_axil, 0x14, 7))
    await ClockCycles(dut.aclk, 20)
    assert not read.done() and not write.done()
    await bench.set_decouple(True)
    assert await read == (0, AxiResp.DECERR)
    assert await write == AxiResp.DECERR


@cocotb.test()
async def oversize_egress_frame_is_dropped(dut):
    """A frame longer than the egress FIFO is dropped (and flagged), not
    delivered in part.
    """
    bench = Bench(dut)
    await bench.start()
    depth_bytes = int(dut.EGRESS_FIFO_DEPTH.value) * len(dut.s_axis_tkeep)
    too_long = b'\x99' * (depth_bytes + 1)
    fits = b'\x98' * depth_bytes
    await bench.region_tx.send(AxiStreamFrame(too_long))
    await bench.region_tx.send(AxiStreamFrame(fits))
    assert bytes((await bench.shell_rx.recv()).tdata) == fits
    await ClockCycles(dut.aclk, 20)
    assert bench.shell_rx.empty()
    assert bench.pulses['egress_frame_oversize'] == 1


@cocotb.test()
async def jumbo_frames_pass_both_ways(dut):
    """With the default egress FIFO a 9,018-byte frame (the largest the data
    mover forwards) crosses both ways whole, between two short ones, and
    nothing is flagged oversize.
    """
    bench = Bench(dut)
    await bench.start()
    assert int(dut.EGRESS_FIFO_DEPTH.value) * len(dut.s_axis_tkeep) >= 9018
    frames = [bytes(range(64)), bytes((7 * i) & 0xFF for i in range(9018)),
              b'\x55' * 60]
    for frame in frames:
        await bench.shell_tx.send(AxiStreamFrame(frame))
        await bench.region_tx.send(AxiStreamFrame(frame))
    assert [bytes((await bench.region_rx.recv()).tdata)
            for _ in frames] == frames
    assert [bytes((await bench.shell_rx.recv()).tdata)
            for _ in frames] == frames
    assert bench.pulses['egress_frame_oversize'] == 0


@cocotb.test()
async def random_decoupling_keeps_frames_whole(dut):
    """Decoupling at random moments under random stalls only ever drops whole
    frames.
    """
    rng = seeded_random(dut)
    bench = Bench(dut)
    await bench.start()
    for model, busy in ((bench.shell_tx, 0.2), (bench.region_rx, 0.3),
                        (bench.region_tx, 0.2), (bench.shell_rx, 0.3)):
        model.set_pause_generator(pauses(rng, busy))

    ingress = random_frames(rng, 80, max_len=400)
    egress = random_frames(rng, 80, max_len=400)
    for frame in ingress:
        await bench.shell_tx.send(AxiStreamFrame(frame))
    for frame in egress:
        await bench.region_tx.send(AxiStreamFrame(frame))
    received_ingress = []
    for _ in range(12):
        await ClockCycles(dut.aclk, rng.randint(50, 400))
        await bench.set_decouple(True)
        await ClockCycles(dut.aclk, rng.randint(1, 60))
        received_ingress += drain(bench.region_rx)
        await bench.set_decouple(False)
    # one more frame each way once the decoupling is over: it must get through,
    # last
    ingress.append(b'\xe1' * 100)
    egress.append(b'\xe2' * 100)
    await bench.shell_tx.send(AxiStreamFrame(ingress[-1]))
    await bench.region_tx.send(AxiStreamFrame(egress[-1]))
    await ClockCycles(dut.aclk, 12000)
    received_ingress += drain(bench.region_rx)
    received_egress = drain(bench.shell_rx)

    assert_ordered_subsequence(received_ingress, ingress, 'region')
    assert_ordered_subsequence(received_egress, egress, 'shell')
    assert (
        received_ingress[-1] == ingress[-1]
        and received_egress[-1] == egress[-1]
    )
    dut._log.info(
        'ingress %d/%d frames, egress %d/%d frames, cuts %s',
        len(received_ingress),
        len(ingress),
        len(received_egress),
        len(egress),
        bench.pulses,
    )
