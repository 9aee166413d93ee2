"""Every RTL top passes Verilator's full lint (-Wall) and Icarus' warnings, at more than one width.

PROCASSINIT is off: declaration initial values are deliberate (FPGA power-up
values, the verilog-axis style) and the registers are also reset.
"""
import subprocess

import pytest

from nova_fpga_emulator import modules, toolchain
from tests.conftest import HDL

pytestmark = pytest.mark.hdl

TOPS = {
    'region_loopback': modules.LOOPBACK.source_paths(HDL),
    modules.DECOUPLER_TOP: [HDL / 'rtl' / source for source in modules.DECOUPLER_SOURCES],
    modules.SLOT_TOP: modules.LOOPBACK.in_slot.source_paths(HDL),
    'region_vtc': modules.VTC.source_paths(HDL),
}


@pytest.mark.parametrize('data_width', [64, 32])
@pytest.mark.parametrize('top', sorted(TOPS))
def test_verilator_lint_is_clean(top, data_width):
    command = [str(toolchain.verilator_root() / 'bin' / 'verilator'), '--lint-only', '-Wall',
               '-Wno-PROCASSINIT', '--top-module', top, '-GDATA_WIDTH=%d' % data_width,
               *map(str, TOPS[top])]
    result = subprocess.run(command, env=toolchain.verilator_env(), capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert '%Warning' not in result.stderr, result.stderr


@pytest.mark.parametrize('top', sorted(TOPS))
def test_icarus_compiles_without_warnings(top, tmp_path):
    command = [toolchain.require('iverilog'), '-g2012', '-Wall', '-s', top,
               '-o', str(tmp_path / 'sim.vvp'), *map(str, TOPS[top])]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stderr == '', result.stderr
