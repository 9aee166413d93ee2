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

"""cocotb suite for vtc_parser alone: its request for every frame of the
project's captures (and their IPv6 and QinQ variants) says what the model's
parse() says: parsed or not, a fragment, the flow's key, whether there is a
payload, and where the payload starts and how long it is (what the name
extractor is told to read).  The vTC suites test the rest of the request
through the module's output.
"""
import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles
from cocotb.triggers import ReadOnly
from cocotb.triggers import RisingEdge

from axi_helpers import seeded_random
from axi_helpers import send_beats
import vtc_captures
import vtc_model


async def start(dut):
    cocotb.start_soon(Clock(dut.clk, 4, unit='ns').start())
    dut.rst.value = 1
    dut.in_beat.value = 0
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0
    await RisingEdge(dut.clk)


async def requests(dut, out):
    while True:
        await RisingEdge(dut.clk)
        await ReadOnly()
        if dut.req_valid.value:
            out.append(dict(
                parsed=int(dut.req_parsed.value),
                fragment=int(dut.req_fragment.value),
                key=int(dut.req_key.value),
                payload=int(dut.req_payload.value),
                start=int(dut.req_payload_start.value),
                length=int(dut.req_payload_length.value)))


def expected(frame):
    parsed = vtc_model.parse(frame)
    if parsed is vtc_model.FRAGMENT:
        return dict(parsed=0, fragment=1)
    if parsed is None:
        return dict(parsed=0, fragment=0)
    return dict(parsed=1, fragment=0, key=vtc_model.stored_key(parsed.key),
                payload=int(parsed.payload_len > 0), start=parsed.start,
                length=parsed.payload_len)


async def check(dut, frames):
    rng = seeded_random(dut)
    await start(dut)
    got = []
    cocotb.start_soon(requests(dut, got))
    for frame in frames:
        await send_beats(dut, frame, rng, gaps=0.1)
    await ClockCycles(dut.clk, 64)
    assert len(got) == len(frames)
    wrong = []
    for index, (frame, request) in enumerate(zip(frames, got)):
        want = expected(frame)
        if {k: request[k] for k in want} != want:
            wrong.append((index, want, request))
    parsed = sum(1 for r in got if r['parsed'])
    assert parsed > len(frames) // 2, parsed
    assert not wrong, '%d of %d requests differ (frame, model, parser): %s' \
        % (len(wrong), len(frames), wrong[:3])


def capture_frames():
    frames = []
    for path in vtc_captures.ndpi_capture_paths('ndpi'):
        frames += vtc_captures.read_frames(path)
    return frames


@cocotb.test()
async def requests_say_what_the_model_parses(dut):
    frames = capture_frames()
    await check(dut, frames + vtc_captures.ipv6_variant(frames[:400])
                + vtc_captures.qinq_variant(frames[:400]))
