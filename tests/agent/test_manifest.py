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

"""The reference shell manifest and what makes a manifest wrong."""
import copy
import json

import pytest

from nova_fpga import bitstream
from nova_fpga.contract import shell as mf
from tests.agent.conftest import module_for
from tests.agent.conftest import REFERENCE
from tests.unit.bitstream import realfiles


def test_rp0_is_the_real_pblock_pr_0():
    for name in realfiles.PARTIALS:
        real = bitstream.validate(realfiles.read(name))
        assert REFERENCE.region('rp0').footprint == real.footprint


def test_rp1_is_bigger_and_the_builder_produces_it():
    rp0, rp1 = REFERENCE.region('rp0'), REFERENCE.region('rp1')
    assert rp1.footprint.words > 2 * rp0.footprint.words
    info = bitstream.validate(module_for('rp1'))
    assert info.footprint == rp1.footprint


def test_reference_shell_describes_an_xc7z020():
    assert REFERENCE.device.name == 'xc7z020'
    assert [r.name for r in REFERENCE.regions] == ['rp0', 'rp1']
    assert {r.vlan for r in REFERENCE.regions} == {100, 101}
    traits = REFERENCE.region_traits(REFERENCE.region('rp0'))
    assert 'CUSTOM_FPGA_PART_XC7Z020' in traits
    assert any(t.startswith('CUSTOM_FPGA_SHELL_') for t in traits)


def test_dma_register_block_is_optional():
    assert [r.dma_base for r in REFERENCE.regions] == [0x40400000, 0x40410000]
    assert REFERENCE.region('rp0').to_dict()['dma'] == '0x40400000'
    data = _raw()
    for region in data['regions']:
        del region['dma']
    older = mf.parse(data)
    assert older.region('rp0').dma_base is None
    assert 'dma' not in older.region('rp0').to_dict()


def _raw():
    return json.loads(mf.REFERENCE.read_text())


@pytest.mark.parametrize('damage,message', [
    (lambda m: m.update(part='xc7a35tcsg324'), 'not a Zynq'),
    (lambda m: m.update(shell_id='shell-1'), 'not a UUID'),
    (lambda m: m['regions'][1].update(vlan=100), 'share a VLAN'),
    (lambda m: m['regions'][1].update(name='rp0'), 'share a name'),
    (lambda m: m['regions'][1].update(decoupler='0x43C10100'), 'overlap'),
    (lambda m: m['regions'][1].update(dma='0x40400000'), 'overlap'),
    (lambda m: m['regions'][1].update(dma='DMA'), 'rp1 dma'),
    (lambda m: m['regions'][1].update(footprint=m['regions'][0]['footprint']),
     'share a footprint'),
    (lambda m: m['regions'][0]['footprint'].update(signature='00' * 16),
     'does not match its blocks'),
    (lambda m: m['regions'][0].update(name='../etc'), 'region name'),
    (lambda m: m.pop('regions'), 'missing field'),
])
def test_bad_manifests_are_refused(damage, message, tmp_path):
    data = copy.deepcopy(_raw())
    damage(data)
    path = tmp_path / 'shell.json'
    path.write_text(json.dumps(data))
    with pytest.raises(mf.ManifestError, match=message):
        mf.load(path)
