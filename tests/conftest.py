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

"""Shared fixtures: where the real test data lives, and figures tests report.

The real bitstreams and captures are in tests/data/realdata (each folder
with its licence and PROVENANCE.md; nova_fpga_devtools.REALDATA names it).
A test that needs them and cannot find them fails: it never skips.
"""
import pathlib

import nova_fpga_devtools
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: the modules' Verilog and the Verilator bridge ([emulator] hdl_dir)
HDL = ROOT / 'hdl'
REALDATA = nova_fpga_devtools.REALDATA

#: Lines tests want printed in the summary (figures such as fuzz counts).
REPORT = []
#: the user property a figure travels in: with pytest-xdist a test runs in a
#: worker, and only its report (user properties included) reaches the
#: process that prints the summary
FIGURE = 'figure'


def realdata_path(*parts):
    path = REALDATA.joinpath(*parts)
    if not path.exists():
        pytest.fail('real test data %s is missing: tests/data/realdata is '
                    'part of the checkout (or NOVA_FPGA_REALDATA is wrong)'
                    % path,
                    pytrace=False)
    return path


@pytest.fixture
def report(request):
    def add(line):
        request.node.user_properties.append((FIGURE, line))
    return add


def pytest_runtest_logreport(report):
    if report.when == 'teardown':
        REPORT.extend(value for name, value in report.user_properties
                      if name == FIGURE)


def pytest_terminal_summary(terminalreporter):
    if REPORT:
        terminalreporter.section('figures')
        for line in REPORT:
            terminalreporter.write_line(line)


@pytest.fixture(scope='session')
def keystone(tmp_path_factory):
    """A started Keystone with admin, glance, alice (demo), bob
    (fpga-builders), for the glance and localcloud tests (it takes about
    11 s to set up, so one serves the session); a keystone that cannot
    start fails the test with its log.
    """
    from nova_fpga_devtools.localcloud import keystone as localkeystone
    from nova_fpga_devtools.localcloud import process
    ks = localkeystone.Keystone(tmp_path_factory.mktemp('cloud'))
    try:
        ks.start()
    except process.ServiceError as exc:
        pytest.fail(str(exc), pytrace=False)
    yield ks
    ks.stop()


@pytest.fixture(scope='session')
def demo_stack(tmp_path_factory):
    """One whole demo cloud for the test session (tests/e2e and
    tests/localcloud share it: a second cloud would double CI time), in a
    temporary state directory; stopped and purged at the end.
    """
    from tests.localcloud.demo_cloud import start
    # board1 runs the fpga_manager backend over a fake kernel: whatever
    # lands there goes through the board backend's code
    stack = start(tmp_path_factory.mktemp('demo'),
                  board_backends={'board1': 'fpga_manager'})
    yield stack
    stack.down(purge=True)
