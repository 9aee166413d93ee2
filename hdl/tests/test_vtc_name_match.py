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

"""cocotb suite for vtc_name_match: with the catalogue's application table
loaded through its write port, every name gets the application the model
(vtc_names.Table.lookup) gives it: the host names nDPI read in the project's
captures, names made from every table entry, and the odd ones (upper case,
a final dot, empty labels, names longer than the bytes kept).
"""
import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles
from cocotb.triggers import FallingEdge
from cocotb.triggers import ReadOnly
from cocotb.triggers import RisingEdge
from cocotb.triggers import Timer

from axi_helpers import seeded_random
import vtc_captures
import vtc_names

#: cycles a name may take at most (bytes, three lookups a label, drain)
MAX_CYCLES = 4 * vtc_names.NAME_BYTES + 16


async def reset(dut):
    cocotb.start_soon(Clock(dut.clk, 4, unit='ns').start())
    dut.rst.value = 1
    dut.tbl_wr_en.value = 0
    dut.name_valid.value = 0
    dut.name_last.value = 0
    await ClockCycles(dut.clk, 2)
    dut.rst.value = 0
    await RisingEdge(dut.clk)
    while dut.clearing.value:
        await RisingEdge(dut.clk)
    cocotb.start_soon(ready_follows_the_names(dut))


async def ready_follows_the_names(dut):
    """name_ready, every cycle, is what the port contract says: high while
    the module waits for a name (not clearing), low from the cycle after it
    took a name's last byte until the cycle its answer (app_valid) is out,
    in which it is high again: the extractor starts its next name on it.
    """
    busy = False
    while True:
        # mid-cycle, when the inputs driven after the rising edge have settled
        await FallingEdge(dut.clk)
        await ReadOnly()
        if dut.app_valid.value:
            busy = False
        ready = bool(dut.name_ready.value)
        want = not busy and not dut.clearing.value
        assert ready == want, 'name_ready is %d, %s' % (
            ready, 'a name is being matched' if busy else 'no name is')
        if dut.name_valid.value and ready and dut.name_last.value:
            busy = True


async def load(dut, table):
    """Every word of the table through the write port, a word a cycle."""
    for bucket, ways in enumerate(table.words):
        for way, word in enumerate(ways):
            if word:
                dut.tbl_wr_en.value = 1
                dut.tbl_wr_addr.value = bucket * vtc_names.TABLE_WAYS + way
                dut.tbl_wr_data.value = word
                await RisingEdge(dut.clk)
    dut.tbl_wr_en.value = 0
    await RisingEdge(dut.clk)


async def match(dut, name, rng=None):
    """The application number the module gives a name (bytes), its bytes
    sent with random gaps when rng is given.
    """
    while not dut.name_ready.value:
        await RisingEdge(dut.clk)
    for index, byte in enumerate(name):
        while rng is not None and rng.random() < 0.2:
            dut.name_valid.value = 0
            await RisingEdge(dut.clk)
        dut.name_valid.value = 1
        dut.name_byte.value = byte
        dut.name_last.value = int(index == len(name) - 1)
        await RisingEdge(dut.clk)
    dut.name_valid.value = 0
    dut.name_last.value = 0
    for _ in range(MAX_CYCLES):
        await RisingEdge(dut.clk)
        await Timer(1, unit='ps')
        if dut.app_valid.value:
            return int(dut.app.value)
    raise AssertionError('no answer for %r in %d cycles' % (name, MAX_CYCLES))


def capture_names():
    """Every host name nDPI read in the project's captures."""
    names = set()
    for folder in vtc_captures.NDPI_FOLDERS:
        for path in vtc_captures.ndpi_capture_paths(folder):
            for flow in vtc_captures.ndpi_flows(
                    vtc_captures.ndpi_result_path(path)):
                if flow.hostname:
                    names.add(flow.hostname.encode())
    return sorted(names)


def entry_names(data):
    """Names made from every entry of the table file: the entry itself,
    under one more label, upper case, with a final dot, a label entry
    followed by a label and inside a longer name.
    """
    names = []
    for app in data['applications'] + [data['others']]:
        for suffix in app['suffixes']:
            suffix = suffix.encode()
            names += [suffix, b'www.' + suffix, b'x' + suffix,
                      suffix.upper() + b'.', suffix[1:]]
        for label in app['labels']:
            label = label.encode()
            names += [label, label + b'.com', b'a.' + label + b'.co.uk',
                      b'not' + label + b'.com']
    return names


def odd_names(rng):
    """Empty labels, dots alone, bytes no host name has, names longer than
    the bytes kept (cut inside a label, right after a dot, at a dot).
    """
    keep = vtc_names.NAME_BYTES
    names = [b'.', b'..', b'.netflix.com', b'www..netflix.com',
             b'netflix.com..', b'*.teams.microsoft.com', b'\xff.youtube.com',
             b'a' * (keep - 12) + b'.netflix.com',
             b'a' * (keep - 11) + b'.netflix.com',
             b'a' * (keep - 10) + b'.netflix.com',
             b'a' * (keep + 20) + b'.netflix.com',
             b'a' * (keep - 12) + b'..netflix.com',
             b'b.' + b'a' * (keep - 14) + b'.netflix.com',
             b'a' * (keep - 11) + b'.netflix.com.',
             b'x' * (keep + 5), b'youtube.' + b'y' * (keep - 8)]
    labels = [b'www', b'youtube', b'netflix', b'com', b'google', b'apple',
              b'guzzoni', b'co', b'uk', b'a', b'WWW', b'']
    while len(names) < 316:
        name = b'.'.join(rng.choice(labels)
                         for _ in range(rng.randint(1, 9)))
        if name:  # a name of no bytes cannot be sent
            names.append(name)
    return names


async def check(dut, names, rng=None):
    table = vtc_names.load()
    wrong = []
    for name in names:
        got = await match(dut, name, rng)
        want = table.lookup(name)
        if got != want:
            wrong.append((name, got, want))
    assert not wrong, 'names the module and the model disagree on ' \
        '(name, module, model): %s' % wrong[:10]


@cocotb.test()
async def the_table_names_what_the_model_names(dut):
    await reset(dut)
    await load(dut, vtc_names.load())
    names = capture_names() + entry_names(vtc_names.table_data())
    table = vtc_names.load()
    assert sum(1 for n in names if table.lookup(n)) > 300
    await check(dut, names)


@cocotb.test()
async def odd_and_cut_names_follow_the_model(dut):
    rng = seeded_random(dut)
    await reset(dut)
    await load(dut, vtc_names.load())
    await check(dut, odd_names(rng), rng)


@cocotb.test()
async def an_empty_table_names_nothing_and_a_write_is_seen(dut):
    """After a reset (which empties the table the other tests loaded)
    nothing is named; one word written makes its name known.
    """
    await reset(dut)
    assert await match(dut, b'www.netflix.com') == 0
    table = vtc_names.Table()
    table.add(vtc_names.SUFFIX, 'netflix.com', 2)
    await load(dut, table)
    assert await match(dut, b'www.netflix.com') == 2
    assert await match(dut, b'www.youtube.com') == 0
