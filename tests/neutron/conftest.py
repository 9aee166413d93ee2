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

"""A real neutron-server (with the boards' mechanism driver, as the demo
cloud configures it) on a private MariaDB and a vhost of the session's
RabbitMQ, against the session's keystone.  A service that cannot start fails
the test with its log: nothing skips.
"""
import pytest

from nova_fpga_devtools.localcloud import mariadb
from nova_fpga_devtools.localcloud import neutron as localneutron
from nova_fpga_devtools.localcloud import process
from tests.agent.brokers import rabbitmq  # noqa: F401 (a fixture)

BOARDS = ('board0', 'board1')


@pytest.fixture(scope='module')
def neutron_server(keystone, rabbitmq, tmp_path_factory):  # noqa: F811
    state = tmp_path_factory.mktemp('neutron')
    db = mariadb.PrivateMariaDB(state, process.free_port())
    server = None
    try:
        db.start()
        mariadb.create_databases(db.url, ['neutron'])
        server = localneutron.Neutron(
            keystone, state,
            mariadb.database_url(db.url, 'neutron') + '?charset=utf8',
            process.free_port(), rabbitmq.user('neutron'), boards=BOARDS)
        server.start()
    except process.ServiceError as exc:
        if server is not None:
            server.process.stop()
        db.stop()
        pytest.fail(str(exc), pytrace=False)
    yield server
    server.process.stop()
    db.stop()
