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

"""Shared pieces of the cocotb suites: clock/reset, stimulus, register access.
"""
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import RisingEdge
from cocotb.triggers import Timer

CLOCK_PERIOD_NS = 10


def seeded_random(dut):
    """A random generator seeded from cocotb's seed, which is logged so a
    failure can be replayed.
    """
    dut._log.info('random seed %d (rerun with COCOTB_RANDOM_SEED=%d)',
                  cocotb.RANDOM_SEED, cocotb.RANDOM_SEED)
    return random.Random(cocotb.RANDOM_SEED)


async def start(dut, resets=('aresetn',), cycles=4):
    """Pulse the active-low resets, starting the clock once every input has
    settled.
    """
    for name in resets:
        getattr(dut, name).value = 0
    await Timer(1, unit='ns')
    cocotb.start_soon(Clock(dut.aclk, CLOCK_PERIOD_NS, unit='ns').start())
    for _ in range(cycles):
        await RisingEdge(dut.aclk)
    for name in resets:
        getattr(dut, name).value = 1
    for _ in range(2):
        await RisingEdge(dut.aclk)


def pauses(rng, busy):
    """An endless pause pattern: True (stall this cycle) with probability
    `busy`.
    """
    while True:
        yield rng.random() < busy


def random_frames(rng, count, min_len=1, max_len=1600):
    return [
        bytes(rng.getrandbits(8) for _ in range(rng.randint(min_len, max_len)))
        for _ in range(count)
    ]


async def read_u32(axil, address):
    """Read one register; return (value, AXI response)."""
    resp = await axil.read(address, 4)
    return int.from_bytes(resp.data, 'little'), resp.resp


async def write_u32(axil, address, value):
    """Write one register; return the AXI response."""
    resp = await axil.write(address, value.to_bytes(4, 'little'))
    return resp.resp


async def send_beats(dut, frame, rng, gaps=0.0, first=None):
    """Drive a frame into a part's raw beat ports (in_tdata, in_tkeep,
    in_tlast, in_beat: no handshake), byte 0 in lane 0, with idle cycles
    between beats at rate gaps; first() once the first beat is taken.
    """
    width = len(dut.in_tkeep)
    for at in range(0, len(frame), width):
        if at == width and first:
            first()
        while rng.random() < gaps:
            dut.in_beat.value = 0
            await RisingEdge(dut.clk)
        chunk = frame[at:at + width]
        dut.in_tdata.value = int.from_bytes(chunk.ljust(width, b'\x00'),
                                            'little')
        dut.in_tkeep.value = (1 << len(chunk)) - 1
        dut.in_tlast.value = int(at + width >= len(frame))
        dut.in_beat.value = 1
        await RisingEdge(dut.clk)
    if len(frame) <= width and first:
        first()
    dut.in_beat.value = 0
