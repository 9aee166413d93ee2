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

"""Fixtures of the fault-injection suite: one demo cloud for the whole
suite, on a private MariaDB and RabbitMQ (the cases restart them: the
machine's configured servers are shared and must never be touched), its
images, and the shared invariant checker, run after every test.
"""
import os

import pytest

from nova_fpga_devtools.localcloud import stack as localstack
from tests.localcloud import demo_cloud
from tests.reliability import invariants
from tests.reliability import workload
from tests.services import CLI


#: A cloud already up on private servers to run the suite against while
#: developing (its state directory): resumed, and left running after.
REUSE = os.environ.get('NOVA_FPGA_RELIABILITY_CLOUD')
#: Loads take what a slow configuration port takes (0.7 s for an rp0
#: partial, 3 s for rp1's), so a fault can land during one.
PCAP_MB_PER_S = 0.5


def board_options(boards=2):
    return {'board%d' % index: {('emulator', 'pcap_rate'): PCAP_MB_PER_S}
            for index in range(boards)}


@pytest.fixture(scope='package')
def fault_cloud(tmp_path_factory):
    """The suite's cloud, stopped and purged when the package's last test
    has run (not at the end of the session: an idle cloud would slow the
    tests that run after it in the same worker).
    """
    if REUSE:
        yield localstack.Stack(REUSE, board_options=board_options()).up()
        return
    cloud = demo_cloud.start(tmp_path_factory.mktemp('faults'),
                             database_url=None, transport_url=None,
                             board_options=board_options())
    yield cloud
    cloud.down(purge=True)


@pytest.fixture(scope='package')
def admin(fault_cloud):
    return CLI(fault_cloud.openrc('admin'))


@pytest.fixture(scope='package')
def bob(fault_cloud):
    """A member of fpga-builders: creates the bitstream images and the
    servers.
    """
    return CLI(fault_cloud.openrc('bob'))


@pytest.fixture(scope='package')
def images(fault_cloud, admin, bob, tmp_path_factory):
    """{name: image id}: workload.IMAGES imported, and the bad image."""
    made = workload.make_images(fault_cloud, admin, bob,
                                tmp_path_factory.mktemp('bitstreams'))
    yield made
    for image_id in made.values():
        bob.run('image', 'delete', image_id, check=False)


@pytest.fixture
def checker(fault_cloud, images):
    """The invariant checker, checked again when the test has ended."""
    check = invariants.Checker(fault_cloud)
    yield check
    check.check()
