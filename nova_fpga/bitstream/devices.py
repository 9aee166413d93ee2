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

"""Xilinx devices by JTAG IDCODE.

The IDCODE written to the IDCODE register is what the configuration logic
compares with its own before it accepts frame data, so it is the ground truth
for "which device is this bitstream for".  Zynq-7000 and Zynq UltraScale+
devices are supported targets; the other 7-series and UltraScale families
are recognised so that an error can name them.

Sources: UG470 (7-series configuration), UG585 (Zynq-7000 TRM, IDCODE table),
UG570 (UltraScale configuration) and DS891 (Zynq UltraScale+ MPSoC).
The version nibble (bits 31:28) is masked: it changes between silicon
revisions of the same device.
"""
import dataclasses

from nova_fpga.bitstream import errors

IDCODE_MASK = 0x0FFFFFFF

ZYNQ7 = 'Zynq-7000'
ZYNQ_USP = 'Zynq UltraScale+'

#: Words per configuration frame, by architecture.
FRAME_WORDS = {'7-series': 101, 'UltraScale': 123, 'UltraScale+': 93}


@dataclasses.dataclass(frozen=True)
class Device:
    name: str          # e.g. 'xc7z020'
    family: str        # e.g. 'Zynq-7000'
    architecture: str  # '7-series' | 'UltraScale' | 'UltraScale+'
    idcode: int        # with the version nibble cleared
    full_frames: int = None  # frames a full bitstream writes, where known

    @property
    def is_zynq(self):
        return self.family in (ZYNQ7, ZYNQ_USP)

    @property
    def frame_words(self):
        return FRAME_WORDS[self.architecture]

    @property
    def short_name(self):
        """The name as Vivado writes it in a .bit header ('7z020')."""
        return self.name[2:] if self.name.startswith('xc') else self.name

    def matches_part(self, part):
        """True when a part name (with or without 'xc', package, speed
        grade) designates this device.
        """
        part = part.strip().lower()
        if part.startswith('xc'):
            part = part[2:]
        short = self.short_name
        if not part.startswith(short):
            return False
        rest = part[len(short):]
        # '7z01' must not match '7z010', nor 'zu2' match 'zu21dr'.
        return not rest[:1].isdigit()


