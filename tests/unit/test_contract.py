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

"""Each contract value is written once: in nova_fpga/contract.

The test reads every Python file's string literals (not docstrings or
comments) and fails on a region state, a node stats key, a resource
class or the vif_type of ports bound to boards written anywhere but the
contract package.  Region states are
checked in the code only: nova's server status 'ACTIVE' is the same word,
and tests and benchmarks use it for servers.
"""
import ast

import pytest

from nova_fpga.contract import network
from nova_fpga.contract import placement
from nova_fpga.contract import states
from tests.conftest import ROOT

CONTRACT = ROOT / 'nova_fpga' / 'contract'
CODE = ['nova_fpga', 'glance_store_bitstream', 'agent', 'nova-virt-zynq',
        'tools/devtools', 'hdl']
#: besides the code: these use nova's server status 'ACTIVE' too
TOOLING = ['benchmarks', 'tests']
RESOURCE_CLASSES = [placement.REGION_RESOURCE_CLASS,
                    placement.BOARD_SLOT_RESOURCE_CLASS]
STATS_KEYS = [getattr(placement, name) for name in dir(placement)
              if name.startswith('STAT_')]


def python_files(folders):
    for folder in folders:
        for path in sorted((ROOT / folder).rglob('*.py')):
            if CONTRACT not in path.parents and '.venv' not in path.parts:
                yield path


def string_literals(path):
    """(line, text) of every string constant that is not a docstring."""
    tree = ast.parse(path.read_text(encoding='utf-8'))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef,
                                       ast.FunctionDef,
                                       ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in docstrings):
            yield node.lineno, node.value


def offences(folders, exact, within):
    found = []
    for path in python_files(folders):
        for line, text in string_literals(path):
            if text in exact or any(value in text for value in within):
                found.append('%s:%d: %r' % (path.relative_to(ROOT), line,
                                            text))
    return found


def test_contract_values_are_named_not_typed_in_code():
    assert not offences(CODE, exact=states.STATES + (network.VIF_TYPE,),
                        within=RESOURCE_CLASSES + STATS_KEYS)


def test_tests_take_resource_classes_and_stats_keys_from_the_contract():
    assert not offences(TOOLING, exact=(network.VIF_TYPE,),
                        within=RESOURCE_CLASSES + STATS_KEYS)


@pytest.mark.parametrize('value', list(states.STATES) + RESOURCE_CLASSES)
def test_the_check_finds_a_typed_value(tmp_path, value):
    """The scan itself works: a literal planted in a file is found, its
    docstring is not.
    """
    planted = tmp_path / 'planted.py'
    planted.write_text('"""doc %s"""\nX = %r\n' % (value, value))
    found = [text for _, text in string_literals(planted)]
    assert found == [value]
