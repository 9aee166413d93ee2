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

"""Mutated real bitstreams, one per seed, for fuzzing what takes uploads.

``mutant(seed)`` always gives the same bytes for the same seed, and says
what it did, so a failure in a run of thousands is replayed from its seed
alone.  The kinds are the ways an upload goes wrong in practice or by
intent: bit flips, truncations, packets spliced, another device's IDCODE,
byte-swapped words, a .bit header that lies about its payload; and a CRC
made to match again after some of them, so the checks past the CRC are
reached too.  Some mutations keep the file valid (a header that renames
the design, trailing NOPs, the PCAP-ordered .bin form): those must be
accepted, and prove it (tests.unit.bitstream.recheck).
"""
import dataclasses
import random
import struct

from nova_fpga.bitstream import _crc
from nova_fpga.bitstream import container
from nova_fpga.bitstream import convert
from nova_fpga.bitstream import devices
from tests.unit.bitstream import mutate
from tests.unit.bitstream import realfiles
from tests.unit.bitstream import recheck

#: real files and how often each is the base (the 4 MB ones are rarer)
BASES = (('pr_0_add.bit', 5), ('pr_0_sub.bit', 5), ('prio.bit', 1),
         ('ov5640_lcd_7010.bit', 1))
#: the real partials, whose packets are spliced into others
PARTIALS = ('pr_0_add.bit', 'pr_0_sub.bit')
PARTS = ('7z020clg400', '7z020clg484', '7z010clg400', '7z045ffg900',
         'xc7z020clg400', '7a35tcsg324', '', 'z' * 300)

_files = {}


@dataclasses.dataclass(frozen=True)
class Mutant:
    seed: int
    base: str
    kind: str
    detail: str
    data: bytes = dataclasses.field(repr=False)


def base(name):
    if name not in _files:
        _files[name] = realfiles.read(name)
    return _files[name]


