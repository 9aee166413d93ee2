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

"""cocotb suite for region_loopback: frames come back unchanged, registers
follow the contract.
"""
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

from axi_helpers import pauses
from axi_helpers import random_frames
from axi_helpers import read_u32
from axi_helpers import seeded_random
from axi_helpers import start
from axi_helpers import write_u32
from nova_fpga import catalogue

LOOPBACK = catalogue.load().by_name('loopback')
REGS = LOOPBACK.registers


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


async def read_u64(axil, lo_address):
    lo, lo_resp = await read_u32(axil, lo_address)
    hi, hi_resp = await read_u32(axil, lo_address + 4)
    assert (lo_resp, hi_resp) == (AxiResp.OKAY, AxiResp.OKAY)
    return hi << 32 | lo


@cocotb.test()
async def registers_follow_the_contract(dut):
    """ID and version come from the registry; unmapped offsets are SLVERR;
    read-only writes are ignored.
    """
    _, _, axil = attach(dut)
    await start(dut)

    assert await read_u32(axil, REGS.MODULE_ID) == (
        LOOPBACK.module_id,
        AxiResp.OKAY,
    )
    assert await read_u32(axil, REGS.VERSION) == (
        LOOPBACK.version,
        AxiResp.OKAY,
    )
    assert await read_u32(axil, REGS.CONTROL) == (0, AxiResp.OKAY)
    assert await read_u32(axil, REGS.STATUS) == (0, AxiResp.OKAY)
    for offset in (
        REGS.FRAMES_LO,
        REGS.FRAMES_HI,
        REGS.BYTES_LO,
        REGS.BYTES_HI,
    ):
        assert await read_u32(axil, offset) == (0, AxiResp.OKAY)

    assert await write_u32(axil, REGS.MODULE_ID, 0x12345678) == AxiResp.OKAY
    assert await read_u32(axil, REGS.MODULE_ID) == (
        LOOPBACK.module_id,
        AxiResp.OKAY,
    )

    for offset in (0x20, 0x100, 0xFFC):
        assert await read_u32(axil, offset) == (0, AxiResp.SLVERR)
        assert await write_u32(axil, offset, 1) == AxiResp.SLVERR


@cocotb.test()
async def random_backpressure_keeps_every_beat(dut):
    """Random gaps on the input and stalls on the output never lose, duplicate
    or reorder data.
    """
    rng = seeded_random(dut)
    source, sink, axil = attach(dut)
    await start(dut)
    source.set_pause_generator(pauses(rng, 0.3))
    sink.set_pause_generator(pauses(rng, 0.4))

    frames = random_frames(rng, 60) + [
        b'\xa5',
        bytes(range(256)) * 6 + b'\x01\x02',
    ]
    for frame in frames:
        await source.send(AxiStreamFrame(frame))
    for index, frame in enumerate(frames):
        received = await sink.recv()
        # the sink drops null (tkeep=0) bytes, so this also checks tkeep
        assert received.tdata == frame, 'frame %d differs' % index
    await ClockCycles(dut.aclk, 10)
    assert sink.empty()

    assert await read_u64(axil, REGS.FRAMES_LO) == len(frames)
    assert await read_u64(axil, REGS.BYTES_LO) == sum(map(len, frames))

    assert (
        await write_u32(
            axil, REGS.CONTROL, REGS.bit('CONTROL', 'CLEAR_COUNTERS')
        )
        == AxiResp.OKAY
    )
    assert await read_u64(axil, REGS.FRAMES_LO) == 0
    assert await read_u64(axil, REGS.BYTES_LO) == 0


@cocotb.test()
async def one_beat_per_cycle(dut):
    """Back-to-back minimum-size frames leave as one unbroken run of beats."""
    source, sink, _ = attach(dut)
    await start(dut)
    beat_bytes = len(dut.s_axis_tkeep)
    frames = [bytes([n]) * 64 for n in range(32)]
    beats = sum(-(-len(frame) // beat_bytes) for frame in frames)

    for frame in frames:
        await source.send(AxiStreamFrame(frame))
    while not (dut.m_axis_tvalid.value and dut.m_axis_tready.value):
        await RisingEdge(dut.aclk)
    cycles = 1
    while cycles < beats:
        await RisingEdge(dut.aclk)
        assert dut.m_axis_tvalid.value and dut.m_axis_tready.value, \
            'bubble after %d of %d beats' % (cycles, beats)
        cycles += 1
    assert [(await sink.recv()).tdata for _ in frames] == frames


@cocotb.test()
async def status_shows_a_frame_in_flight(dut):
    """STATUS.IN_FRAME is set between a frame's first and last input beat."""
    _, sink, axil = attach(dut)
    dut.s_axis_tvalid.value = 0
    await start(dut)
    keep = (1 << len(dut.s_axis_tkeep)) - 1

    async def beat(data, last):
        dut.s_axis_tdata.value = data
        dut.s_axis_tkeep.value = keep
        dut.s_axis_tlast.value = last
        dut.s_axis_tvalid.value = 1
        await RisingEdge(dut.aclk)
        while not dut.s_axis_tready.value:
            await RisingEdge(dut.aclk)
        dut.s_axis_tvalid.value = 0

    await beat(0x1111, 0)
    status, _ = await read_u32(axil, REGS.STATUS)
    assert status & REGS.bit('STATUS', 'IN_FRAME')
    await beat(0x2222, 1)
    await ClockCycles(dut.aclk, 4)
    status, _ = await read_u32(axil, REGS.STATUS)
    assert status == 0
    received = await sink.recv()
    assert len(received.tdata) == 2 * len(dut.s_axis_tkeep)


@cocotb.test()
async def counters_carry_into_the_high_word(dut):
    """The counters are 64 bits wide and a LO-then-HI read is consistent across
    a carry.
    """
    source, sink, axil = attach(dut)
    await start(dut)
    # preload the counters (region_regs' registers) just below a 32-bit carry
    dut.regs.frames_reg.value = 0x1_FFFF_FFFF
    dut.regs.bytes_reg.value = 0x2_FFFF_FFC0
    await RisingEdge(dut.aclk)

    await source.send(AxiStreamFrame(b'\x5a' * 64))
    await sink.recv()
    await ClockCycles(dut.aclk, 2)
    assert await read_u64(axil, REGS.FRAMES_LO) == 0x2_0000_0000
    assert await read_u64(axil, REGS.BYTES_LO) == 0x3_0000_0000

    # a carry between reading LO and HI does not tear the value
    dut.regs.bytes_reg.value = 0x3_FFFF_FFF8
    await RisingEdge(dut.aclk)
    lo, _ = await read_u32(axil, REGS.BYTES_LO)
    await source.send(AxiStreamFrame(b'\x5a' * 8))
    await sink.recv()
    hi, _ = await read_u32(axil, REGS.BYTES_HI)
    assert (hi, lo) == (0x3, 0xFFFF_FFF8)
    assert await read_u64(axil, REGS.BYTES_LO) == 0x4_0000_0000
