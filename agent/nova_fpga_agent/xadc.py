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

"""The Zynq's XADC as Linux shows it: an IIO device named ``xadc``.

The xilinx-xadc driver names its channels ``in_temp0`` (die temperature:
millidegrees Celsius = (raw + offset) * scale) and ``in_voltageN_<rail>``
(supply voltages: millivolts = raw * scale), under
``<sysfs>/bus/iio/devices/iio:deviceN/``.
"""
import glob
import os

IIO_DEVICES = os.path.join('bus', 'iio', 'devices')
#: the IIO device name the xilinx-xadc driver registers
NAME = 'xadc'
#: the supply rails the driver names (extend_name of its channels)
SUPPLIES = ('vccint', 'vccaux', 'vccbram', 'vccpint', 'vccpaux', 'vccoddr')
#: nominal volts of the rails every Zynq-7000 board has (DS187); VCCO_DDR
#: depends on the memory, so it is read but not checked
NOMINAL = {'vccint': 1.0, 'vccaux': 1.8, 'vccbram': 1.0, 'vccpint': 1.0,
           'vccpaux': 1.8}


class Xadc:
    """One XADC's sysfs directory."""

    def __init__(self, path):
        self.path = path

    @classmethod
    def find(cls, sysfs_root):
        """The XADC under sysfs_root, or None when the board shows none."""
        pattern = os.path.join(sysfs_root, IIO_DEVICES, 'iio:device*')
        for path in sorted(glob.glob(pattern)):
            try:
                if _read(os.path.join(path, 'name')) == NAME:
                    return cls(path)
            except OSError:
                continue
        return None

    def _number(self, attribute):
        return float(_read(os.path.join(self.path, attribute)))

    def temperature(self):
        """The die temperature in degrees Celsius.

        :raises OSError, ValueError: the driver did not answer a number.
        """
        return ((self._number('in_temp0_raw')
                 + self._number('in_temp0_offset'))
                * self._number('in_temp0_scale') / 1000.0)

    def supplies(self):
        """Rail name -> volts, for the rails this XADC shows."""
        volts = {}
        for rail in SUPPLIES:
            found = glob.glob(os.path.join(self.path,
                                           'in_voltage*_%s_raw' % rail))
            if found:
                prefix = os.path.basename(found[0])[:-len('raw')]
                volts[rail] = (self._number(prefix + 'raw')
                               * self._number(prefix + 'scale') / 1000.0)
        return volts


def _read(path):
    with open(path, encoding='ascii') as f:
        return f.read().strip()
