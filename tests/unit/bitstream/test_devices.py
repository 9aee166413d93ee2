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

"""Devices by IDCODE and by part name."""
import pytest

from nova_fpga.bitstream import devices
from nova_fpga.bitstream import errors

ZYNQ7 = ['xc7z007s', 'xc7z012s', 'xc7z014s', 'xc7z010', 'xc7z015', 'xc7z020',
         'xc7z030', 'xc7z035', 'xc7z045', 'xc7z100']


def test_every_zynq7000_part_is_known_and_distinct():
    found = [d for d in devices.DEVICES if d.family == devices.ZYNQ7]
    assert sorted(d.name for d in found) == sorted(ZYNQ7)
    assert len({d.idcode for d in devices.DEVICES}) == len(devices.DEVICES)
    for d in found:
        assert d.frame_words == 101 and d.is_zynq
        devices.supported(d)


def test_version_nibble_is_ignored():
    assert devices.by_idcode(0x13727093).name == 'xc7z020'
    assert devices.by_idcode(0x23731093).name == 'xc7z045'


def test_zynq_ultrascale_plus_is_supported():
    zu9 = devices.by_idcode(0x04738093)
    assert zu9.name == 'xczu9' and zu9.frame_words == 93
    devices.supported(zu9)
    assert zu9.matches_part('xczu9eg-ffvb1156-2-e')
    assert not devices.by_idcode(0x04711093).matches_part('xczu21dr')


@pytest.mark.parametrize('idcode,name,family', [
    (0x0362D093, 'xc7a35t', 'Artix-7'), (0x03647093, 'xc7k70t', 'Kintex-7'),
    (0x037C4093, 'xc7s25', 'Spartan-7'), (0x33691093, 'xc7vx690t', 'Virtex-7'),
    (0x04A62093, 'xcku5p', 'Kintex UltraScale+'),
])
def test_other_families_are_named_and_refused(idcode, name, family):
    device = devices.by_idcode(idcode)
    assert (device.name, device.family) == (name, family)
    with pytest.raises(errors.DeviceError) as exc:
        devices.supported(device)
    assert 'not a Zynq' in str(exc.value) and name in str(exc.value)


@pytest.mark.parametrize('part,name', [
    ('7z020clg400', 'xc7z020'), ('xc7z020clg400-1', 'xc7z020'),
    ('XC7Z010', 'xc7z010'), ('7z007sclg400', 'xc7z007s'),
    ('xczu28dr-ffvg1517-2-e', 'xczu28dr'), ('xczu2cg-sbva484', 'xczu2'),
])
def test_part_names(part, name):
    assert devices.by_part(part).name == name


def test_unknown_part():
    with pytest.raises(errors.DeviceError):
        devices.by_part('7z0200')
    assert not devices.by_part('xc7z010').matches_part('7z0100clg')
