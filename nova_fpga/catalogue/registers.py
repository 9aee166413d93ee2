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

"""Registers of a module: what a catalogue entry's [[registers]] say.

Offsets are bytes in the module's AXI4-Lite window.  A 64-bit register is
a LO/HI pair of words (reading LO latches HI); an array has one element
per label (or per index) at offset + stride * index.
"""
import dataclasses

READ_ONLY = 'RO'
READ_WRITE = 'RW'


@dataclasses.dataclass(frozen=True)
class Field:
    """Bits high..low of a register."""

    name: str
    high: int
    low: int
    meaning: str = ''

    @property
    def mask(self):
        return ((1 << (self.high - self.low + 1)) - 1) << self.low


@dataclasses.dataclass(frozen=True)
class Labels:
    """Names of an array's elements (the vTC's traffic classes)."""

    key: str
    names: tuple
    title: str = ''
    heading: str = ''
    index: str = 'i'
    #: the console's rows: 'all' labels, or 'counted' ones only (those with
    #: a counter above 0: a long list most of which a server never sees)
    rows: str = 'all'


@dataclasses.dataclass(frozen=True)
class Register:
    name: str
    offset: int
    access: str
    width: int = 32
    meaning: str = ''
    fields: tuple = ()
    #: an array's labels (None: a single register)
    labels: Labels = None
    stride: int = 0
    #: first mapped element of an array
    first: int = 0

    @property
    def writable_word(self):
        """A 32-bit RW register: one word that keeps what is written (a
        tenant's setting goes into one).
        """
        return self.access == READ_WRITE and self.width == 32

    @property
    def indices(self):
        """Mapped element numbers; (0,) for a single register."""
        if self.labels is None:
            return (0,)
        return tuple(range(self.first, len(self.labels.names)))

    def index(self, label):
        """An element number from its label or number."""
        if isinstance(label, str):
            label = self.labels.names.index(label)
        if label not in self.indices:
            raise IndexError('%s has no element %s' % (self.name, label))
        return label

    def at(self, label=0):
        """Offset of an element (the LO word of a 64-bit one)."""
        return self.offset + self.stride * self.index(label)

    def field(self, name):
        for field in self.fields:
            if field.name == name:
                return field
        raise KeyError('%s has no field %s' % (self.name, name))


class RegisterMap:
    """A module's registers by name: ``regs.STATUS`` (offset),
    ``regs.FRAMES_LO`` / ``regs.FRAMES_HI`` (a 64-bit pair),
    ``regs.at('POLICY', 'tls')`` (an array element),
    ``regs.bit('STATUS', 'IN_FRAME')`` (a field's mask).
    """

    def __init__(self, registers):
        self._registers = {r.name: r for r in registers}

    def __iter__(self):
        return iter(self._registers.values())

    def __getitem__(self, name):
        return self._registers[name]

    def __contains__(self, name):
        return name in self._registers

    def __getattr__(self, name):
        registers = self.__dict__.get('_registers', {})
        if name in registers:
            return registers[name].offset
        base, _, half = name.rpartition('_')
        register = registers.get(base)
        if register is not None and register.width == 64 \
                and half in ('LO', 'HI'):
            return register.offset + (4 if half == 'HI' else 0)
        raise AttributeError('no register %s' % name)

    def at(self, name, label=0):
        return self._registers[name].at(label)

    def bit(self, register, field):
        return self._registers[register].field(field).mask

    def labels(self, name):
        return self._registers[name].labels.names
