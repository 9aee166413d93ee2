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
import os
import pathlib
import tempfile

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


def pytest_configure(config):
    """Benchmarks that tests run (short runs, other arguments) write their
    results into a temporary folder, never among benchmarks/results/'s real
    runs (benchmarks/results.py reads $NOVA_FPGA_RESULTS_DIR; the
    subprocesses inherit it).
    """
    os.environ['NOVA_FPGA_RESULTS_DIR'] = tempfile.mkdtemp(
        prefix='nova-fpga-results-')


#: fixtures that start a whole cloud (minutes and 2 GB each) -> the test
#: paths that use it.  Under pytest-xdist (make test: -n 3) every test of
#: one cloud runs in the same worker, so each cloud starts once; every
#: other module is a group of its own, so its module fixtures start once
#: too.  The scheduler only sees node IDs, hence paths; collection fails
#: when a test uses a cloud outside its paths (it would start another).
CLOUD_PATHS = {
    'demo_stack': ('tests/e2e/', 'tests/localcloud/test_stack.py'),
    'vm_host_cloud': ('tests/localcloud/test_vm_host',),
    'fault_cloud': ('tests/reliability/',),
}


#: modules of minutes that start nothing shared (the README's demo from
#: nothing, the role installs, the bitstream fuzz): started right after the
#: clouds, so that none of them is the last thing a worker does
LONG_MODULES = ('tests/unit/test_readme_commands.py',
                'tests/install/test_roles.py',
                'tests/unit/bitstream/test_fuzz.py')


def worker_group(nodeid):
    """The group a test runs in: its cloud's, else its module's."""
    for cloud, paths in CLOUD_PATHS.items():
        if nodeid.startswith(paths):
            return cloud
    return nodeid.split('::')[0]


def pytest_collection_modifyitems(config, items):
    """Check each cloud's tests are where CLOUD_PATHS says, and put them
    first, longest first, keeping their order, then LONG_MODULES: a worker
    starts a cloud at once instead of after the short modules.
    """
    for item in items:
        names = getattr(item, 'fixturenames', ())
        for cloud in CLOUD_PATHS:
            if cloud in names and worker_group(item.nodeid) != cloud:
                raise pytest.UsageError(
                    '%s uses %s outside CLOUD_PATHS (tests/conftest.py): '
                    'under pytest-xdist it would start another cloud'
                    % (item.nodeid, cloud))
    order = list(CLOUD_PATHS) + list(LONG_MODULES)
    items.sort(key=lambda item: order.index(worker_group(item.nodeid))
               if worker_group(item.nodeid) in order else len(order))


def pytest_xdist_make_scheduler(config, log):
    """With --dist loadgroup: pytest-xdist's scope scheduling with
    worker_group as the scope (xdist's own loadgroup marks node IDs in a
    way pytest 9 no longer reads, so it would group nothing).
    """
    if config.getvalue('dist') != 'loadgroup':
        return None
    from xdist.scheduler import LoadScopeScheduling

    class CloudScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return worker_group(nodeid)
    return CloudScheduling(config, log)


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
