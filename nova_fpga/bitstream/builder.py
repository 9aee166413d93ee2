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

"""Write partial bitstreams the way Vivado does, for tests, the demo and
shell builds that have no Vivado at hand.

The output has the shape of a real Vivado 7-series partial (compare
``pr_0_add.bit``): dummy and bus-width words, sync, RCRC, IDCODE, the first
frame block with a CRC check, SHUTDOWN, the GTS/GHIGH mask dance, the other
frame blocks, GRESTORE, START, a final CRC check, DESYNC and 16 NOPs.  Frame
contents are pseudo-random from a seed (a real module's frames are
meaningless to anything but the silicon).  It passes the validator; one
flipped bit does not.
"""
import datetime
import random
import struct

from nova_fpga.bitstream import _crc
from nova_fpga.bitstream import container
from nova_fpga.bitstream import devices
from nova_fpga.bitstream import errors
from nova_fpga.bitstream import footprint as fp
from nova_fpga.bitstream import packets as pk
from nova_fpga.bitstream.packets import Cmd
from nova_fpga.bitstream.packets import Reg

TOOL_VERSION = 'nova-fpga'


class _Stream:
    """Configuration words with the CRC the device will compute."""

    def __init__(self):
        self.words = bytearray()
        self.crc = 0

    def raw(self, *words):
        for word in words:
            self.words += struct.pack('>I', word)

    def nop(self, count=1):
        self.raw(*[pk.NOP_WORD] * count)

    def write(self, reg, value):
        self.raw(pk.type1(pk.OP_WRITE, reg, 1), value)
        self.crc = _crc.update(self.crc, struct.pack('>I', value), reg)
        if reg == Reg.CMD and value == Cmd.RCRC:
            self.crc = 0

    def frames(self, far, data):
        self.write(Reg.CMD, Cmd.WCFG)
        self.nop()
        self.write(Reg.FAR, far)
        self.nop()
        self.raw(pk.type1(pk.OP_WRITE, Reg.FDRI, 0),
                 pk.type2(pk.OP_WRITE, len(data) // 4))
        self.words += data
        self.crc = _crc.update(self.crc, data, Reg.FDRI)

    def check_crc(self):
        self.raw(pk.type1(pk.OP_WRITE, Reg.CRC, 1), self.crc)
        self.crc = 0


def build_partial(part, design, module_id, footprint, seed=0,
                  tool_version=TOOL_VERSION, when=None, header=True):
    """A partial bitstream for ``part`` writing exactly ``footprint``.

    :param part: part name as in a .bit header, e.g. '7z020clg400'.
    :param module_id: the UserID (and USR_ACCESS), container.NO_USER_ID for
        "not declared".
    :param footprint: a Footprint of FDRI blocks (e.g. a region's).
    :param header: False for a header-less .bin (big-endian words).
    :returns: the bitstream bytes.
    """
    device = devices.by_part(part)
    devices.supported(device)
    if not 0 <= module_id <= 0xFFFFFFFF:
        raise errors.HeaderError('module ID %r is not a 32-bit value'
                                 % module_id)
    if not footprint.blocks:
        raise errors.FootprintError('empty footprint')
    for block in footprint.blocks:
        if block.kind != fp.FDRI or block.words <= 0 \
                or block.words % device.frame_words:
            raise errors.FootprintError(
                'cannot build block %r: the builder writes whole %d-word '
                'frames through FDRI' % (block, device.frame_words))
    rand = random.Random(seed)
    s = _Stream()
    s.raw(*[pk.DUMMY_WORD] * 8, *pk.BUS_WIDTH_WORDS,
          pk.DUMMY_WORD, pk.DUMMY_WORD, pk.SYNC_WORD)
    s.nop()
    s.write(Reg.CMD, Cmd.RCRC)
    s.nop(2)
    s.write(Reg.IDCODE, device.idcode)
    if module_id != container.NO_USER_ID:
        # as Vivado's BITSTREAM.CONFIG.USR_ACCESS: the ID travels in the
        # configuration too, so a header-less .bin still names its module
        s.write(Reg.AXSS, module_id)
    first, *rest = footprint.blocks
    s.frames(first.far, rand.randbytes(first.words * 4))
    s.check_crc()
    s.write(Reg.CMD, Cmd.SHUTDOWN)
    s.nop()
    s.check_crc()
    s.nop(4)
    s.write(Reg.CMD, Cmd.NULL)
    for mask in (0x100, 0x400):  # GTS_USR_B, then GHIGH_B
        s.write(Reg.MASK, mask)
        s.write(Reg.CTL0, mask)
    for block in rest:
        s.frames(block.far, rand.randbytes(block.words * 4))
    s.write(Reg.CMD, Cmd.GRESTORE)
    s.nop()
    s.write(Reg.MASK, 0x100)
    s.write(Reg.CTL0, 0)
    s.write(Reg.CMD, Cmd.START)
    s.nop()
    s.check_crc()
    s.write(Reg.CMD, Cmd.DESYNC)
    s.nop(16)
    payload = bytes(s.words)
    if not header:
        return payload
    when = when or datetime.datetime.now(datetime.timezone.utc)
    return container.write_bit_header(
        design, module_id, True, tool_version, part,
        when.strftime('%Y/%m/%d'), when.strftime('%H:%M:%S'),
        len(payload)) + payload
