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

"""The streaming bitstream validator: one pass, bounded memory.

It reads a configuration stream the way the device's configuration logic
does (dummy and bus-width words, sync, Type 1/Type 2 packets, the CRC over
every register write) and builds the description the rest of nova-fpga
relies on: device, partial or full, frame footprint, module ID, digest.
Glance feeds it an upload chunk by chunk; the agent and the emulator feed
it a whole file; both get the same verdict.  Frame data is never buffered:
it goes through the native CRC as it arrives.
"""
import dataclasses
import hashlib
import struct

from nova_fpga.bitstream import _crc
from nova_fpga.bitstream import container
from nova_fpga.bitstream import devices
from nova_fpga.bitstream import errors
from nova_fpga.bitstream import footprint as fp
from nova_fpga.bitstream import packets as pk
from nova_fpga.bitstream.packets import Cmd
from nova_fpga.bitstream.packets import Reg

_WORD = struct.Struct('>I')
MAX_PRESYNC_WORDS = 1024

# stages
_DETECT, _PRESYNC, _PACKETS, _DESYNCED = range(4)


@dataclasses.dataclass(frozen=True)
class Bitstream:
    """What a valid bitstream is and does."""
    container: str            # 'bit', 'bin' or 'bin-swapped'
    device: devices.Device
    idcode: int               # as written, version nibble included
    partial: bool
    footprint: fp.Footprint
    design: str               # '' for a .bin (no header)
    module_id: int            # container.NO_USER_ID when not declared
    header_part: str          # '' for a .bin
    header_partial: bool      # header says PARTIAL=TRUE
    tool_version: str
    date: str
    time: str
    crc_checks: int
    sha256: str               # None when the caller asked for no digest
    size: int                 # bytes in the file
    payload_offset: int       # where the configuration data starts
    payload_size: int         # bytes of configuration data
    #: the AXSS (USR_ACCESS) value the configuration writes, None if none:
    #: what still names the module in a header-less .bin
    usr_access: int = None

    @property
    def module_declared(self):
        return self.module_id != container.NO_USER_ID

    @property
    def frames(self):
        return self.footprint.words // self.device.frame_words

    def to_dict(self):
        return {
            'container': self.container,
            'device': self.device.name,
            'family': self.device.family,
            'idcode': '0x%08X' % self.idcode,
            'kind': 'partial' if self.partial else 'full',
            'design': self.design,
            'module_id': ('0x%08X' % self.module_id
                          if self.module_declared else None),
            'header_part': self.header_part,
            'tool_version': self.tool_version,
            'date': self.date,
            'time': self.time,
            'frames': self.frames,
            'footprint': self.footprint.to_dict(),
            'crc': {'status': 'verified', 'checks': self.crc_checks},
            'sha256': self.sha256,
            'size': self.size,
            'payload_offset': self.payload_offset,
            'payload_size': self.payload_size,
        }


