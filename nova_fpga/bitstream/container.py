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

"""The two containers a configuration stream comes in.

``.bit`` (Vivado ``write_bitstream``): a 13-byte preamble, then tagged fields
``a`` (design name and options such as ``UserID=`` and ``PARTIAL=TRUE``),
``b`` (part), ``c`` (date), ``d`` (time), each a big-endian 16-bit length and
a NUL-terminated string, then ``e``: a big-endian 32-bit length of the
configuration data that makes up the rest of the file.

``.bin``: the configuration data alone, either as the device reads it
(big-endian words) or with every 32-bit word byte-swapped, the order the
Zynq PCAP (devcfg / FPGA manager) wants.
"""
import array
import dataclasses
import re
import struct

from nova_fpga.bitstream import errors

BIT_PREAMBLE = bytes.fromhex('00090FF00FF00FF00FF0000001')
FIELD_KEYS = b'abcd'
MAX_FIELD_LEN = 4096
NO_USER_ID = 0xFFFFFFFF

BIN_PLAIN = 'bin'
BIN_SWAPPED = 'bin-swapped'
BIT = 'bit'


@dataclasses.dataclass(frozen=True)
class BitHeader:
    design: str
    user_id: int          # NO_USER_ID when not declared
    partial_flag: bool    # PARTIAL=TRUE present (newer Vivado only)
    tool_version: str
    part: str
    date: str
    time: str
    payload_length: int
    length: int           # bytes of header, i.e. offset of the payload


def _field_text(raw, key, offset):
    if raw.endswith(b'\0'):
        raw = raw[:-1]
    try:
        text = raw.decode('ascii')
    except UnicodeDecodeError:
        raise errors.HeaderError("header field '%s' is not ASCII text"
                                 % key, offset)
    if not text.isprintable():
        raise errors.HeaderError("header field '%s' holds control characters"
                                 % key, offset)
    return text


def _design_field(text, offset):
    """Split 'design;UserID=0X…;PARTIAL=TRUE;Version=2019.1'."""
    design, *options = text.split(';')
    values = {}
    for option in options:
        key, sep, value = option.partition('=')
        if sep:
            values[key.strip().upper()] = value.strip()
    user_id = NO_USER_ID
    if 'USERID' in values:
        if not re.fullmatch(r'(0[xX])?[0-9a-fA-F]{1,8}', values['USERID']):
            raise errors.HeaderError(
                'header UserID %r is not a 32-bit hex number'
                % values['USERID'], offset)
        user_id = int(values['USERID'], 16)
    partial = values.get('PARTIAL', '').upper() == 'TRUE'
    return design, user_id, partial, values.get('VERSION', '')


def parse_bit_header(buf):
    """Parse a .bit header from the start of ``buf``.

    :returns: a :class:`BitHeader`, or None when ``buf`` does not yet hold
        the whole header (the caller feeds more and asks again).
    :raises HeaderError: when the header is malformed.
    """
    if len(buf) < len(BIT_PREAMBLE):
        return None
    if bytes(buf[:len(BIT_PREAMBLE)]) != BIT_PREAMBLE:
        raise errors.HeaderError('not a .bit header preamble', 0)
    pos = len(BIT_PREAMBLE)
    fields = {}
    for key in FIELD_KEYS:
        if len(buf) < pos + 3:
            return None
        if buf[pos] != key:
            raise errors.HeaderError(
                "expected header field '%s', found byte 0x%02X"
                % (chr(key), buf[pos]), pos)
        (length,) = struct.unpack_from('>H', buf, pos + 1)
        if length > MAX_FIELD_LEN:
            raise errors.HeaderError("header field '%s' claims %d bytes "
                                     "(limit %d)" % (chr(key), length,
                                                     MAX_FIELD_LEN), pos)
        if len(buf) < pos + 3 + length:
            return None
        fields[chr(key)] = _field_text(bytes(buf[pos + 3:pos + 3 + length]),
                                       chr(key), pos)
        pos += 3 + length
    if len(buf) < pos + 5:
        return None
    if buf[pos] != ord('e'):
        raise errors.HeaderError("expected header field 'e' (payload length), "
                                 "found byte 0x%02X" % buf[pos], pos)
    (payload_length,) = struct.unpack_from('>I', buf, pos + 1)
    if payload_length % 4:
        raise errors.HeaderError('header payload length %d is not a whole '
                                 'number of 32-bit words' % payload_length,
                                 pos)
    design, user_id, partial, version = _design_field(fields['a'],
                                                      len(BIT_PREAMBLE))
    return BitHeader(design=design, user_id=user_id, partial_flag=partial,
                     tool_version=version, part=fields['b'],
                     date=fields['c'], time=fields['d'],
                     payload_length=payload_length, length=pos + 5)


def write_bit_header(design, user_id, partial, tool_version, part, date,
                     time, payload_length):
    """The .bit header Vivado writes for these values."""
    options = ['UserID=0X%08X' % user_id]
    if partial:
        options.append('PARTIAL=TRUE')
    options.append('Version=%s' % tool_version)
    out = bytearray(BIT_PREAMBLE)
    for key, text in zip('abcd', (';'.join([design] + options), part, date,
                                  time)):
        raw = text.encode('ascii') + b'\0'
        out += key.encode() + struct.pack('>H', len(raw)) + raw
    out += b'e' + struct.pack('>I', payload_length)
    return bytes(out)


def swap_words(data):
    """Byte-swap every 32-bit word (big-endian <-> PCAP order)."""
    words = array.array('I', bytes(data))
    words.byteswap()
    return words.tobytes()
