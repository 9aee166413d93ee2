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

"""Region budgets parsed from pblock XDC files, and yosys estimates of the
modules checked against them.
"""
import functools

import pytest

from nova_fpga import catalogue
from nova_fpga_devtools.hdl import resources
from nova_fpga_emulator import modules
from tests.conftest import HDL
from tests.conftest import realdata_path

pytestmark = pytest.mark.hdl

RP1_XDC = resources.ROOT / 'hdl' / 'pblocks' / 'rp1.xdc'
LOOPBACK = catalogue.load().by_name('loopback')
VTC = catalogue.load().by_name('vtc')
DECOUPLER = modules.decoupler()
RTL = HDL / 'rtl'

# xc7z020 fabric: slice rows Y0..Y149 in three clock-region rows of 50
XC7Z020_SLICE_X_MAX, XC7Z020_SLICE_Y_MAX = 113, 149


def pr_0():
    return resources.pblock_budget(
        realdata_path('bitstreams', 'royforu_pynq_pr', 'pr_0.xdc'))


def rp1():
    return resources.pblock_budget(RP1_XDC)


@functools.lru_cache(maxsize=None)
def synthesized(top):
    for module in (LOOPBACK, VTC):
        if top == module.top:
            return resources.synthesize(
                top,
                module.source_paths(RTL),
                module.build_parameters,
                module.include_dirs(RTL),
            )
    return resources.synthesize(DECOUPLER.top, DECOUPLER.source_paths(HDL))


def test_real_pr_0_budget_is_read_from_its_xdc():
    """The parser turns the real Vivado pblock into the figures Vivado reports
    for it.
    """
    budget = pr_0()
    assert (
        budget.slices,
        budget.luts,
        budget.ffs,
        budget.ramb36,
        budget.dsp48,
    ) == (396, 1584, 3168, 4, 8)


def test_rp1_is_a_large_region_beside_pr_0():
    """rp1 has room for the vTC, lies inside the xc7z020 fabric and shares no
    site with pr_0.
    """
    budget = rp1()
    assert budget.slices >= 2000 and budget.ramb36 >= 20
    assert not budget.sites & pr_0().sites
    slices = [(x, y) for kind, x, y in budget.sites if kind == 'SLICE']
    assert max(x for x, _ in slices) <= XC7Z020_SLICE_X_MAX
    assert max(y for _, y in slices) <= XC7Z020_SLICE_Y_MAX
    # one whole clock region row: Y50..Y99
    assert {y // 50 for _, y in slices} == {1}


def test_xdc_parser_refuses_what_it_cannot_count():
    with pytest.raises(resources.XdcError):
        resources.pblock_budgets(
            'resize_pblock p -add {CLOCKREGION_X0Y0:CLOCKREGION_X0Y1}'
        )
    with pytest.raises(resources.XdcError):
        resources.pblock_budgets('create_pblock p')


@pytest.mark.parametrize('region', ['pr_0', 'rp1'])
def test_loopback_fits_the_region(region, report):
    """Fails when the loopback outgrows a region of the reference shell."""
    budget = {'pr_0': pr_0, 'rp1': rp1}[region]()
    usage = synthesized(LOOPBACK.top)
    report('yosys loopback: %s vs %s' % (usage, budget))
    assert resources.overruns(usage, budget) == []
    assert usage.luts > 0 and usage.ffs > 0


def test_vtc_fits_rp1(report):
    """Fails when the vTC (4,096 flows) outgrows the region made for it; its
    table is block RAM.
    """
    budget = rp1()
    usage = synthesized(VTC.top)
    report(
        'yosys vTC: %s vs %s (%.0f%% of the LUTs)'
        % (usage, budget, 100.0 * usage.luts / budget.luts)
    )
    assert resources.overruns(usage, budget) == []
    # 4,096 entries of 130 bits in four ways: 16 RAMB36, not LUTs
    assert usage.ramb36 >= 16
    assert resources.overruns(usage, pr_0()) != []


def test_decoupler_estimate_uses_block_ram(report):
    """The decoupler is shell logic (no region budget); its egress FIFO must
    map to block RAM.
    """
    usage = synthesized(DECOUPLER.top)
    report('yosys decoupler (static shell): %s' % usage)
    assert usage.ramb36 >= 1
    assert usage.luts < 500


def test_overrun_is_reported():
    budget = pr_0()
    usage = resources.Usage(
        luts=budget.luts + 1,
        ffs=10,
        ramb36=budget.ramb36 + 0.5,
        dsp48=0,
        cells={},
    )
    assert resources.overruns(usage, budget) == [
        'LUTs: needs 1585, pblock_pr_0 has 1584',
        'RAMB36: needs 4.5, pblock_pr_0 has 4',
    ]