def _split(data):
    """(header bytes, payload words after sync, words up to and with it)."""
    header = container.parse_bit_header(data)
    payload = data[header.length:]
    words = list(struct.unpack('>%dI' % (len(payload) // 4), payload))
    sync = words.index(recheck.SYNC) + 1
    return data[:header.length], words[:sync], words[sync:]


def _join(header, pre, words, fix_length=True):
    """A .bit file again; its header's payload length made true or not."""
    payload = struct.pack('>%dI' % (len(pre) + len(words)), *pre, *words)
    data = header + payload
    if fix_length:
        data = mutate.with_header(data, payload_length=len(payload))
    return data


def _spans(pre, words):
    """[(start, end)] word index ranges of each packet after sync."""
    return [(i - len(pre), first - len(pre) + count) for i, _, first, count
            in recheck.packets(pre + words)]


def fix_crc(words):
    """words (those after the sync word) with every CRC check word made to
    match what precedes it, as far as they parse: so that a mutation
    reaches the checks past the CRC.  The native CRC, for speed: what
    judges the result is the validator and recheck, not this.
    """
    words = [recheck.SYNC] + list(words)
    crc = 0
    last_reg = None
    try:
        for _, header, first, count in recheck.packets(words):
            if header >> 29 == 1:
                last_reg = None if header == recheck.NOP \
                    else (header >> 13) & 0x3FFF
                reg = last_reg
            else:
                reg = recheck.FDRI if last_reg == recheck.FDRI else None
                last_reg = None
            if reg is None or not count:
                continue
            if reg == recheck.CMD:
                for word in words[first:first + count]:
                    crc = 0 if word == recheck.RCRC else _crc.update(
                        crc, struct.pack('>I', word), reg)
                continue
            if reg != recheck.CRC:
                crc = _crc.update(crc, struct.pack(
                    '>%dI' % count, *words[first:first + count]), reg & 0x1F)
                continue
            for at in range(first, first + count):
                words[at], crc = crc, 0
    except recheck.Invalid:
        pass  # the rest does not parse: left as it is
    return words[1:]


def bit_flip(rng, data):
    flips = []
    out = bytearray(data)
    for _ in range(rng.choice((1, 1, 1, 2, 3, 8))):
        where = rng.random()
        if where < 0.4:
            at = rng.randrange(min(4096, len(out)))
        elif where < 0.6:
            at = len(out) - 1 - rng.randrange(1024)
        else:
            at = rng.randrange(len(out))
        bit = rng.randrange(8)
        out[at] ^= 1 << bit
        flips.append('%d.%d' % (at, bit))
    return bytes(out), 'bits ' + ','.join(flips)


def truncate(rng, data):
    header, pre, words = _split(data)
    how = rng.choice(('anywhere', 'header', 'packet', 'tail', 'tail'))
    if how == 'anywhere':
        at = rng.randrange(len(data))
        return data[:at], 'cut at byte %d' % at
    if how == 'header':
        at = rng.randrange(len(header) + 8)
        return data[:at], 'cut at byte %d (header)' % at
    fix = rng.random() < 0.7
    if how == 'packet':
        start, _ = rng.choice(_spans(pre, words))
        return (_join(header, pre, words[:start], fix),
                'cut before packet at word %d, length %s'
                % (start, 'fixed' if fix else 'kept'))
    drop = rng.randint(1, 24)
    return (_join(header, pre, words[:-drop], fix),
            'last %d words dropped, length %s'
            % (drop, 'fixed' if fix else 'kept'))


def splice(rng, data):
    header, pre, words = _split(data)
    spans = _spans(pre, words)
    start, end = rng.choice(spans)
    to, _ = rng.choice(spans)
    how = rng.choice(('delete', 'duplicate', 'move', 'foreign'))
    packet = words[start:end]
    if how == 'delete':
        out = words[:start] + words[end:]
    elif how == 'duplicate':
        out = words[:to] + packet + words[to:]
    elif how == 'move':
        rest = words[:start] + words[end:]
        to = min(to, len(rest))
        out = rest[:to] + packet + rest[to:]
    else:
        _, opre, owords = _split(base(rng.choice(PARTIALS)))
        ostart, oend = rng.choice(_spans(opre, owords))
        packet = owords[ostart:oend]
        out = words[:to] + packet + words[to:]
    fixed = rng.random() < 0.5
    if fixed:
        out = fix_crc(out)
    return (_join(header, pre, out),
            '%s packet words %d-%d at %d%s' % (
                how, start, end, to, ', CRC fixed' if fixed else ''))


def wrong_device(rng, data):
    header, pre, words = _split(data)
    at = next(first for _, hdr, first, count in recheck.packets(pre + words)
              if hdr >> 29 == 1 and (hdr >> 13) & 0x3FFF == recheck.IDCODE
              and count) - len(pre)
    choice = rng.random()
    if choice < 0.6:
        device = rng.choice(devices.DEVICES)
        idcode, what = device.idcode, device.name
    elif choice < 0.8:
        # the same device, another silicon revision (version nibble)
        idcode = (words[at] & devices.IDCODE_MASK) | rng.randrange(16) << 28
        what = 'revision %d' % (idcode >> 28)
    else:
        idcode, what = rng.getrandbits(32), 'random'
    words[at] = idcode
    fixed = rng.random() < 0.8
    if fixed:
        words = fix_crc(words)
    out = _join(header, pre, words)
    part = choice < 0.6 and rng.random() < 0.5
    if part:
        out = mutate.with_header(out, part=device.short_name + 'clg400')
    return out, 'IDCODE 0x%08X (%s)%s%s' % (
        idcode, what, ', CRC fixed' if fixed else '',
        ', header part to match' if part else '')


def byte_swap(rng, data):
    payload = mutate.payload(data)
    how = rng.choice(('pcap-bin', 'plain-bin', 'bit-swapped', 'halfwords',
                      'range'))
    if how == 'pcap-bin':
        return convert.to_bin(data), 'header-less, words byte-swapped'
    if how == 'plain-bin':
        return payload, 'header-less, words as they are'
    header = data[:len(data) - len(payload)]
    if how == 'bit-swapped':
        return header + container.swap_words(payload), \
            'payload byte-swapped under its .bit header'
    if how == 'halfwords':
        out = bytearray(payload)
        out[0::2], out[1::2] = payload[1::2], payload[0::2]
        return header + bytes(out), '16-bit halves swapped'
    start = rng.randrange(len(payload) // 4) * 4
    end = min(len(payload), start + 4 * rng.randint(1, 64))
    return (header + payload[:start]
            + container.swap_words(payload[start:end]) + payload[end:],
            'bytes %d-%d of the payload swapped' % (start, end))


def header_lie(rng, data):
    fields = dataclasses.asdict(container.parse_bit_header(data))
    payload_length = fields['payload_length']
    how = rng.choice(('length', 'part', 'partial', 'user_id', 'design',
                      'date', 'raw'))
    if how == 'length':
        delta = rng.choice((-1, 1)) * rng.choice((1, 3, 4, 8, 1 << 20))
        value = max(0, payload_length + delta)
        return mutate.with_header(data, payload_length=value), \
            'payload length %d for %d' % (value, payload_length)
    if how == 'part':
        part = rng.choice(PARTS)
        return mutate.with_header(data, part=part), 'part %r' % part
    if how == 'partial':
        flag = not fields['partial_flag']
        return mutate.with_header(data, partial_flag=flag), \
            'PARTIAL=%s' % flag
    if how == 'user_id':
        value = rng.getrandbits(32)
        return mutate.with_header(data, user_id=value), \
            'UserID 0x%08X' % value
    if how == 'design':
        name = ''.join(chr(rng.randrange(0x20, 0x7F))
                       for _ in range(rng.choice((0, 1, 40, 1000))))
        return mutate.with_header(data, design=name), \
            'design name of %d chars' % len(name)
    if how == 'date':
        return mutate.with_header(data, date='9999/99/99',
                                  time='25:61:61'), 'impossible date'
    # a field's length bytes overwritten
    out = bytearray(data)
    at = len(container.BIT_PREAMBLE) + 1 + rng.randrange(2)
    value = rng.randrange(256)
    out[at] = value
    return bytes(out), 'byte %d of the first field length = %d' % (at, value)


def rewrite_word(rng, data):
    """One register write's value changed (FAR, CMD, CTL0, ...)."""
    header, pre, words = _split(data)
    writes = [(hdr, first) for _, hdr, first, count in
              recheck.packets(pre + words)
              if hdr >> 29 == 1 and count and (hdr >> 13) & 0x3FFF
              not in (recheck.FDRI, recheck.CRC)]
    hdr, first = rng.choice(writes)
    at = first - len(pre)
    value = rng.choice((0, 0xFFFFFFFF, rng.getrandbits(32),
                        words[at] ^ 1 << rng.randrange(32)))
    words[at] = value
    fixed = rng.random() < 0.7
    if fixed:
        words = fix_crc(words)
    return (_join(header, pre, words),
            'register 0x%02X write = 0x%08X%s' % (
                (hdr >> 13) & 0x3FFF, value, ', CRC fixed' if fixed else ''))


def neutral(rng, data):
    """Changes a valid file stays valid under."""
    header, pre, words = _split(data)
    how = rng.choice(('nops', 'dummies', 'design'))
    if how == 'nops':
        n = rng.randint(1, 64)
        return _join(header, pre, words + [recheck.NOP] * n), \
            '%d NOPs appended' % n
    if how == 'dummies':
        n = rng.randint(1, 64)
        return _join(header, [recheck.DUMMY] * n + pre, words), \
            '%d dummy words before the sync' % n
    return mutate.with_header(data, design='renamed_%d' % rng.getrandbits(
        16)), 'design renamed'


MUTATORS = {f.__name__: f for f in (bit_flip, truncate, splice, wrong_device,
                                    byte_swap, header_lie, rewrite_word,
                                    neutral)}
KINDS = tuple(MUTATORS)


def mutant(seed):
    """The mutant of this seed: kinds in turn, the base and the rest drawn
    from a generator seeded with it.
    """
    rng = random.Random(seed)
    names, weights = zip(*BASES)
    name = rng.choices(names, weights)[0]
    kind = KINDS[seed % len(KINDS)]
    data, detail = MUTATORS[kind](rng, base(name))
    return Mutant(seed, name, kind, detail, data)
