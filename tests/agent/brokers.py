"""A real RabbitMQ for the agent tests: the configured one when it answers
and can be administered, else a private node started here (and stopped by
pid).  Each test session gets the agents' own vhost and per-board users."""
import os
import secrets
import shutil
import socket
import subprocess
import time
import urllib.parse

import pytest

DEFAULT_URL = 'rabbit://guest:guest@127.0.0.1:5672/'


def _answers(host, port):
    try:
        with socket.create_connection((host, port), timeout=2):
            return True
    except OSError:
        return False


def _free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Broker:
    def __init__(self, host, port, ctl):
        self.host, self.port, self.ctl = host, port, ctl
        self.vhost = 'nova_fpga_agents_%s' % secrets.token_hex(4)
        self.users = {}
        self.process = None

    def rabbitmqctl(self, *args):
        out = subprocess.run(self.ctl + list(args), capture_output=True,
                             text=True, timeout=60)
        if out.returncode:
            raise RuntimeError('rabbitmqctl %s: %s' % (' '.join(args),
                                                       out.stderr))
        return out.stdout

    def user(self, name):
        """A user with rights on the agents' vhost only; its URL."""
        if name not in self.users:
            password = secrets.token_hex(12)
            login = '%s-%s' % (name, self.vhost[-8:])
            self.rabbitmqctl('add_user', login, password)
            self.rabbitmqctl('set_permissions', '-p', self.vhost, login,
                             '.*', '.*', '.*')
            self.users[name] = (login, 'rabbit://%s:%s@%s:%d/%s' % (
                login, password, self.host, self.port,
                urllib.parse.quote(self.vhost, safe='')))
        return self.users[name][1]

    def setup(self):
        self.rabbitmqctl('add_vhost', self.vhost)

    def cleanup(self):
        for login, _ in self.users.values():
            subprocess.run(self.ctl + ['delete_user', login],
                           capture_output=True, timeout=60)
        subprocess.run(self.ctl + ['delete_vhost', self.vhost],
                       capture_output=True, timeout=60)


def _configured():
    url = urllib.parse.urlparse(os.environ.get('NOVA_FPGA_TEST_RABBIT_URL',
                                               DEFAULT_URL))
    host, port = url.hostname or '127.0.0.1', url.port or 5672
    if not _answers(host, port) or not shutil.which('rabbitmqctl'):
        return None
    broker = Broker(host, port, ['rabbitmqctl', '-q'])
    try:
        broker.rabbitmqctl('list_vhosts')
    except (RuntimeError, subprocess.TimeoutExpired):
        return None  # answers, but we cannot administer it
    return broker


def _private(tmp):
    server = shutil.which('rabbitmq-server') or '/usr/sbin/rabbitmq-server'
    if not os.path.exists(server):
        pytest.fail('no RabbitMQ answers and rabbitmq-server is not '
                    'installed (tools/setup-env installs it)', pytrace=False)
    port, dist = _free_port(), _free_port()
    node = 'novafpga%d@localhost' % port
    env = dict(os.environ, RABBITMQ_NODENAME=node,
               RABBITMQ_NODE_IP_ADDRESS='127.0.0.1',
               RABBITMQ_NODE_PORT=str(port), RABBITMQ_DIST_PORT=str(dist),
               RABBITMQ_MNESIA_BASE=str(tmp / 'mnesia'),
               RABBITMQ_LOG_BASE=str(tmp / 'log'),
               RABBITMQ_PID_FILE=str(tmp / 'rabbit.pid'),
               RABBITMQ_ENABLED_PLUGINS_FILE=str(tmp / 'plugins'),
               ERL_EPMD_ADDRESS='127.0.0.1')
    (tmp / 'plugins').write_text('[].\n')
    process = subprocess.Popen([server], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    broker = Broker('127.0.0.1', port, ['rabbitmqctl', '-q', '-n', node])
    broker.process = process
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail('private rabbitmq-server exited (logs in %s)'
                        % (tmp / 'log'), pytrace=False)
        if _answers('127.0.0.1', port):
            return broker
        time.sleep(0.5)
    process.kill()
    pytest.fail('private rabbitmq-server did not start', pytrace=False)


@pytest.fixture(scope='session')
def rabbitmq(tmp_path_factory):
    broker = _configured() or _private(tmp_path_factory.mktemp('rabbitmq'))
    broker.setup()
    yield broker
    broker.cleanup()
    if broker.process is not None:
        subprocess.run(broker.ctl + ['stop'], capture_output=True,
                       timeout=60)
        try:
            broker.process.wait(30)
        except subprocess.TimeoutExpired:
            broker.process.kill()
