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

"""The XADC's IIO directory, as the xilinx-xadc driver makes it.

Written with the driver's own attribute names and number formats (not the
agent's constants), so the agent's reader is tested against the kernel's
layout.  A test or the demo sets the die temperature and the supplies;
``overheat`` is the fault switch that makes a board too hot.  FakeXadc is
the device in a plain directory (an emulated board's sysfs_root); Xadc
puts it in a fake kernel's sysfs, its attributes showing a FakeXadc under
the kernel's control/xadc.
"""
import functools
import os

from nova_fpga_emulator.fakekernel import kernel as fk
from nova_fpga_emulator.fakekernel import tree as fs

#: in_temp0_scale: 503975 / 4096 millidegrees per LSB, as the driver
#: prints an IIO_VAL_FRACTIONAL_LOG2
TEMP_SCALE = 503975 / 4096
#: in_temp0_offset: -((273150 << 12) / 503975), integer
TEMP_OFFSET = -((273150 << 12) // 503975)
#: in_voltageN_<rail>_scale of the supply rails: 3000 / 4096 mV per LSB
SUPPLY_SCALE = 3000 / 4096
#: the driver's supply channels: (index, rail, nominal volts on a Zynq-7000)
SUPPLIES = ((0, 'vccint', 1.0), (1, 'vccaux', 1.8), (2, 'vccbram', 1.0),
            (3, 'vccpint', 1.0), (4, 'vccpaux', 1.8), (5, 'vccoddr', 1.5))
#: what a board in a cool room reads
ROOM_CELSIUS = 45.0
#: what the "overheating" fault sets: above the 85 degrees Celsius junction
#: limit of commercial-grade Zynq-7000 parts (the watchdog's default trip)
OVERHEAT_CELSIUS = 95.0


class FakeXadc:
    """``<sysfs_root>/bus/iio/devices/iio:device<N>`` named ``xadc``."""

    def __init__(self, sysfs_root, index=0):
        self.path = os.path.join(sysfs_root, 'bus', 'iio', 'devices',
                                 'iio:device%d' % index)

    def install(self, celsius=ROOM_CELSIUS):
        """Create the device with nominal supplies at the given temperature."""
        os.makedirs(self.path, exist_ok=True)
        self._write('name', 'xadc')
        self._write('in_temp0_scale', '%.9f' % TEMP_SCALE)
        self._write('in_temp0_offset', '%d' % TEMP_OFFSET)
        for index, rail, volts in SUPPLIES:
            self._write('in_voltage%d_%s_scale' % (index, rail),
                        '%.9f' % SUPPLY_SCALE)
            self.set_supply(rail, volts)
        self.set_temperature(celsius)
        return self

    def set_supply(self, rail, volts):
        """What the rail's in_voltageN_<rail>_raw reads next."""
        index = next(i for i, name, _ in SUPPLIES if name == rail)
        self._write('in_voltage%d_%s_raw' % (index, rail),
                    '%d' % round(volts * 1000 / SUPPLY_SCALE))

    def set_temperature(self, celsius):
        """What in_temp0_raw reads next: the 12-bit code of celsius."""
        raw = round(celsius * 1000 / TEMP_SCALE) - TEMP_OFFSET
        self._write('in_temp0_raw', '%d' % raw)

    def overheat(self):
        self.set_temperature(OVERHEAT_CELSIUS)

    def _write(self, attribute, text):
        tmp = os.path.join(self.path, '.%s.tmp' % attribute)
        with open(tmp, 'w', encoding='ascii') as f:
            f.write(text + '\n')
        os.replace(tmp, os.path.join(self.path, attribute))


def control(root):
    """The FakeXadc a fake kernel under root shows (what to set)."""
    return FakeXadc(os.path.join(root, 'control', 'xadc'))


class Xadc(fk.Part):
    """The XADC in the fake kernel's sysfs."""

    def attach(self, kernel):
        values = control(kernel.root)
        if not os.path.exists(values.path):
            values.install()
        device = '/sys/bus/iio/devices/iio:device0/'
        for name in sorted(os.listdir(values.path)):
            if not name.startswith('.'):
                kernel.tree.add(device + name, fs.Attribute(
                    show=functools.partial(_read, os.path.join(values.path,
                                                               name))))


def _read(path):
    with open(path, encoding='ascii') as f:
        return f.read()
