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

"""The agents' bus trusts no board too much, on a real RabbitMQ node with a
TLS listener (a private node: the machine's configured RabbitMQ has none):
each board on its own vhost as its own user with the rights
nova_fpga.deployment.board_permissions gives, every client presenting a
certificate of the bus's CA, and agents refusing oversized messages.

The nova side is the driver's own code (nova_fpga.virt.agents and
listener, [zynq] vhost_per_board and ssl); the boards are real
nova-fpga-agent processes.
"""
import contextlib
import hashlib
import secrets
import ssl
import subprocess
import threading
import time
import uuid

import amqp
from oslo_config import cfg
import oslo_messaging as messaging
import pytest

from nova_fpga import conf as nova_conf
from nova_fpga.contract import agent_api as api
from nova_fpga import deployment
from nova_fpga.virt import agents
from nova_fpga.virt import listener
from nova_fpga_devtools.localcloud import process
from nova_fpga_devtools.localcloud import rabbitmq as localrabbit
from nova_fpga_devtools.localcloud import tls
from tests.agent.conftest import module_for
from tests.agent.processes import AgentProcess

BOARDS = ('ba', 'bb')
#: the nova-compute whose listener these tests run (its report pool's queue)
HOST = 'compute-test'


class Bus:
    """The agents' bus on a private TLS node: a vhost per board."""

    def __init__(self, node, broker, authority):
        self.node, self.broker, self.ca = node, broker, authority
        self.vhost = 'nova_fpga_agents_%s' % secrets.token_hex(3)
        self.logins = {name: ('%s-%s' % (name, self.vhost[-6:]),
                              secrets.token_hex(12))
                       for name in ('zynq-proxy',) + BOARDS}
        users = [(login, password, None)
                 for login, password in self.logins.values()]
        permissions = [(self.logins['zynq-proxy'][0], self.board_vhost(b),
                        deployment.PROXY_PERMISSIONS) for b in BOARDS]
        permissions += [(self.logins[b][0], self.board_vhost(b),
                         deployment.board_permissions(b)) for b in BOARDS]
        broker.import_definitions(
            [self.board_vhost(b) for b in BOARDS], users, permissions)

    def board_vhost(self, board):
        return deployment.board_vhost(self.vhost, board)

    def url(self, name, vhost):
        login, password = self.logins[name]
        return self.broker.url(login, password, vhost, tls=True)

    def board_url(self, board):
        return self.url(board, self.board_vhost(board))

    def agent_options(self, board, files=None, extra=None):
        files = files or self.ca.files(board)
        options = dict(((section, option), deployment.text(value))
                       for section, option, value in deployment.agent(
                           board, self.board_url(board), '/unused',
                           tls=files)
                       if section == 'oslo_messaging_rabbit')
        options[('DEFAULT', 'transport_url')] = self.board_url(board)
        options.update(extra or {})
        return options

    def nova_conf(self):
        """nova.conf's [zynq] as nova-fpga deploys it, over TLS."""
        conf = cfg.ConfigOpts()
        nova_conf.register_opts(conf)
        conf([], default_config_files=[], default_config_dirs=[])
        files = self.ca.files('nova-compute')
        for section, option, value in deployment.nova(
                BOARDS, self.url('zynq-proxy', self.vhost), '/unused',
                tls=files):
            if section == 'zynq' and option != 'boards':
                conf.set_override(option, value, group='zynq')
        conf.set_override('rpc_timeout', 30, group='zynq')
        return conf

    def connect(self, name, vhost, files=None, **ssl_options):
        """A raw AMQP connection as name over TLS (files: its
        certificate, key and CA; None for no client certificate).
        """
        login, password = self.logins[name]
        options = {'cert_reqs': ssl.CERT_REQUIRED,
                   'server_hostname': '127.0.0.1',
                   'ca_certs': str(self.ca.ca_file)}
        if files is not None:
            options.update(certfile=str(files.cert_file),
                           keyfile=str(files.key_file))
        options.update(ssl_options)
        conn = amqp.Connection('127.0.0.1:%d' % self.broker.tls_port,
                               userid=login, password=password,
                               virtual_host=vhost, ssl=options,
                               connect_timeout=10)
        conn.connect()
        return conn


@pytest.fixture(scope='module')
def bus(tmp_path_factory):
    base = tmp_path_factory.mktemp('tlsbus')
    authority = tls.Authority(base / 'ca')
    node = localrabbit.PrivateRabbitMQ(
        base, process.free_port(), process.free_port(), process.free_port(),
        tls_port=process.free_port(),
        tls=authority.issue('rabbitmq', server=True))
    try:
        broker = node.start().broker
    except process.ServiceError as exc:
        pytest.fail(str(exc), pytrace=False)
    yield Bus(node, broker, authority)
    node.stop()


