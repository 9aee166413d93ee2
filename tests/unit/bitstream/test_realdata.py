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

"""The real Vivado files: what PROVENANCE.md says of each must come out."""
import hashlib

import pytest

from nova_fpga import bitstream
from nova_fpga.bitstream import errors
from tests.unit.bitstream import mutate
from tests.unit.bitstream import realfiles

# name: (bytes, device, partial, sha256 prefix/suffix from PROVENANCE.md)
EXPECTED = {
    'prio.bit': (4045672, 'xc7z020', False, ('3fc3578a', 'c25a')),
    'pr_0_add.bit': (682525, 'xc7z020', True, ('8b1b162f', '9679')),
    'pr_0_sub.bit': (682525, 'xc7z020', True, ('8f70b1e6', 'aa26')),
    'base.bit': (4045672, 'xc7z020', False, None),
    'ov5640_lcd_7020.bit': (4045672, 'xc7z020', False, None),
    'ov5640_lcd_7010.bit': (2083848, 'xc7z010', False, None),
}


@pytest.mark.parametrize('name', sorted(EXPECTED))
def test_real_file_is_described_as_provenance_says(name):
    size, device, partial, digest = EXPECTED[name]
    info = bitstream.validate_file(realfiles.path(name))
    assert info.size == size
    assert info.device.name == device
    assert info.device.is_zynq
    assert info.partial is partial
    assert info.header_part.startswith(device[2:])
    assert info.container == 'bit'
    assert info.crc_checks >= 2
    assert info.sha256 == hashlib.sha256(realfiles.read(name)).hexdigest()
    if digest:
        assert info.sha256.startswith(digest[0])
        assert info.sha256.endswith(digest[1])
    # Vivado wrote UserID=0XFFFFFFFF: no module declared.
    assert not info.module_declared
    assert info.payload_offset + info.payload_size == size


def test_full_bitstream_writes_every_frame_from_far_zero():
    info = bitstream.validate_file(realfiles.path('prio.bit'))
    (block,) = info.footprint.blocks
    assert block.far == 0
    assert block.words == 1010808  # PROVENANCE: 10,008 frames x 101 words
    assert info.frames == 10008
    assert info.idcode == 0x03727093


def test_partials_of_one_region_share_a_footprint_the_full_does_not():
    add = bitstream.validate_file(realfiles.path('pr_0_add.bit'))
    sub = bitstream.validate_file(realfiles.path('pr_0_sub.bit'))
    full = bitstream.validate_file(realfiles.path('prio.bit'))
    assert add.footprint == sub.footprint
    assert add.footprint.signature == sub.footprint.signature
    assert add.sha256 != sub.sha256
    assert full.footprint.signature != add.footprint.signature
    # Several non-zero FARs with small FDRI blocks (PROVENANCE.md).
    fars = [b.far for b in add.footprint.blocks]
    assert len(fars) > 1 and all(fars)
    assert all(b.words < 100000 for b in add.footprint.blocks)


def test_partial_is_decided_from_packets_not_the_header():
    """Older Vivado writes no PARTIAL=TRUE: without it, same verdict."""
    data = realfiles.read('pr_0_add.bit')
    rebuilt = mutate.with_header(data, partial_flag=False)
    assert b'PARTIAL=TRUE' not in rebuilt
    info = bitstream.validate(rebuilt)
    assert info.partial and not info.header_partial
    assert info.footprint == bitstream.validate(data).footprint


def test_wrong_part_full_bitstream_is_valid_but_for_another_device():
    info = bitstream.validate_file(realfiles.path('ov5640_lcd_7010.bit'))
    assert info.device.name == 'xc7z010'
    assert info.idcode & 0x0FFFFFFF == 0x03722093
    assert not info.partial


def test_not_a_bitstream_is_refused_at_byte_zero():
    with pytest.raises(errors.ContainerError) as exc:
        bitstream.validate_file(
            realfiles.path('NEGATIVE_microblaze_pmod_mailbox.bin'))
    assert exc.value.offset == 0
    assert 'not a Xilinx bitstream' in str(exc.value)
