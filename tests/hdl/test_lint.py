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

"""Every RTL top passes Verilator's full lint (-Wall) and Icarus' warnings, at
more than one width.

PROCASSINIT is off: declaration initial values are deliberate (FPGA power-up
values, the verilog-axis style) and the registers are also reset.
"""
import subprocess

import pytest

from nova_fpga import catalogue
from nova_fpga_emulator import modules
from nova_fpga_emulator import toolchain
from tests.conftest import HDL

pytestmark = pytest.mark.hdl

LOOPBACK = modules.HdlModule.of(catalogue.load().by_name('loopback'))
#: top -> its build (sources, include directories)
TOPS = {build.top: build for build in (
    LOOPBACK, modules.decoupler(), LOOPBACK.in_slot,
    modules.HdlModule.of(catalogue.load().by_name('vtc')),
    modules.name_matcher(), modules.name_extractor(), modules.names())}
#: the tops without a stream (no DATA_WIDTH to vary)
STREAMLESS = {modules.NAME_MATCH_TOP}


@pytest.mark.parametrize('data_width', [64, 32])
@pytest.mark.parametrize('top', sorted(TOPS))
def test_verilator_lint_is_clean(top, data_width):
    command = [
        str(toolchain.verilator_root() / 'bin' / 'verilator'),
        '--lint-only',
        '-Wall',
        '-Wno-PROCASSINIT',
        '--top-module',
        top,
        *([] if top in STREAMLESS else ['-GDATA_WIDTH=%d' % data_width]),
        *['-I%s' % d for d in TOPS[top].include_dirs(HDL)],
        *map(str, TOPS[top].source_paths(HDL)),
    ]
    result = subprocess.run(
        command, env=toolchain.verilator_env(), capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert '%Warning' not in result.stderr, result.stderr


@pytest.mark.parametrize('top', sorted(TOPS))
def test_icarus_compiles_without_warnings(top, tmp_path):
    command = [toolchain.require('iverilog'), '-g2012', '-Wall', '-s', top,
               '-o', str(tmp_path / 'sim.vvp'),
               *['-I%s' % d for d in TOPS[top].include_dirs(HDL)],
               *map(str, TOPS[top].source_paths(HDL))]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stderr == '', result.stderr
