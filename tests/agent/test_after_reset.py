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


"""What the agent does after a module's reset, before the tenant's settings
(network.after_reset): waits while the module clears its tables, writes
its catalogue entry's words in order, reads the last one back."""
import pytest

from nova_fpga import catalogue
from nova_fpga_agent.backends import base
from nova_fpga_agent.regions import network as nw

VTC = catalogue.load().by_name('vtc')
REGS = VTC.registers


class Registers:
    """A region's registers: STATUS clearing for `clearing` reads, NAME_TABLE
    reading back `readback` if given.
    """

    def __init__(self, clearing=0, readback=None):
        self.clearing = clearing
        self.readback = readback
        self.log = []

    def read_register(self, region, offset):
        self.log.append(('read', offset))
        if offset == REGS.STATUS:
            if self.clearing:
                self.clearing -= 1
                return REGS.bit('STATUS', 'TABLE_CLEARING')
            return 0
        if self.readback is not None:
            return self.readback
        return [value for op, at, value in reversed(
            [entry for entry in self.log if entry[0] == 'write'])
            if at == offset][0]

    def write_register(self, region, offset, value):
        self.log.append(('write', offset, value))


def test_the_table_is_written_once_the_module_stops_clearing():
    registers = Registers(clearing=3)
    nw.after_reset(registers, 'rp1', VTC)
    reads = [entry for entry in registers.log[:4]]
    assert reads == [('read', REGS.STATUS)] * 4
    writes = [entry[1:] for entry in registers.log if entry[0] == 'write']
    assert tuple(writes) == VTC.after_reset.writes
    # nothing is written before the module stopped clearing
    assert registers.log.index(('write',) + writes[0]) == 4
    assert registers.log[-1] == ('read', REGS.NAME_TABLE)


def test_a_module_still_clearing_fails_the_step_unwritten(monkeypatch):
    monkeypatch.setattr(nw, 'READY_TIMEOUT', 0.05)
    registers = Registers(clearing=10 ** 9)
    with pytest.raises(base.RegisterError, match='module vtc: register 0xC '
                       'still has 0x4 set 0.05 s after its reset'):
        nw.after_reset(registers, 'rp1', VTC)
    assert not [entry for entry in registers.log if entry[0] == 'write']


def test_a_table_that_does_not_read_back_fails_the_step():
    registers = Registers(readback=0)
    with pytest.raises(base.RegisterError, match='reads 0x0 after 0x80000000 '
                       'was written \\(the application table'):
        nw.after_reset(registers, 'rp1', VTC)


def test_modules_with_nothing_to_do_after_a_reset():
    registers = Registers()
    nw.after_reset(registers, 'rp0', catalogue.load().by_name('loopback'))
    nw.after_reset(registers, 'rp0', None)   # not in the catalogue
    assert registers.log == []