class Validator:
    """Push parser: ``feed()`` chunks, then ``finish()`` for the verdict.

    ``feed`` raises :class:`BitstreamError` as soon as the stream is known
    to be bad, so an upload can be cut short; ``finish`` raises it or
    returns a :class:`Bitstream`.
    """

    def __init__(self, digest=True):
        # Glance computes its own digests of what it stores: it passes False.
        self._sha = hashlib.sha256() if digest else None
        self._size = 0
        self._stage = _DETECT
        self._head = bytearray()       # bytes before the payload is located
        self._header = None
        self._container = None
        self._payload_offset = 0
        self._carry = b''              # payload bytes short of a whole word
        self._buf = bytearray()        # whole big-endian words not yet used
        self._buf_offset = 0           # file offset of _buf[0]
        self._swap = False
        self._swap_pending = False     # swap the rest of _buf once decided
        self._presync_words = 0
        # configuration logic state
        self._crc = 0
        self._crc_from = None          # offset of the first folded write
        self._crc_checks = 0
        self._unchecked_frames = None  # offset of frame data not yet checked
        self._type1_reg = None         # register a Type 2 packet writes
        self._bulk_words = 0           # Type 2 payload words still to come
        self._idcode = None
        self._device = None
        self._far = None
        self._far_written = False      # a FAR write since the last block
        self._blocks = []
        self._setup_at = None          # offset of a device set-up write
        self._usr_access = None        # the last AXSS write
        self._desync_at = None

    # -- input -------------------------------------------------------------

    def feed(self, chunk):
        if not chunk:
            return
        if self._sha is not None:
            self._sha.update(chunk)
        self._size += len(chunk)
        if self._stage == _DETECT:
            self._head += chunk
            if not self._detect():
                return
            chunk, self._head = bytes(self._head[self._payload_offset:]), None
        excess = self._excess(len(chunk))
        if excess:
            chunk = chunk[:len(chunk) - excess]
        self._take_payload(chunk)
        if excess:
            # Only now: errors come in stream order, whatever the chunking.
            raise errors.HeaderError(
                'file continues past the %d bytes of configuration data '
                'its header declares' % self._header.payload_length,
                self._payload_offset + self._header.payload_length)

    def _detect(self):
        head = self._head
        n = len(container.BIT_PREAMBLE)
        if head[:n] == container.BIT_PREAMBLE[:len(head[:n])]:
            if len(head) < n:
                return False
            header = container.parse_bit_header(head)
            if header is None:
                return False  # bounded: every field is at most MAX_FIELD_LEN
            self._header = header
            self._container = container.BIT
            self._payload_offset = header.length
        else:
            if len(head) < 4:
                return False
            first = _WORD.unpack_from(head)[0]
            if first not in (pk.DUMMY_WORD, pk.BUS_WIDTH_WORDS[0],
                             pk.SYNC_WORD, _swapped(pk.BUS_WIDTH_WORDS[0]),
                             _swapped(pk.SYNC_WORD)):
                raise errors.ContainerError(
                    'not a Xilinx bitstream: starts with %s; expected a .bit '
                    'header (00 09 0F F0 ...) or the dummy/bus-width/sync '
                    'words of a .bin' % head[:4].hex(' ').upper(), 0)
            self._container = container.BIN_PLAIN
            self._payload_offset = 0
        self._buf_offset = self._payload_offset
        self._stage = _PRESYNC
        return True

    def _excess(self, just_fed):
        """Bytes of the last chunk beyond the length a .bit header declares."""
        if self._header is None:
            return 0
        beyond = (
            self._size - self._payload_offset - self._header.payload_length
        )
        return min(max(beyond, 0), just_fed)

    def _take_payload(self, data):
        if self._carry:
            data = self._carry + data
        whole = len(data) - len(data) % 4
        self._carry = bytes(data[whole:])
        if not whole:
            return
        words = memoryview(data)[:whole]
        if self._swap:
            words = container.swap_words(words)
        if self._buf:
            self._buf += words
            words = self._buf
        self._process(words)

    # -- the configuration logic ----------------------------------------------

    def _process(self, buf):
        """Consume the whole words in buf; keep an unfinished packet."""
        end = len(buf)
        pos = 0
        while pos + 4 <= end:
            if self._bulk_words:
                take = min(self._bulk_words, (end - pos) // 4)
                with memoryview(buf) as view:
                    self._crc = _crc.update(
                        self._crc, view[pos:pos + 4 * take], Reg.FDRI)
                self._bulk_words -= take
                pos += 4 * take
                continue
            word = _WORD.unpack_from(buf, pos)[0]
            offset = self._buf_offset + pos
            if self._stage == _PRESYNC:
                pos += 4
                self._presync(word, offset, pos)
                if self._swap_pending:
                    # The rest of the buffer arrived in PCAP order.
                    buf = bytearray(buf)
                    buf[pos:end] = container.swap_words(buf[pos:end])
                    self._swap_pending = False
            elif self._stage == _PACKETS:
                used = self._packet(word, offset, buf, pos, end)
                if used is None:
                    break  # wait for the rest of this packet
                pos += used
            else:
                self._after_desync(word, offset)
                pos += 4
        self._buf = bytearray(buf[pos:])
        self._buf_offset += pos

    def _presync(self, word, offset, next_pos):
        if self._container != container.BIT and not self._swap \
                and word in (_swapped(pk.BUS_WIDTH_WORDS[0]),
                             _swapped(pk.SYNC_WORD)):
            self._swap = self._swap_pending = True
            self._container = container.BIN_SWAPPED
            word = _swapped(word)
        if word == pk.SYNC_WORD:
            self._stage = _PACKETS
            return
        if word not in (pk.DUMMY_WORD,) + pk.BUS_WIDTH_WORDS:
            raise errors.SyncError(
                'word 0x%08X before the sync word: only dummy (FFFFFFFF) and '
                'bus-width (000000BB 11220044) words may precede it' % word,
                offset)
        self._presync_words += 1
        if self._presync_words > MAX_PRESYNC_WORDS:
            raise errors.SyncError('no sync word (AA995566) in the first %d '
                                   'words' % MAX_PRESYNC_WORDS, offset)

    def _after_desync(self, word, offset):
        if word not in (pk.NOP_WORD, pk.DUMMY_WORD):
            raise errors.PacketError(
                'word 0x%08X after DESYNC: a configuration stream ends with '
                'NOPs there' % word, offset)

    def _packet(self, word, offset, buf, pos, end):
        """Decode one packet at buf[pos]; return the bytes it used, or None
        when the packet is not all there yet.
        """
        kind = word >> 29
        op = (word >> 27) & 0x3
        if kind == pk.TYPE1:
            reg = (word >> 13) & 0x3FFF
            count = word & 0x7FF
            if op == pk.OP_NOP:
                if word != pk.NOP_WORD:
                    raise errors.PacketError(
                        'NOP packet 0x%08X has non-zero fields' % word, offset)
                self._type1_reg = None
                return 4
            if op != pk.OP_WRITE or word & 0x1800:
                raise errors.PacketError(
                    'packet header 0x%08X is not a register write (opcode %d)'
                    % (word, op), offset)
            if reg not in pk.Reg.__members__.values():
                raise errors.PacketError(
                    'write to unknown register 0x%X' % reg, offset)
            if reg in pk.READ_ONLY:
                raise errors.PacketError(
                    'write to read-only register %s' % pk.reg_name(reg),
                    offset)
            if pos + 4 + 4 * count > end:
                return None
            self._type1_reg = reg
            if reg == Reg.FDRI:
                if count:
                    self._frames(count, offset)
                    self._crc = _crc.update(
                        self._crc, buf[pos + 4:pos + 4 + 4 * count], Reg.FDRI)
                return 4 + 4 * count
            for i in range(count):
                value = _WORD.unpack_from(buf, pos + 4 + 4 * i)[0]
                self._write(reg, value, offset + 4 + 4 * i)
            return 4 + 4 * count
        if kind == pk.TYPE2:
            count = word & 0x07FFFFFF
            if op != pk.OP_WRITE:
                raise errors.PacketError(
                    'Type 2 packet 0x%08X is not a write' % word, offset)
            if self._type1_reg != Reg.FDRI:
                raise errors.PacketError(
                    'Type 2 packet without a preceding Type 1 write to FDRI '
                    '(it carries frame data only)', offset)
            self._type1_reg = None
            if count:
                self._frames(count, offset)
                self._bulk_words = count
            return 4
        raise errors.PacketError(
            'word 0x%08X is not a packet header (type %d)' % (word, kind),
            offset)

    def _frames(self, count, offset):
        if self._device is None:
            raise errors.PacketError('frame data before the IDCODE write: the '
                                     'device would refuse it', offset)
        if self._far is None:
            raise errors.PacketError('frame data before any FAR write',
                                     offset)
        if count % self._device.frame_words:
            raise errors.FootprintError(
                'frame data of %d words is not a whole number of %d-word '
                'frames' % (count, self._device.frame_words), offset)
        self._fold_start(offset)
        if self._unchecked_frames is None:
            self._unchecked_frames = offset
        if self._far_written or not self._blocks:
            self._blocks.append(fp.Block(self._far, count))
        else:
            # No new FAR: the device carries on from where it stopped.
            last = self._blocks[-1]
            self._blocks[-1] = fp.Block(last.far, last.words + count,
                                        last.kind)
        self._far_written = False

    def _fold_start(self, offset):
        if self._crc_from is None:
            self._crc_from = offset

    def _write(self, reg, value, offset):
        if reg == Reg.CRC:
            self._check_crc(value, offset)
            return
        self._fold_start(offset)
        self._crc = _crc.update(self._crc, _WORD.pack(value), reg)
        if reg == Reg.CMD:
            self._command(value, offset)
        elif reg == Reg.IDCODE:
            self._set_idcode(value, offset)
        elif reg == Reg.FAR:
            self._far = value
            self._far_written = True
        elif reg == Reg.AXSS:
            self._usr_access = value
        elif reg == Reg.MFWR:
            if self._far is None:
                raise errors.PacketError('multiple-frame write before any '
                                         'FAR write', offset)
            self._blocks.append(fp.Block(self._far, 0, fp.MFWR))
        elif reg in pk.SETUP_REGISTERS and self._setup_at is None:
            self._setup_at = offset

    def _command(self, value, offset):
        try:
            cmd = Cmd(value)
        except ValueError:
            raise errors.PacketError('unknown command 0x%X' % value, offset)
        if cmd == Cmd.RCRC:
            self._crc = 0
            self._crc_from = None
        elif cmd == Cmd.SWITCH and self._setup_at is None:
            self._setup_at = offset
        elif cmd == Cmd.DESYNC:
            if self._unchecked_frames is not None:
                raise errors.CrcError(
                    'frame data from byte %d on is not covered by any CRC '
                    'check word before DESYNC' % self._unchecked_frames,
                    offset)
            self._stage = _DESYNCED
            self._desync_at = offset

    def _check_crc(self, value, offset):
        if value != self._crc:
            span = ('bytes %d-%d' % (self._crc_from, offset - 5)
                    if self._crc_from is not None else 'no register writes')
            raise errors.CrcError(
                'CRC check word 0x%08X does not match 0x%08X computed over '
                'the register writes in %s' % (value, self._crc, span),
                offset,
            )
        self._crc = 0
        self._crc_from = None
        self._crc_checks += 1
        self._unchecked_frames = None

    def _set_idcode(self, value, offset):
        device = devices.by_idcode(value)
        if device is None:
            raise errors.DeviceError('IDCODE 0x%08X is not a known Xilinx '
                                     'device' % value, offset)
        devices.supported(device)
        if self._device is not None and device != self._device:
            raise errors.DeviceError(
                'IDCODE 0x%08X (%s) contradicts the earlier IDCODE 0x%08X (%s)'
                % (value, device.name, self._idcode, self._device.name),
                offset)
        if self._header is not None and not device.matches_part(
                self._header.part):
            raise errors.DeviceError(
                'the header names part %s but the IDCODE 0x%08X is %s'
                % (self._header.part, value, device.name), offset)
        self._idcode = value
        self._device = device

    def _covers_device(self):
        """A write from FAR 0 over every frame of the device: a full
        bitstream even without its set-up block.
        """
        full = self._device.full_frames
        return full is not None and any(
            b.far == 0 and b.words >= full * self._device.frame_words
            for b in self._blocks)

    # -- verdict ------------------------------------------------------------

    def finish(self):
        end = self._size
        if self._stage == _DETECT:
            if self._size >= len(container.BIT_PREAMBLE):
                raise errors.TruncatedError('the .bit header is cut short',
                                            end)
            raise errors.ContainerError(
                '%d bytes: too short to be a bitstream' % self._size, 0)
        if self._header is not None:
            declared = self._header.payload_length
            got = self._size - self._payload_offset
            if got < declared:
                raise errors.TruncatedError(
                    'the header declares %d bytes of configuration data but '
                    'the file has %d' % (declared, got), end)
        if self._carry:
            raise errors.TruncatedError('the stream ends inside a 32-bit word',
                                        end)
        if self._stage == _PRESYNC:
            raise errors.SyncError('no sync word (AA995566)', end)
        if self._bulk_words or self._buf:
            raise errors.TruncatedError(
                'the stream ends inside a packet (%d words missing)'
                % max(self._bulk_words, 1), end)
        if self._stage != _DESYNCED:
            raise errors.TruncatedError('the stream ends without a DESYNC '
                                        'command', end)
        if self._device is None:
            raise errors.PacketError('no IDCODE write: not a configuration '
                                     'stream for a device', end)
        if not self._blocks:
            raise errors.PacketError('no frame data (FAR/FDRI writes)', end)
        if not self._crc_checks:
            raise errors.CrcError('no CRC check word: the integrity of the '
                                  'stream cannot be verified', end)
        partial = self._setup_at is None and not self._covers_device()
        header = self._header
        if header is not None and header.partial_flag and not partial:
            raise errors.HeaderError(
                'the header says PARTIAL=TRUE but the packets carry the '
                'device set-up block of a full bitstream',
                self._setup_at,
            )
        return Bitstream(
            container=self._container, device=self._device,
            idcode=self._idcode, partial=partial,
            footprint=fp.Footprint(tuple(self._blocks)),
            design=header.design if header else '',
            module_id=header.user_id if header else container.NO_USER_ID,
            header_part=header.part if header else '',
            header_partial=header.partial_flag if header else False,
            tool_version=header.tool_version if header else '',
            date=header.date if header else '',
            time=header.time if header else '',
            crc_checks=self._crc_checks,
            sha256=self._sha.hexdigest() if self._sha is not None else None,
            size=self._size, payload_offset=self._payload_offset,
            payload_size=self._size - self._payload_offset,
            usr_access=self._usr_access)


def _swapped(word):
    return int.from_bytes(word.to_bytes(4, 'big'), 'little')


CHUNK = 64 * 1024  # cache-sized: faster than big chunks, and bounded


def validate(data, digest=True):
    """Validate a whole bitstream held in memory.

    :param digest: compute its SHA-256 (``sha256``); False when the caller
        has it already (the agent checked it before parsing).
    """
    validator = Validator(digest=digest)
    view = memoryview(data)
    for start in range(0, len(view), CHUNK):
        validator.feed(view[start:start + CHUNK])
    return validator.finish()


def validate_file(path):
    """Validate a bitstream file, reading it once in chunks."""
    validator = Validator()
    with open(path, 'rb') as f:
        while True:
            chunk = f.read(CHUNK)
            if not chunk:
                break
            validator.feed(chunk)
    return validator.finish()
