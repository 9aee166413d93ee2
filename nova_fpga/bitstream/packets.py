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

"""Configuration packet vocabulary of 7-series and UltraScale devices (UG470
chapter 5, UG570 chapter 9): packet header fields, registers, commands."""
import enum

SYNC_WORD = 0xAA995566
DUMMY_WORD = 0xFFFFFFFF
BUS_WIDTH_WORDS = (0x000000BB, 0x11220044)
NOP_WORD = 0x20000000

TYPE1 = 1
TYPE2 = 2

OP_NOP = 0
OP_READ = 1
OP_WRITE = 2


class Reg(enum.IntEnum):
    CRC = 0x00
    FAR = 0x01
    FDRI = 0x02
    FDRO = 0x03
    CMD = 0x04
    CTL0 = 0x05
    MASK = 0x06
    STAT = 0x07
    LOUT = 0x08
    COR0 = 0x09
    MFWR = 0x0A
    CBC = 0x0B
    IDCODE = 0x0C
    AXSS = 0x0D
    COR1 = 0x0E
    WBSTAR = 0x10
    TIMER = 0x11
    RBCRC_SW = 0x13
    BOOTSTS = 0x16
    CTL1 = 0x18
    BSPI = 0x1F


#: Registers the configuration logic does not accept writes to.
READ_ONLY = frozenset({Reg.FDRO, Reg.STAT, Reg.BOOTSTS})

#: Writes that only a full-device bitstream carries: the device set-up block
#: (timers, warm-boot start address, configuration options).
SETUP_REGISTERS = frozenset({Reg.COR0, Reg.COR1, Reg.TIMER, Reg.WBSTAR})


class Cmd(enum.IntEnum):
    NULL = 0x00
    WCFG = 0x01
    MFW = 0x02
    LFRM = 0x03      # DGHIGH/LFRM
    RCFG = 0x04
    START = 0x05
    RCAP = 0x06
    RCRC = 0x07
    AGHIGH = 0x08
    SWITCH = 0x09
    GRESTORE = 0x0A
    SHUTDOWN = 0x0B
    GCAPTURE = 0x0C
    DESYNC = 0x0D
    RESERVED = 0x0E
    IPROG = 0x0F
    CRCC = 0x10
    LTIMER = 0x11
    BSPI_READ = 0x12
    FALL_EDGE = 0x13


def type1(op, reg, count):
    return (TYPE1 << 29) | (op << 27) | (reg << 13) | count


def type2(op, count):
    return (TYPE2 << 29) | (op << 27) | count


def reg_name(reg):
    try:
        return Reg(reg).name
    except ValueError:
        return 'register 0x%02X' % reg