@pytest.fixture
def nova_side(bus):
    """The driver's clients, one per board's vhost, over TLS."""
    clients = agents.make_client(bus.nova_conf())
    yield clients


@pytest.fixture
def board_agents(tmp_path, bus):
    started = []

    def start(board, client, options=None, timeout=60):
        agent = AgentProcess(tmp_path, board, bus.board_url(board),
                             bus.agent_options(board, extra=options))
        started.append(agent)
        agent.start(client, timeout=timeout)
        return agent
    yield start
    for agent in started:
        agent.stop()


class FakeBoard:
    def __init__(self, name):
        self.name = name
        self.reports = []
        self.heard = threading.Event()

    def take(self, report, answered):
        self.reports.append(report)
        self.heard.set()


class FakeBoards:
    def __init__(self, names):
        self.by_name = {name: FakeBoard(name) for name in names}


def refused(call):
    """The AMQP error a call raised (it must raise one)."""
    with pytest.raises(amqp.exceptions.AMQPError) as info:
        call()
    return info.value


@contextlib.contextmanager
def _listening(bus):
    """nova-compute's report listeners on every board's vhost, for the
    block: (their conf, the FakeBoards that hear the reports).
    """
    conf = bus.nova_conf()
    conf.host = HOST
    boards = FakeBoards(BOARDS)
    reports = listener.make(conf, boards)
    reports.start()
    try:
        yield conf, boards
    finally:
        reports.stop()
        reports.wait()


def test_board_isolation_and_an_agent_that_still_serves(
        bus, nova_side, board_agents, tmp_path):
    board_agents('ba', nova_side)
    board_agents('bb', nova_side)
    # the restricted agents serve describe and a load end to end
    data = module_for('rp0')
    result = nova_side.load({}, 'ba', 'rp0', str(uuid.uuid4()), 'img',
                            hashlib.sha256(data).hexdigest(), data)
    assert result['module_id'] == '0x4E460001'
    assert nova_side.describe({}, 'bb')['board'] == 'bb'
    # and publish their reports, which nova-compute's listener hears on
    # each board's own vhost
    with _listening(bus) as (conf, boards):
        for name in BOARDS:
            assert boards.by_name[name].heard.wait(30), name
            assert boards.by_name[name].reports[-1].board == name
    # a report heard on board A's vhost counts for board A only: one
    # claiming to be board B's (A could publish it) is dropped
    report = boards.by_name['bb'].reports[-1].to_dict()
    for only, heard in (('ba', False), ('bb', True)):
        quiet = FakeBoards(BOARDS)
        listener.ReportEndpoint(quiet, only=only).info(
            {}, api.REPORT_PUBLISHER % 'bb', api.REPORT_EVENT, report, {})
        assert quiet.by_name['bb'].heard.is_set() == heard

    files = bus.ca.files('ba')
    own = bus.board_vhost('ba')
    # board A's credentials on board B's vhost: no access at all, so it
    # cannot consume from or publish to B's queues, nor read nova-compute's
    # replies to B (its reply queue lives on B's vhost)
    error = refused(lambda: bus.connect('ba', bus.board_vhost('bb'), files))
    assert 'access to vhost' in str(error)
    # on its own vhost: no exchange, no queue but its own
    conn = bus.connect('ba', own, files)
    try:
        for declare in (
                lambda ch: ch.exchange_declare('evil', 'topic'),
                lambda ch: ch.exchange_declare('nova-fpga-agent.bb_fanout',
                                               'fanout'),
                lambda ch: ch.queue_declare('evil'),
                lambda ch: ch.queue_declare('nova-fpga-agent.bb')):
            assert 'ACCESS_REFUSED' in str(refused(
                lambda: declare(conn.channel())))
        # nova-compute's reply queue and report pool on A's own vhost
        proxy = bus.connect('zynq-proxy', own, bus.ca.files('nova-compute'))
        try:
            replies = [q for q in _queues(bus, own) if q.startswith('reply_')]
            pool = listener.pool_name(conf)
            assert replies and pool in _queues(bus, own)
            for queue in replies + [pool]:
                error = refused(lambda: conn.channel().basic_consume(queue))
                assert 'ACCESS_REFUSED' in str(error), queue
        finally:
            proxy.close()
        # what it may do: publish to its exchange and to the default one
        # (its replies)
        channel = conn.channel()
        channel.basic_publish(amqp.Message('{}'), exchange=api.EXCHANGE,
                              routing_key='nova_fpga_reports.info')
        channel.basic_publish(amqp.Message('{}'), exchange='',
                              routing_key='nobody')
        channel.close()
    finally:
        conn.close()
    # the agents survived all this
    assert nova_side.describe({}, 'ba')['board'] == 'ba'


