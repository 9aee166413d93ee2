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

"""A cloud on configured MariaDB/RabbitMQ servers (those of
NOVA_FPGA_TEST_DATABASE_URL / NOVA_FPGA_TEST_RABBIT_URL; private ones when
they do not answer): its own databases, vhosts and users there, left alone
by down, dropped by down --purge, the servers themselves never stopped."""
import pytest

from nova_fpga import deployment
from nova_fpga_devtools.localcloud import mariadb
from nova_fpga_devtools.localcloud import process
from nova_fpga_devtools.localcloud import rabbitmq
from nova_fpga_devtools.localcloud import stack as localstack
from tests.localcloud.demo_cloud import DATABASE_URL
from tests.localcloud.demo_cloud import RABBIT_URL
from tests.services import alive


def test_down_keeps_and_purge_drops_the_clouds_own_databases_and_vhosts(
        tmp_path):
    cloud = localstack.Stack(tmp_path / 'demo', database_url=DATABASE_URL,
                             transport_url=RABBIT_URL, die_with_parent=True)
    try:
        cloud.start_servers()
        cloud.prepare()
    except process.ServiceError as exc:
        cloud.down(purge=True)
        pytest.fail(str(exc), pytrace=False)
    state = dict(cloud.state)
    db_url = state['database']['url']
    broker = rabbitmq.configured(state['rabbitmq']['url']) \
        if not state['rabbitmq']['private'] else cloud._broker()
    databases = set(state['databases'].values())
    vhosts = {state['vhosts']['nova']}
    logins = {state['mq_users']['nova'][0]}
    assert databases <= mariadb.list_databases(db_url)
    assert vhosts <= broker.vhosts() and logins <= broker.users()
    # the agents' bus (a private TLS node beside a configured one): a vhost
    # per board, nova-compute's and each board's user
    agents = cloud._agents_broker()
    board_vhosts = {deployment.board_vhost(state['vhosts']['agents'], b)
                    for b in state['boards']}
    agent_logins = {login for user, (login, _) in state['mq_users'].items()
                    if user != 'nova'}
    assert board_vhosts <= agents.vhosts()
    assert agent_logins <= agents.users()
    if not state['rabbitmq']['private']:
        assert not board_vhosts & broker.vhosts()
    # names carry the cloud's ID: two clouds can share one server
    assert all(state['id'] in name for name in databases | vhosts | logins)

    started = [pid for group in cloud.pids().values() for pid in group]
    cloud.down()
    assert [pid for pid in started if alive(pid)] == []
    if not state['database']['private']:
        assert mariadb.answers(db_url)
        assert databases <= mariadb.list_databases(db_url)
    if not state['rabbitmq']['private']:
        assert vhosts <= broker.vhosts()

    cloud.down(purge=True)
    assert not cloud.dir.exists()
    if not state['database']['private']:
        assert mariadb.answers(db_url)
        assert not databases & mariadb.list_databases(db_url)
    if not state['rabbitmq']['private']:
        assert not vhosts & broker.vhosts()
        assert not logins & broker.users()