_TABLE = [
    # Zynq-7000 (UG585, device IDCODE table)
    ('xc7z007s', ZYNQ7, 0x03723093), ('xc7z012s', ZYNQ7, 0x0373C093),
    ('xc7z014s', ZYNQ7, 0x03728093), ('xc7z010', ZYNQ7, 0x03722093),
    ('xc7z015', ZYNQ7, 0x0373B093), ('xc7z020', ZYNQ7, 0x03727093),
    ('xc7z030', ZYNQ7, 0x0372C093), ('xc7z035', ZYNQ7, 0x03732093),
    ('xc7z045', ZYNQ7, 0x03731093), ('xc7z100', ZYNQ7, 0x03736093),
    # Zynq UltraScale+ MPSoC / RFSoC programmable logic (PL TAP IDCODE)
    ('xczu2', ZYNQ_USP, 0x04711093), ('xczu3', ZYNQ_USP, 0x04710093),
    ('xczu4', ZYNQ_USP, 0x04721093), ('xczu5', ZYNQ_USP, 0x04720093),
    ('xczu6', ZYNQ_USP, 0x04739093), ('xczu7', ZYNQ_USP, 0x04730093),
    ('xczu9', ZYNQ_USP, 0x04738093), ('xczu11', ZYNQ_USP, 0x04740093),
    ('xczu15', ZYNQ_USP, 0x04750093), ('xczu17', ZYNQ_USP, 0x04759093),
    ('xczu19', ZYNQ_USP, 0x04758093), ('xczu21dr', ZYNQ_USP, 0x047E1093),
    ('xczu25dr', ZYNQ_USP, 0x047E5093), ('xczu27dr', ZYNQ_USP, 0x047E4093),
    ('xczu28dr', ZYNQ_USP, 0x047E0093), ('xczu29dr', ZYNQ_USP, 0x047E2093),
    ('xczu39dr', ZYNQ_USP, 0x047E6093), ('xczu43dr', ZYNQ_USP, 0x047FD093),
    ('xczu46dr', ZYNQ_USP, 0x047F8093), ('xczu47dr', ZYNQ_USP, 0x047FF093),
    ('xczu48dr', ZYNQ_USP, 0x047FB093), ('xczu49dr', ZYNQ_USP, 0x047FE093),
    # Spartan-7
    ('xc7s6', 'Spartan-7', 0x03622093), ('xc7s15', 'Spartan-7', 0x03620093),
    ('xc7s25', 'Spartan-7', 0x037C4093), ('xc7s50', 'Spartan-7', 0x0362F093),
    ('xc7s75', 'Spartan-7', 0x037C8093), ('xc7s100', 'Spartan-7', 0x037C7093),
    # Artix-7
    ('xc7a12t', 'Artix-7', 0x037C3093), ('xc7a15t', 'Artix-7', 0x0362E093),
    ('xc7a25t', 'Artix-7', 0x037C2093), ('xc7a35t', 'Artix-7', 0x0362D093),
    ('xc7a50t', 'Artix-7', 0x0362C093), ('xc7a75t', 'Artix-7', 0x03632093),
    ('xc7a100t', 'Artix-7', 0x03631093), ('xc7a200t', 'Artix-7', 0x03636093),
    # Kintex-7
    ('xc7k70t', 'Kintex-7', 0x03647093), ('xc7k160t', 'Kintex-7', 0x0364C093),
    ('xc7k325t', 'Kintex-7', 0x03651093), ('xc7k355t', 'Kintex-7', 0x03747093),
    ('xc7k410t', 'Kintex-7', 0x03656093), ('xc7k420t', 'Kintex-7', 0x03752093),
    ('xc7k480t', 'Kintex-7', 0x03751093),
    # Virtex-7
    ('xc7v585t', 'Virtex-7', 0x03671093),
    ('xc7vx330t', 'Virtex-7', 0x03667093),
    ('xc7vx415t', 'Virtex-7', 0x03682093),
    ('xc7vx485t', 'Virtex-7', 0x03687093),
    ('xc7vx550t', 'Virtex-7', 0x03692093),
    ('xc7vx690t', 'Virtex-7', 0x03691093),
    ('xc7vx980t', 'Virtex-7', 0x03696093),
    ('xc7v2000t', 'Virtex-7', 0x036B3093),
    ('xc7vx1140t', 'Virtex-7', 0x036D5093),
    ('xc7vh580t', 'Virtex-7', 0x036D9093),
    ('xc7vh870t', 'Virtex-7', 0x036DB093),
    # UltraScale
    ('xcku035', 'Kintex UltraScale', 0x03823093),
    ('xcku040', 'Kintex UltraScale', 0x03822093),
    ('xcku060', 'Kintex UltraScale', 0x03919093),
    ('xcku115', 'Kintex UltraScale', 0x0390D093),
    ('xcvu095', 'Virtex UltraScale', 0x03842093),
    # UltraScale+ (not Zynq)
    ('xcau15p', 'Artix UltraScale+', 0x04AC2093),
    ('xcau25p', 'Artix UltraScale+', 0x04A64093),
    ('xcku3p', 'Kintex UltraScale+', 0x04A63093),
    ('xcku5p', 'Kintex UltraScale+', 0x04A62093),
    ('xcku9p', 'Kintex UltraScale+', 0x0484A093),
    ('xcku15p', 'Kintex UltraScale+', 0x04A56093),
    ('xcvu9p', 'Virtex UltraScale+', 0x04B31093),
    ('xcvu13p', 'Virtex UltraScale+', 0x04B51093),
]


def _architecture(family):
    if family.endswith('UltraScale+'):
        return 'UltraScale+'
    if family.endswith('UltraScale'):
        return 'UltraScale'
    return '7-series'


#: Frames (FDRI words / 101, the pad frame included) that a full,
#: uncompressed bitstream writes from FAR 0, read from Vivado full bitstreams.
_FULL_FRAMES = {'xc7z010': 5152, 'xc7z020': 10008}

DEVICES = tuple(Device(name, family, _architecture(family),
                       idcode & IDCODE_MASK, _FULL_FRAMES.get(name))
                for name, family, idcode in _TABLE)
_BY_IDCODE = {d.idcode: d for d in DEVICES}


def by_idcode(idcode):
    """The device with this IDCODE, or None when unknown."""
    return _BY_IDCODE.get(idcode & IDCODE_MASK)


def by_part(part):
    """The device a part name designates ('xc7z020', '7z020clg400', …).

    :raises BitstreamError: when no known device matches.
    """
    # Longest name first, so 'xc7z010' wins over a hypothetical 'xc7z01'.
    for device in sorted(DEVICES, key=lambda d: -len(d.name)):
        if device.matches_part(part):
            return device
    raise errors.DeviceError('unknown part %r' % part)


def supported(device):
    """Raise unless a region of one of our boards could take this device."""
    if not device.is_zynq:
        raise errors.DeviceError(
            'IDCODE 0x%08X is %s (%s): not a Zynq device; nova-fpga boards '
            'are Zynq-7000 or Zynq UltraScale+'
            % (device.idcode, device.name, device.family)
        )
