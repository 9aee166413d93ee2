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

"""What an operator installs reads nothing from a source checkout: no
shipped module finds files by climbing out of its package from its own
path (``parents[N]``, ``.parent.parent``, ``..`` or nested dirname around
``__file__``).  Files beside a module, in its own package, are fine."""
import importlib
import pathlib
import re

import pytest

SHIPPED = ('nova_fpga', 'nova_fpga_agent', 'glance_store_bitstream',
           'nova_fpga_emulator', 'nova.virt.zynq')
CLIMBS = re.compile(r'\.parents\b|\.parent\s*\.\s*parent\b|os\.pardir'
                    r"|['\"]\.\.['\"]|dirname\(\s*os\.path\.dirname")
FILE = re.compile(r'\b__file__\b')


def climbs_out(text):
    """Lines that climb out of a package: any ``.parents`` (a package
    needs none), or ``__file__`` with a way up on the same line.
    """
    return [line.strip() for line in text.splitlines()
            if re.search(r'\.parents\b', line)
            or (FILE.search(line) and CLIMBS.search(line))]


@pytest.mark.parametrize('sample', [
    "RTL_DIR = pathlib.Path(__file__).resolve().parents[3] / 'hdl'",
    "ROOT = modules.RTL_DIR.parents[1]",
    "top = pathlib.Path(__file__).parent.parent / 'hdl'",
    "top = os.path.join(os.path.dirname(__file__), '..', 'hdl')",
    "top = os.path.dirname(os.path.dirname(__file__))",
])
def test_the_check_sees_a_climb(sample):
    assert climbs_out(sample) == [sample]


def test_the_check_lets_package_data_be():
    assert climbs_out("REFERENCE = pathlib.Path(__file__).parent / "
                      "'shells' / 'x.json'") == []


@pytest.mark.parametrize('package', SHIPPED)
def test_shipped_package_stays_inside(package):
    top = pathlib.Path(importlib.import_module(package).__file__).parent
    sources = sorted(top.rglob('*.py'))
    assert sources
    found = {str(path.relative_to(top)): lines for path in sources
             for lines in [climbs_out(path.read_text())] if lines}
    assert found == {}
