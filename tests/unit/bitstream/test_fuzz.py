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

"""Fuzzing over mutations of the real files: every input ends in a
description or a BitstreamError, never another exception, and the streamed
verdict equals the whole-file verdict.  At least 20,000 inputs per run."""
import collections
import os
import struct

from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
import pytest

from nova_fpga import bitstream
from nova_fpga.bitstream import convert
from nova_fpga.bitstream import devices
from nova_fpga.bitstream import packets as pk
from tests.unit.bitstream import realfiles

EXAMPLES = max(20000, int(os.environ.get('NOVA_FPGA_FUZZ_EXAMPLES', 0)))

# Small files more often: the 4 MB ones cost ten times as much.
BASES = (['pr_0_add.bit'] * 4 + ['pr_0_sub.bit'] * 2
         + ['NEGATIVE_microblaze_pmod_mailbox.bin'] * 2
         + ['pcap:pr_0_add.bit'] * 2 + ['prio.bit', 'ov5640_lcd_7010.bit'])

WORDS = ([pk.SYNC_WORD, pk.NOP_WORD, pk.DUMMY_WORD, 0, 0x000000BB,
          0xBB000000, 0x665599AA]
         + [pk.type1(pk.OP_WRITE, r, 1) for r in pk.Reg]
         + [pk.type1(pk.OP_WRITE, pk.Reg.FDRI, 0), pk.type2(pk.OP_WRITE, 101),
            pk.type2(pk.OP_WRITE, 0x07FFFFFF), pk.type1(pk.OP_READ, 7, 1)]
         + [int(c) for c in pk.Cmd] + [d.idcode for d in devices.DEVICES[:12]])

_cache = {}
STATS = collections.Counter()


def base(name):
    if name not in _cache:
        if name.startswith('pcap:'):
            _cache[name] = convert.to_bin(realfiles.read(name[5:]))
        else:
            _cache[name] = realfiles.read(name)
    return _cache[name]


@st.composite
def positions(draw, size):
    if size <= 1:
        return 0
    edge = min(1024, size - 1)
    return draw(st.one_of(st.integers(0, edge),            # header, packets
                          st.integers(size - 1 - edge, size - 1),  # the end
                          st.integers(0, size - 1)))        # frame data


@st.composite
def mutations(draw):
    """(base file, [edit, ...], chunk size): small to print, replayable."""
    name = draw(st.sampled_from(BASES))
    size = len(base(name))
    edits = []
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(['flip', 'word', 'truncate', 'delete',
                                   'insert', 'duplicate']))
        at = draw(positions(size))
        if op == 'flip':
            arg = draw(st.integers(0, 7))
        elif op == 'word':
            arg = draw(st.one_of(st.sampled_from(WORDS),
                                 st.integers(0, 2 ** 32 - 1)))
        elif op == 'insert':
            arg = draw(st.binary(min_size=1, max_size=16))
        else:
            arg = draw(st.integers(1, 64))
        edits.append((op, at, arg))
    # Tiny chunks only for small inputs: byte-by-byte over 4 MB would take
    # seconds per input (test_streaming covers tiny chunks on real files).
    chunk = draw(st.one_of(st.none(), st.integers(1, 64) if size < 8192
                           else st.integers(509, 1 << 16)))
    return name, edits, chunk


def apply(name, edits):
    data = bytearray(base(name))
    for op, at, arg in edits:
        at = min(at, max(len(data) - 1, 0))
        if op == 'flip' and data:
            data[at] ^= 1 << arg
        elif op == 'word':
            at -= at % 4
            data[at:at + 4] = struct.pack('>I', arg)
        elif op == 'truncate':
            del data[at:]
        elif op == 'delete':
            del data[at:at + arg % 16 + 1]
        elif op == 'insert':
            data[at:at] = arg
        elif op == 'duplicate':
            data[at:at] = data[at:at + arg]
    return bytes(data)


def verdict(data, chunk=None):
    v = bitstream.Validator()
    try:
        if chunk is None:
            v.feed(data)
        else:
            for start in range(0, len(data), chunk):
                v.feed(data[start:start + chunk])
        return v.finish().to_dict()
    except bitstream.BitstreamError as exc:
        assert str(exc), 'an error without a message'
        return (type(exc).__name__, str(exc))


@pytest.mark.fuzz
@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(mutations())
def test_any_input_ends_in_a_verdict(case):
    name, edits, chunk = case
    data = apply(name, edits)
    whole = verdict(data)
    STATS['inputs'] += 1
    STATS['valid' if isinstance(whole, dict) else whole[0]] += 1
    if chunk is not None:
        assert verdict(data, chunk) == whole
        STATS['streamed'] += 1


@pytest.mark.fuzz
def test_fuzz_ran_enough_inputs(report):
    """Runs after the fuzz test (file order): prints and checks the count."""
    report('fuzz: %d inputs (%s)' % (STATS['inputs'], ', '.join(
        '%s %d' % kv for kv in sorted(STATS.items()) if kv[0] != 'inputs')))
    assert STATS['inputs'] >= 20000
    assert STATS['valid'] and STATS['CrcError'] and STATS['TruncatedError']
