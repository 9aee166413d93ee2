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

"""A second, independent reading of a configuration stream.

Fuzz tests use it to prove that an input the product accepted is valid:
it is written from UG470 (chapter 5: .bit header, sync, Type 1/Type 2
packets, the configuration CRC) and shares no code with
``nova_fpga.bitstream`` (its CRC is a table CRC-32C in pure Python, not the
native one), so a defect in the validator cannot vouch for itself here.
It is deliberately plain and whole-file; it judges structure and
integrity, and leaves policy (which device, which region) to its caller.
"""
import dataclasses
import struct

PREAMBLE = bytes.fromhex('00090ff00ff00ff00ff0000001')
SYNC = 0xAA995566
DUMMY = 0xFFFFFFFF
BUS_WIDTH = (0x000000BB, 0x11220044)
NOP = 0x20000000
# UG470 table 5-23: register addresses
CRC, FAR, FDRI, CMD, IDCODE = 0x00, 0x01, 0x02, 0x04, 0x0C
COR0, COR1, WBSTAR, TIMER = 0x09, 0x0E, 0x10, 0x11
#: every register a configuration stream may write (the rest are unknown
#: or read-only: FDRO, STAT, BOOTSTS)
WRITABLE = {0x00, 0x01, 0x02, 0x04, 0x05, 0x06, 0x08, 0x09, 0x0A, 0x0B,
            0x0C, 0x0D, 0x0E, 0x10, 0x11, 0x13, 0x18, 0x1F}
# table 5-24: commands
RCRC, SWITCH, DESYNC, MAX_COMMAND = 0x07, 0x09, 0x0D, 0x13
POLY = 0x82F63B78  # CRC-32C, reflected


def _table(bits):
    """What `bits` zero-input steps of the reflected CRC make of each
    value of the low `bits` bits (the rest only shifts out).
    """
    table = []
    for value in range(1 << bits):
        for _ in range(bits):
            value = (value >> 1) ^ POLY if value & 1 else value >> 1
        table.append(value)
    return table


_T16 = _table(16)
_T5 = _table(5)


def crc_step(crc, address, word):
    """The CRC after one register write: the 32 data bits, least
    significant first, then the 5 address bits.
    """
    crc ^= word & 0xFFFF
    crc = (crc >> 16) ^ _T16[crc & 0xFFFF]
    crc ^= word >> 16
    crc = (crc >> 16) ^ _T16[crc & 0xFFFF]
    return (crc >> 5) ^ _T5[(crc ^ address) & 0x1F]


class Invalid(Exception):
    """The stream is not a valid configuration stream."""


@dataclasses.dataclass
class Reading:
    part: str                 # the header's part, '' without a header
    idcode: int = None
    #: [(FAR, words)] of the frame writes, in stream order
    blocks: list = dataclasses.field(default_factory=list)
    crc_checks: int = 0
    #: a device set-up write (COR0/COR1/WBSTAR/TIMER or CMD SWITCH)
    setup: bool = False


def split_header(data):
    """(part, payload) of a .bit file; ('', data) for a header-less .bin."""
    if not data.startswith(PREAMBLE):
        return '', data
    pos = len(PREAMBLE)
    fields = {}
    for key in b'abcd':
        if data[pos:pos + 1] != bytes([key]) or pos + 3 > len(data):
            raise Invalid('header field %s missing' % chr(key))
        size = int.from_bytes(data[pos + 1:pos + 3], 'big')
        fields[key] = data[pos + 3:pos + 3 + size]
        pos += 3 + size
    if data[pos:pos + 1] != b'e' or pos + 5 > len(data):
        raise Invalid('header field e missing')
    length = int.from_bytes(data[pos + 1:pos + 5], 'big')
    payload = data[pos + 5:]
    if len(payload) != length:
        raise Invalid('header declares %d payload bytes, file has %d'
                      % (length, len(payload)))
    return fields[ord('b')].rstrip(b'\0').decode('ascii', 'replace'), payload


