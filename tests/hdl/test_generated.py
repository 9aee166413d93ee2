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

"""Everything hdl/generate.py writes from the module catalogue is current:
the Verilog offsets, the Vivado module table, the partition wrappers and
the generated files are never edited by hand, so a stale one fails."""
import subprocess
import sys

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.hdl

GENERATE = ROOT / 'hdl' / 'generate.py'
#: what the shipped catalogue and the reference shell give
EXPECTED = {'hdl/rtl/generated/common_regs.vh',
            'hdl/rtl/generated/vtc_regs.vh',
            'hdl/rtl/generated/vtc_classes.vh', 'hdl/vivado/modules.tcl',
            'hdl/vivado/rtl/rp0_partition.v',
            'hdl/vivado/rtl/rp1_partition.v'}


def generate(*args):
    return subprocess.run([sys.executable, str(GENERATE), *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def written(directory):
    return {str(p.relative_to(directory)) for p in directory.rglob('*')
            if p.is_file()}


def test_generate_check_finds_nothing_stale():
    result = generate('--check')
    assert result.returncode == 0, \
        'run `make generate`:\n' + result.stdout + result.stderr


def test_regenerating_gives_byte_identical_files(tmp_path):
    result = generate('--out', tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert written(tmp_path) == EXPECTED
    for name in EXPECTED:
        assert (tmp_path / name).read_bytes() == (ROOT / name).read_bytes(), \
            '%s is stale: run `make generate`' % name
        assert 'by hdl/generate.py: do not edit' in \
            (tmp_path / name).read_text()


def test_port_guesses_reach_the_verilog_header():
    """vtc_classes.vh has the catalogue's class numbers and port guesses in
    the catalogue's order (the first entry that matches wins).
    """
    from nova_fpga import catalogue
    vtc = catalogue.load().by_name('vtc')
    text = (ROOT / 'hdl/rtl/generated/vtc_classes.vh').read_text()
    assert 'localparam CLASS_TLS = 2;' in text
    assert 'localparam PORT_GUESSES = %d;' % len(vtc.port_guesses) in text
    ports = text.split('PORT_GUESS_PORTS = {')[1].split('}')[0].split(', ')
    assert ports[::-1] == ["16'd%d" % g.port for g in vtc.port_guesses]
    classes = text.split('PORT_GUESS_CLASSES = {')[1].split('}')[0]
    assert classes.split(', ')[-1] == "4'd%d" % vtc.port_guesses[0].number


def test_check_names_each_stale_file(tmp_path):
    assert generate('--out', tmp_path).returncode == 0
    header = tmp_path / 'hdl' / 'rtl' / 'generated' / 'vtc_regs.vh'
    header.write_text(header.read_text().replace("'h180", "'h184"))
    partition = tmp_path / 'hdl' / 'vivado' / 'rtl' / 'rp1_partition.v'
    partition.unlink()
    result = generate('--check', '--out', tmp_path)
    assert result.returncode == 1
    assert result.stdout.split() == [
        'stale:', 'hdl/rtl/generated/vtc_regs.vh',
        'stale:', 'hdl/vivado/rtl/rp1_partition.v']
    # --check writes nothing
    assert not partition.exists()
