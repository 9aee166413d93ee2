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

"""Boards at scale: the board emulator with behavioural modules.

Hundreds of boards cannot each run their modules' Verilog on a test
machine; a proxy's work (describe, load, unload, power, stats) does not
need it.  Everything but the module is the emulator's own (board.py): the
configuration port validates and refuses alike and takes the modelled
time, the decoupler gates the module, the fabric outlives the agent.  A
loaded module is a model of what the agent sees of it: the register block
every module shares (its ID, version, control, status and the frame and
byte counters, as region_regs.v answers them; DECERR while decoupled, as
region_decoupler.v), its own read-only registers read as zero, the bits of
its fields in its own RW registers as last written (a tenant's settings,
the vTC's POLICY, read back; zero after a reset), SLVERR elsewhere, and
frames passed through unchanged as the loopback passes them (the vTC's
classification and DSCP marking are not modelled).
"""
from nova_fpga_emulator import board
from nova_fpga_emulator import hdl_bridge


class ModuleModel:
    """A catalogue module behind its decoupler, as registers and frames:
    the interface of hdl_bridge.HdlBridge that board.EmulatedBoard uses.
    """

    def __init__(self, module, common):
        self.module = module
        self._regs = common.registers
        self._clear_bit = common.registers.bit('CONTROL', 'CLEAR_COUNTERS')
        # every 32-bit word a register of the module answers on
        self._words = {register.at(index) + 4 * word
                       for register in module.registers
                       for index in register.indices
                       for word in range(register.width // 32)}
        # each word of the module's own RW registers: the bits it keeps
        self._kept = {register.at(index): _field_bits(register)
                      for register in module.own_registers
                      if register.writable_word
                      for index in register.indices}
        self._written = {}
        self.decoupled = True
        self._out = []
        self._frames = self._bytes = self._latched = 0

    def set_decoupled(self, decoupled):
        self.decoupled = decoupled

    def reset(self, cycles=8):
        self._frames = self._bytes = self._latched = 0
        self._out = []
        self._written = {}

    def clock(self, cycles):
        """Nothing to clock: the model answers at once."""

    def clock_until_idle(self):
        """Every frame pushed is through already."""

    def close(self):
        """No simulator to close."""

    def push_frame(self, frame):
        frame = bytes(frame)
        if not frame:
            raise ValueError('an AXI4-Stream frame has at least one byte')
        self._out.append(frame)
        self._frames += 1
        self._bytes += len(frame)

    def pull_frames(self):
        frames, self._out = self._out, []
        return frames

    def _word(self, op, address):
        if self.decoupled:
            raise hdl_bridge.AxiLiteError(op, address, hdl_bridge.DECERR)
        if address not in self._words:
            raise hdl_bridge.AxiLiteError(op, address, hdl_bridge.SLVERR)

    def axil_read(self, address):
        self._word('read', address)
        regs = self._regs
        if address == regs.MODULE_ID:
            return self.module.module_id
        if address == regs.VERSION:
            return self.module.version
        # a 64-bit counter: reading LO latches HI
        for counter, value in ((regs.FRAMES_LO, self._frames),
                               (regs.BYTES_LO, self._bytes)):
            if address == counter:
                self._latched = value >> 32
                return value & 0xFFFFFFFF
            if address == counter + 4:
                return self._latched
        return self._written.get(address, 0)

    def axil_write(self, address, value, strobe=0xF):
        # a write to any register is taken (one to a read-only register
        # changes nothing), as region_regs.v and the modules answer it
        self._word('write', address)
        if address == self._regs.CONTROL and value & self._clear_bit:
            self._frames = self._bytes = 0
        if address in self._kept:
            self._written[address] = value & self._kept[address]


def _field_bits(register):
    """The bits a register's fields name (all 32 when it names none)."""
    bits = 0
    for field in register.fields:
        bits |= field.mask
    return bits if register.fields else 0xFFFFFFFF


class BehaviouralBoard(board.EmulatedBoard):
    """The emulated board whose modules are ModuleModels (no hdl_dir)."""

    def _module_logic(self, module, region_name=None):
        return ModuleModel(module, self.catalogue.common)
