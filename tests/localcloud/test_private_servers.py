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

"""The stack's private MariaDB and RabbitMQ, used when no configured server
answers: started from the Debian packages in the state directory, serving
the cloud's databases and vhosts, and stopped by pid, epmd included."""
import socket
import ssl

import kombu
import pytest

from nova_fpga import deployment
from nova_fpga_devtools.localcloud import mariadb
from nova_fpga_devtools.localcloud import process
from nova_fpga_devtools.localcloud import stack as localstack
from tests.services import alive

#: Nothing listens on port 1.
SILENT_DB = 'mysql+pymysql://root@127.0.0.1:1/'
SILENT_MQ = 'rabbit://guest:guest@127.0.0.1:1/'


def amqp_connects(url, tls=None):
    """tls: the client's deployment.Tls (the agents' bus)."""
    ssl_options = False
    if tls is not None:
        ssl_options = {'ca_certs': str(tls.ca_file),
                       'certfile': str(tls.cert_file),
                       'keyfile': str(tls.key_file),
                       'cert_reqs': ssl.CERT_REQUIRED,
                       'server_hostname': '127.0.0.1'}
    with kombu.Connection(url.replace('rabbit://', 'amqp://', 1),
                          connect_timeout=5, ssl=ssl_options) as conn:
        try:
            conn.connect()
            return True
        except Exception as exc:  # kombu raises the broker's refusal as is
            if 'ACCESS_REFUSED' in str(exc) or 'NOT_ALLOWED' in str(exc) \
                    or 'access' in str(exc).lower():
                return False
            raise


@pytest.fixture
def servers(tmp_path):
    stack = localstack.Stack(tmp_path / 'demo', database_url=SILENT_DB,
                             transport_url=SILENT_MQ, die_with_parent=True)
    try:
        stack.start_servers()
    except process.ServiceError as exc:
        stack.down(purge=True)
        pytest.fail(str(exc), pytrace=False)
    yield stack
    stack.down(purge=True)


def test_private_servers_serve_the_cloud_and_stop_by_pid(servers):
    state = servers.state
    assert state['database']['private'] and state['rabbitmq']['private']
    assert state['database']['url'].startswith(
        'mysql+pymysql://root@127.0.0.1:'
    )
    servers.prepare()
    assert set(state['databases'].values()) <= mariadb.list_databases(
        state['database']['url'])

    # each board's user reaches its own vhost on the agents' bus (TLS, its
    # certificate), not another board's, not nova's
    tls = servers.tls_files('board0')
    board = servers.board('board0').transport_url
    assert amqp_connects(board, tls)
    base = board.rsplit('/', 1)[0] + '/'
    assert not amqp_connects(base + state['vhosts']['nova'], tls)
    assert not amqp_connects(base + deployment.board_vhost(
        state['vhosts']['agents'], 'board1'), tls)
    assert amqp_connects(servers.nova(None).transport_url)

    # a second start finds them running and starts no second copy
    running = servers.pids()
    assert sorted(running) == ['mariadb/mariadb', 'rabbitmq/epmd',
                               'rabbitmq/rabbitmq']
    servers.start_servers()
    assert servers.pids() == running

    pids = [pid for group in running.values() for pid in group]
    stopped = servers.down(purge=True)
    assert sorted(stopped) == sorted(running)
    assert [pid for pid in pids if alive(pid)] == []
    assert not servers.dir.exists()


def test_a_service_that_cannot_start_is_named_and_down_stops_the_rest(
        servers):
    servers.prepare()
    # something else holds keystone's port
    with socket.socket() as squatter:
        squatter.bind(('127.0.0.1', servers.state['ports']['keystone']))
        squatter.listen()
        with pytest.raises(process.ServiceError) as failed:
            servers.up()
    message = str(failed.value)
    assert message.startswith('keystone: ')
    assert 'last lines of %s' % (servers.dir / 'keystone' / 'keystone.log') \
        in message
    assert 'Address already in use' in message
    running = servers.pids()
    assert 'keystone/keystone' not in running  # stopped, pid file removed
    assert running['mariadb/mariadb'] and running['rabbitmq/rabbitmq']
    pids = [pid for group in running.values() for pid in group]
    servers.down()
    assert [pid for pid in pids if alive(pid)] == []
