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

"""Builder-made partials: valid, shaped like Vivado's, and fragile."""
import datetime

import pytest

from nova_fpga import bitstream
from nova_fpga.bitstream import builder
from nova_fpga.bitstream import container
from nova_fpga.bitstream import convert
from nova_fpga.bitstream import errors
from nova_fpga.bitstream import footprint as fp
from nova_fpga.bitstream import packets as pk
from tests.unit.bitstream import mutate
from tests.unit.bitstream import realfiles

MODULE = 0x4E460001


@pytest.fixture(scope='module')
def pr0():
    return bitstream.validate(realfiles.read('pr_0_add.bit')).footprint


def test_built_for_the_real_region_matches_the_real_partials(pr0):
    data = builder.build_partial('7z020clg400', 'loopback', MODULE, pr0)
    info = bitstream.validate(data)
    assert info.partial and info.header_partial
    assert info.device.name == 'xc7z020'
    assert info.module_id == MODULE and info.module_declared
    assert info.design == 'loopback'
    assert info.footprint == pr0
    assert info.crc_checks == 3
    real = realfiles.read('pr_0_add.bit')
    # shaped like the real one: same size up to the header, same words
    # around the frames, same ending
    assert abs(len(data) - len(real)) < 64
    assert mutate.payload(data)[-72:] == mutate.payload(real)[-72:]
    assert mutate.payload(data)[:64] == mutate.payload(real)[:64]


def test_signature_depends_only_on_the_blocks(pr0):
    sigs = {
        bitstream.validate(builder.build_partial(
            '7z020clg400', design, module, pr0, seed=seed,
            tool_version=version,
            when=datetime.datetime(2024, 1, day))).footprint.signature
        for design, module, seed, version, day in [
            ('a', 1, 1, 'x', 1), ('b', 2, 2, 'y', 2), ('c', 0xFFFFFFFF, 3,
                                                       'z', 3)]}
    assert sigs == {pr0.signature}
    moved = fp.Footprint((fp.Block(pr0.blocks[0].far + 1,
                                   pr0.blocks[0].words),) + pr0.blocks[1:])
    other = bitstream.validate(
        builder.build_partial('7z020clg400', 'a', 1, moved)).footprint
    assert other.signature != pr0.signature


@pytest.mark.parametrize('offset_fraction', [0.1, 0.5, 0.9])
def test_a_flipped_bit_in_builder_output_fails(pr0, offset_fraction):
    data = builder.build_partial('7z020clg400', 'lb', MODULE, pr0)
    at = int(len(data) * offset_fraction)
    with pytest.raises(errors.CrcError):
        bitstream.validate(mutate.flip_bit(data, at, 3))


def test_builder_writes_header_less_bin_and_other_devices():
    small = fp.Footprint((fp.Block(0x00400100, 101 * 4),
                          fp.Block(0x00400200, 101 * 2)))
    data = builder.build_partial('7z010clg400', 'x', MODULE, small,
                                 header=False)
    info = bitstream.validate(data)
    assert info.container == container.BIN_PLAIN
    assert info.device.name == 'xc7z010'
    assert info.footprint == small


def test_the_module_id_survives_in_the_bin_as_usr_access(pr0):
    data = builder.build_partial('7z020clg400', 'x', MODULE, pr0)
    assert bitstream.validate(data).usr_access == MODULE
    swapped = bitstream.validate(convert.to_bin(data))
    assert swapped.container == container.BIN_SWAPPED
    assert swapped.module_id == container.NO_USER_ID
    assert swapped.usr_access == MODULE
    opaque = builder.build_partial('7z020clg400', 'x', container.NO_USER_ID,
                                   pr0)
    assert bitstream.validate(opaque).usr_access is None
    # Vivado's partials set no USR_ACCESS
    assert bitstream.validate(realfiles.read('pr_0_add.bit')).usr_access \
        is None


def test_builder_refuses_what_it_cannot_write():
    with pytest.raises(errors.FootprintError):
        builder.build_partial('7z020clg400', 'x', 1,
                              fp.Footprint((fp.Block(0x100, 100),)))
    with pytest.raises(errors.FootprintError):
        builder.build_partial('7z020clg400', 'x', 1,
                              fp.Footprint((fp.Block(0x100, 0, fp.MFWR),)))
    with pytest.raises(errors.DeviceError):
        builder.build_partial('7a35tcsg324', 'x', 1, fp.Footprint(
            (fp.Block(0x100, 101),)))
    with pytest.raises(errors.HeaderError):
        builder.build_partial('7z020clg400', 'x', 1 << 32, fp.Footprint(
            (fp.Block(0x100, 101),)))


def test_footprint_json_round_trip_and_signature_check(pr0):
    again = fp.Footprint.from_dict(pr0.to_dict())
    assert again == pr0
    forged = dict(pr0.to_dict(), signature='0' * 32)
    with pytest.raises(errors.FootprintError):
        fp.Footprint.from_dict(forged)
    with pytest.raises(errors.FootprintError):
        fp.Footprint.from_dict([{'far': 'zz', 'words': 1}])
    assert fp.Footprint.from_dict([b.to_dict() for b in pr0.blocks]) == pr0


def test_words_are_real_packets():
    """The builder speaks the same packet vocabulary as the validator."""
    small = fp.Footprint((fp.Block(0x00400100, 101),))
    data = builder.build_partial('7z020clg400', 'x', 1, small, header=False)
    assert data.count(mutate.IDCODE_WRITE) == 1
    assert data.endswith(pk.NOP_WORD.to_bytes(4, 'big') * 16)
