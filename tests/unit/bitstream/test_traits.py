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

"""One naming function for image properties and region traits."""
import re

import pytest

from nova_fpga import bitstream
from nova_fpga.bitstream import builder
from nova_fpga.bitstream import errors
from nova_fpga.contract import traits
from tests.unit.bitstream import realfiles

SHELL = '3f1c1a52-8a57-4c2e-9a51-52b1c0a0f001'
TRAIT_RE = re.compile(r'^CUSTOM_[A-Z0-9_]{1,248}$')  # placement's rule


def test_image_properties_select_exactly_the_matching_region():
    info = bitstream.validate(realfiles.read('pr_0_add.bit'))
    props = traits.image_properties(info, SHELL.upper())
    required = {k[len('trait:'):] for k, v in props.items()
                if k.startswith('trait:') and v == 'required'}
    assert required == set(traits.region_traits(
        info.device.name, SHELL, info.footprint.signature))
    assert all(TRAIT_RE.match(t) for t in required)
    assert props['fpga_footprint'] == info.footprint.signature
    assert props['fpga_sha256'] == info.sha256
    assert props['fpga_device'] == 'xc7z020'
    assert props['fpga_module_id'] == 'none'
    assert props['fpga_shell_id'] == SHELL
    plain = {k for k in props if not k.startswith('trait:')}
    assert plain == set(traits.DERIVED_PROPERTIES) | {traits.SHELL_ID_PROPERTY}
    assert all(isinstance(v, str) for v in props.values())
    assert traits.module_id(props) is None


def test_the_module_id_property_reads_back():
    info = bitstream.validate(builder.build_partial(
        'xc7z020', 'vtc', 0x4E460002, bitstream.validate(realfiles.read(
            'pr_0_add.bit')).footprint))
    props = traits.image_properties(info, SHELL)
    assert props[traits.MODULE_ID_PROPERTY] == '0x4E460002'
    assert traits.module_id(props) == 0x4E460002
    for bad in ('4E460002', '0x4e460002', '0x4E4600021', 1, None):
        assert traits.module_id({traits.MODULE_ID_PROPERTY: bad}) is None
    assert traits.module_id({}) is None


def test_other_region_shell_or_device_gets_other_traits():
    info = bitstream.validate(realfiles.read('pr_0_add.bit'))
    mine = set(traits.region_traits('xc7z020', SHELL,
                                    info.footprint.signature))
    assert mine != set(traits.region_traits(
        'xc7z020', SHELL.replace('f001', 'f002'), info.footprint.signature))
    assert mine != set(traits.region_traits('xc7z010', SHELL,
                                            info.footprint.signature))
    assert mine != set(traits.region_traits('xc7z020', SHELL, '0' * 32))


def test_full_bitstream_has_no_region_properties():
    info = bitstream.validate(realfiles.read('prio.bit'))
    with pytest.raises(errors.KindError, match='only partial'):
        traits.image_properties(info, SHELL)


def test_shell_id_must_be_a_uuid():
    info = bitstream.validate(realfiles.read('pr_0_add.bit'))
    with pytest.raises(errors.BitstreamError, match='not a UUID'):
        traits.image_properties(info, 'my-shell')
