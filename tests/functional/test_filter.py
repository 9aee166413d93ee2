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

"""ZynqFilter on its own, with nova's request-spec objects and fake host
states: which host/request pairs pass, and the log line a bitstream without
derived properties gets."""
import logging

from nova import objects
from nova.tests.unit.scheduler import fakes
import pytest

from nova_fpga import bitstream
from nova_fpga.contract import placement
from nova_fpga.contract import traits
from nova_fpga.scheduler import filters
from tests.agent import conftest as agent_fixtures

objects.register_all()

REGION = {placement.REGION_EXTRA_SPEC: '1',
          placement.BOARD_SLOT_EXTRA_SPEC: '1'}


def spec(props, extra_specs):
    image = objects.ImageMeta.from_dict({
        'id': 'c0ffee00-0000-4000-8000-000000000001', 'properties': props})
    return objects.RequestSpec(
        image=image, flavor=objects.Flavor(name='f', extra_specs=extra_specs))


def host(hypervisor_type, agent='up', shell_id=None, unfit=''):
    stats = {
        placement.STAT_AGENT: agent,
        placement.STAT_SHELL_ID: shell_id or agent_fixtures.REFERENCE.shell_id,
        placement.STAT_UNFIT: unfit,
    }
    return fakes.FakeHostState('compute', 'node', {
        'hypervisor_type': hypervisor_type,
        'stats': stats if hypervisor_type == 'zynq' else {}})


@pytest.fixture(scope='module')
def bitstream_props():
    data = agent_fixtures.module_for('rp0')
    return traits.image_properties(bitstream.validate(data),
                                   agent_fixtures.REFERENCE.shell_id)


@pytest.mark.parametrize('hv,agent,bitstream_image,region,passes', [
    ('zynq', 'up', True, True, True),
    ('zynq', 'down', True, True, False),
    ('zynq', 'up', False, True, False),    # ordinary image / no import
    ('zynq', 'up', True, False, False),    # bitstream, ordinary flavor
    ('zynq', 'up', False, False, False),   # ordinary server on a board
    ('QEMU', None, True, True, False),     # bitstream on an ordinary host
    ('QEMU', None, True, False, False),
    ('QEMU', None, False, True, False),
    ('QEMU', None, False, False, True),    # ordinary server, ordinary host
])
def test_who_goes_where(bitstream_props, hv, agent, bitstream_image, region,
                        passes):
    props = bitstream_props if bitstream_image else {}
    request = spec(props, REGION if region else {})
    assert filters.ZynqFilter().host_passes(host(hv, agent), request) is passes


def test_bitstream_without_derived_properties_is_logged(caplog):
    caplog.set_level(logging.INFO, logger='nova_fpga.scheduler.filters')
    assert not filters.ZynqFilter().host_passes(host('zynq'), spec({}, REGION))
    assert 'uploaded without the import flow' in caplog.text


def test_bitstream_for_another_shell_is_refused_with_the_reason(
        bitstream_props, caplog):
    caplog.set_level(logging.INFO, logger='nova_fpga.scheduler.filters')
    other = '0b9a5a3e-0000-4000-8000-000000000001'
    board = host('zynq', shell_id=other)
    assert not filters.ZynqFilter().host_passes(board,
                                                spec(bitstream_props, REGION))
    assert 'built for another shell' in caplog.text
    assert other in caplog.text


def test_unfit_board_is_refused_with_the_reason(bitstream_props, caplog):
    caplog.set_level(logging.INFO, logger='nova_fpga.scheduler.filters')
    request = spec(bitstream_props, REGION)
    assert filters.ZynqFilter().host_passes(host('zynq'), request)
    hot = host('zynq', unfit='overheated: 95.0 C')
    assert not filters.ZynqFilter().host_passes(hot, request)
    assert 'board node is unfit: overheated: 95.0 C' in caplog.text


def test_board_of_an_older_nova_compute_without_the_stat_is_fit(
        bitstream_props):
    board = host('zynq')
    del board.stats[placement.STAT_UNFIT]
    assert filters.ZynqFilter().host_passes(board,
                                            spec(bitstream_props, REGION))