def _queues(bus, vhost):
    return set(bus.broker.rabbitmqctl(
        'list_queues', '-p', vhost, 'name', '--no-table-headers').split())


def _waiting(bus, vhost):
    """{queue: (messages ready, consumers)} of a vhost."""
    found = {}
    for line in bus.broker.rabbitmqctl(
            'list_queues', '-p', vhost, 'name', 'messages_ready',
            'consumers', '--no-table-headers').splitlines():
        if line.strip():
            name, ready, consumers = line.split()
            found[name] = (int(ready), int(consumers))
    return found


def test_reports_leave_nothing_waiting_on_the_bus(
        bus, nova_side, board_agents):
    """An agent's notifier declares a queue of its own for its reports
    (the routing key's): nova-compute's listeners consume it besides their
    pool, so with reports flowing (one a second per board) no queue of a
    board's vhost holds a message no one takes.
    """
    for name in BOARDS:
        board_agents(name, nova_side)
    with _listening(bus) as (conf, boards):
        for name in BOARDS:
            board = boards.by_name[name]
            deadline = time.monotonic() + 30
            while len(board.reports) < 3:
                assert time.monotonic() < deadline, name
                time.sleep(0.2)
        notifier_queue = '%s.info' % api.REPORT_TOPIC
        for name in BOARDS:
            vhost = bus.board_vhost(name)
            deadline = time.monotonic() + 20
            while True:
                queues = _waiting(bus, vhost)
                waiting = {q: n for q, (n, _) in queues.items() if n}
                if not waiting or time.monotonic() > deadline:
                    break
                time.sleep(0.5)
            assert waiting == {}, (vhost, queues)
            # the notifier's queue and the pool, each taken by a listener
            assert queues[notifier_queue][1] >= 1, queues
            assert queues[listener.pool_name(conf)][1] >= 1, queues
            assert all(consumers for _, consumers in queues.values()), \
                queues


def test_client_certificates_are_verified(bus):
    own = bus.board_vhost('ba')
    bus.connect('ba', own, bus.ca.files('ba')).close()
    other = tls.Authority(bus.ca.dir.parent / 'other-ca')
    for files in (other.issue('ba'),                        # wrong CA
                  bus.ca.issue('ba-expired', expired=True),  # expired
                  None):                                     # none at all
        with pytest.raises((OSError, amqp.exceptions.AMQPError,
                            ssl.SSLError)):
            bus.connect('ba', own, files).close()


def test_agent_refuses_a_server_of_another_ca(bus, tmp_path):
    other = tls.Authority(tmp_path / 'other-ca')
    files = deployment.Tls(other.ca_file, *bus.ca.files('ba')[1:])
    agent = AgentProcess(tmp_path, 'ba', bus.board_url('ba'),
                         bus.agent_options('ba', files))
    try:
        agent.process = subprocess.Popen(
            [str(agent.agent), '--config-file', str(agent.conf)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while 'CERTIFICATE_VERIFY_FAILED' not in agent.log_text():
            assert time.monotonic() < deadline, agent.log_text()
            time.sleep(0.5)
    finally:
        agent.kill()
    assert 'serving topic' not in agent.log_text()


def test_oversized_message_refused_and_agent_serves_on(
        bus, nova_side, board_agents):
    agent = board_agents('ba', nova_side,
                         {('agent', 'max_bitstream_bytes'): 100000})
    limit = api.max_message_bytes(100000)
    client = nova_side.client('ba').client.prepare(server='ba', timeout=5)
    with pytest.raises(messaging.MessagingTimeout):
        client.call({}, 'describe', padding='x' * (limit + 1))
    log = agent.log_text()
    line = next((line for line in log.splitlines()
                 if 'refused an RPC message' in line), None)
    assert line is not None, log
    size = int(line.split('refused an RPC message of ')[1].split()[0])
    assert size > limit
    assert 'on board ba (topic nova-fpga-agent)' in line
    assert 'over the %d-byte limit' % limit in line
    # not parsed: the endpoint never saw it (no describe counted)
    health = nova_side.health({}, 'ba')
    assert nova_side.describe({}, 'ba')['board'] == 'ba'
    assert health['calls']['background'].get('describe', 0) == 0
    # a message within the limit still gets through and is refused by the
    # endpoint for what it says
    data = bytes(100001)
    with pytest.raises(api.InvalidRequest, match='limit'):
        nova_side.client('ba').client.prepare(server='ba').call(
            {}, 'load', region='rp0', instance_uuid=str(uuid.uuid4()),
            image_id='img', sha256=hashlib.sha256(data).hexdigest(),
            bitstream=api.encode_bitstream(data))
