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

"""The fuzz tests' helpers: the independent re-reading reads the real files
as the validator does and refuses what it must, and the mutator gives the
same bytes for the same seed."""
import pytest

from nova_fpga import bitstream
from nova_fpga.bitstream import convert
from tests.unit.bitstream import mutate
from tests.unit.bitstream import mutator
from tests.unit.bitstream import realfiles
from tests.unit.bitstream import recheck


@pytest.mark.parametrize('name', ['pr_0_add.bit', 'pr_0_sub.bit',
                                  'ov5640_lcd_7010.bit'])
@pytest.mark.parametrize('form', ['bit', 'pcap-bin'])
def test_recheck_reads_real_files_as_the_validator_does(name, form):
    data = realfiles.read(name)
    if form == 'pcap-bin':
        data = convert.to_bin(data)
    info = bitstream.validate(data)
    reading = recheck.read(data)
    assert reading.idcode == info.idcode
    assert reading.blocks == [(b.far, b.words)
                              for b in info.footprint.blocks]
    assert reading.crc_checks == info.crc_checks
    assert reading.setup == (not info.partial)


@pytest.mark.parametrize('damage', [
    lambda d: mutate.flip_bit(d, 300000),
    lambda d: d[:-4],
    lambda d: mutate.with_header(d, payload_length=len(
        mutate.payload(d)) + 4) + bytes(4),
    lambda d: realfiles.read('NEGATIVE_microblaze_pmod_mailbox.bin'),
])
def test_recheck_refuses_damaged_files(damage):
    with pytest.raises(recheck.Invalid):
        recheck.read(damage(realfiles.read('pr_0_add.bit')))


def test_mutants_are_the_same_for_a_seed_and_cover_every_kind():
    first = [mutator.mutant(seed) for seed in range(len(mutator.KINDS))]
    assert {m.kind for m in first} == set(mutator.KINDS)
    again = [mutator.mutant(seed) for seed in range(len(mutator.KINDS))]
    assert first == again and [m.data for m in first] == \
        [m.data for m in again]