def words_of(payload, headerless):
    """The payload as big-endian words, a PCAP-ordered .bin turned round."""
    if len(payload) % 4:
        raise Invalid('payload is not whole 32-bit words')
    count = len(payload) // 4
    words = list(struct.unpack('>%dI' % count, payload))
    swapped = [struct.unpack('<I', struct.pack('>I', w))[0]
               for w in (SYNC, BUS_WIDTH[0])]
    if headerless and next((w for w in words if w != DUMMY),
                           None) in swapped:
        words = list(struct.unpack('<%dI' % count, payload))
    return words


def packets(words):
    """(index, header, first data index, data words) of each packet after
    the sync word; Invalid when the words before it are not dummy or
    bus-width words.
    """
    i = 0
    while i < len(words) and words[i] != SYNC:
        if words[i] != DUMMY and words[i] not in BUS_WIDTH:
            raise Invalid('word %08X before sync' % words[i])
        i += 1
    if i == len(words):
        raise Invalid('no sync word')
    i += 1
    while i < len(words):
        header = words[i]
        kind = header >> 29
        if kind == 1:
            count = header & 0x7FF
        elif kind == 2:
            count = header & 0x07FFFFFF
        else:
            raise Invalid('word %08X at %d is no packet' % (header, i))
        if i + 1 + count > len(words):
            raise Invalid('packet at %d runs past the end' % i)
        yield i, header, i + 1, count
        i += 1 + count


def read(data):
    """The Reading of a valid stream; Invalid names the first fault."""
    part, payload = split_header(bytes(data))
    words = words_of(payload, not bytes(data).startswith(PREAMBLE))
    out = Reading(part)
    crc = 0
    unchecked = False       # frame data not yet covered by a check word
    last_reg = None         # what a Type 2 packet continues
    far, new_far = None, False
    desynced = False
    for index, header, first, count in packets(words):
        if desynced:
            if header != NOP:
                raise Invalid('packet %08X after DESYNC' % header)
            continue
        op = (header >> 27) & 3
        if header >> 29 == 1:
            if header == NOP:
                last_reg = None
                continue
            if op != 2 or (header >> 11) & 3:
                raise Invalid('Type 1 header %08X is no write' % header)
            last_reg = (header >> 13) & 0x3FFF
            if last_reg not in WRITABLE:
                raise Invalid('write to register %X' % last_reg)
            reg = last_reg
        elif op != 2 or last_reg != FDRI:
            raise Invalid('Type 2 packet %08X not after a FDRI write'
                          % header)
        else:
            reg, last_reg = FDRI, None
        if reg == FDRI:
            if count:
                if out.idcode is None or out.blocks == [] and not new_far:
                    raise Invalid('frame data before IDCODE and FAR')
                if new_far or not out.blocks:
                    out.blocks.append([far, 0])
                out.blocks[-1][1] += count
                new_far = False
                unchecked = True
            for word in words[first:first + count]:
                crc = crc_step(crc, FDRI, word)
            continue
        for word in words[first:first + count]:
            if reg == CRC:
                if word != crc:
                    raise Invalid('CRC word %08X, computed %08X'
                                  % (word, crc))
                crc, unchecked = 0, False
                out.crc_checks += 1
                continue
            crc = crc_step(crc, reg, word)
            if reg == FAR:
                far, new_far = word, True
            elif reg == IDCODE:
                if out.idcode not in (None, word):
                    raise Invalid('two IDCODEs')
                out.idcode = word
            elif reg in (COR0, COR1, WBSTAR, TIMER):
                out.setup = True
            elif reg == CMD and word == RCRC:
                crc = 0
            elif reg == CMD and word == SWITCH:
                out.setup = True
            elif reg == CMD and word > MAX_COMMAND:
                raise Invalid('unknown command %X' % word)
            elif reg == CMD and word == DESYNC:
                if unchecked:
                    raise Invalid('frame data not covered by a CRC check')
                desynced = True
    if not desynced:
        raise Invalid('no DESYNC')
    if out.idcode is None or not out.blocks or not out.crc_checks:
        raise Invalid('no IDCODE, frame data or CRC check')
    out.blocks = [tuple(b) for b in out.blocks]
    return out
