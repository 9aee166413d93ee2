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

"""The cloud's RabbitMQ: the configured node when it answers and rabbitmqctl
can administer it, else a private node in state_dir/rabbitmq started from
the Debian package.

Nova and the boards' agents each get a vhost of their own (ARCHITECTURE:
the agents' bus is separate from nova's); every board has a vhost and a
user of its own on the agents' bus, with only the rights
nova_fpga.deployment.board_permissions gives.  A private node can also
listen for TLS (the agents' bus), verifying clients' certificates.
"""
import base64
import hashlib
import json
import os
import pathlib
import socket
import subprocess
import time
import urllib.parse

from nova_fpga import deployment
from nova_fpga_devtools.localcloud import packages
from nova_fpga_devtools.localcloud import process

DEFAULT_URL = 'rabbit://guest:guest@127.0.0.1:5672/'
#: The Debian package's own scripts: /usr/sbin's wrappers su to the
#: rabbitmq user, which cannot write a private node's state directory.
_LIB_BIN = pathlib.Path('/usr/lib/rabbitmq/bin')


def answers(host, port):
    try:
        with socket.create_connection((host, port), timeout=2):
            return True
    except OSError:
        return False


class Broker:
    """A RabbitMQ node administered with rabbitmqctl: vhosts, users, URLs."""

    def __init__(self, host, port, ctl, env=None, tls_port=None):
        self.host, self.port, self.ctl, self.env = host, port, ctl, env
        #: the TLS listener's port (a private node started with tls)
        self.tls_port = tls_port

    def rabbitmqctl(self, *args, check=True, stdin=None):
        try:
            out = subprocess.run(self.ctl + list(args), capture_output=True,
                                 text=True, timeout=60, env=self.env,
                                 input=stdin)
        except subprocess.TimeoutExpired:
            raise process.ServiceError('rabbitmq', 'rabbitmqctl %s took '
                                       'over 60 s' % args[0]) from None
        if check and out.returncode:
            raise process.ServiceError('rabbitmq', 'rabbitmqctl %s: %s' % (
                ' '.join(args), out.stderr.strip() or out.stdout.strip()))
        return out.stdout

    def administrable(self):
        try:
            self.rabbitmqctl('list_vhosts')
            return True
        except (process.ServiceError, OSError):
            return False

    def url(self, login, password, vhost, tls=False):
        return 'rabbit://%s:%s@%s:%d/%s' % (
            login, password, self.host, self.tls_port if tls else self.port,
            urllib.parse.quote(vhost, safe=''))

    def vhosts(self):
        return set(self.rabbitmqctl('list_vhosts', '--no-table-headers',
                                    '-q').split())

    def users(self):
        return {line.split()[0] for line in self.rabbitmqctl(
            'list_users', '--no-table-headers', '-q').splitlines()
            if line.strip()}

    def add_vhost(self, vhost, existing=None):
        """existing: vhosts() if the caller has it (each call costs ~1 s)."""
        if vhost not in (self.vhosts() if existing is None else existing):
            self.rabbitmqctl('add_vhost', vhost)

    def add_user(self, login, password, vhost, existing=None):
        """login with all rights on vhost only; its transport URL.

        existing: users() if the caller has it.
        """
        if login in (self.users() if existing is None else existing):
            self.rabbitmqctl('change_password', login, password)
        else:
            self.rabbitmqctl('add_user', login, password)
        self.rabbitmqctl('set_permissions', '-p', vhost, login,
                         '.*', '.*', '.*')
        return self.url(login, password, vhost)

    def set_permissions(self, login, vhost, permissions):
        """permissions: a nova_fpga.deployment.Permissions."""
        self.rabbitmqctl('set_permissions', '-p', vhost, login,
                         *permissions)

    def import_definitions(self, vhosts, users, permissions=()):
        """Create vhosts and users [(login, password, vhost)] with all
        rights on their vhost (None: none), and further permissions
        [(login, vhost, deployment.Permissions)] (which replace those),
        in one rabbitmqctl run (each costs about a second): existing ones
        are updated, nothing else is touched.
        """
        rights = {(login, vhost): ('.*', '.*', '.*')
                  for login, _, vhost in users if vhost}
        rights.update({(login, vhost): tuple(perms)
                       for login, vhost, perms in permissions})
        definitions = {
            'vhosts': [{'name': vhost} for vhost in vhosts],
            'users': [{'name': login,
                       'password_hash': _password_hash(password),
                       'hashing_algorithm': 'rabbit_password_hashing_sha256',
                       'tags': ''} for login, password, _ in users],
            'permissions': [{'user': login, 'vhost': vhost,
                             'configure': perms[0], 'write': perms[1],
                             'read': perms[2]}
                            for (login, vhost), perms in rights.items()],
        }
        # From stdin: /usr/sbin/rabbitmqctl runs as the rabbitmq user, which
        # may not read the caller's files.
        self.rabbitmqctl('import_definitions', stdin=json.dumps(definitions))

    def delete_user(self, login):
        self.rabbitmqctl('delete_user', login, check=False)

    def delete_vhost(self, vhost):
        self.rabbitmqctl('delete_vhost', vhost, check=False)


def _password_hash(password):
    """RabbitMQ's salted SHA-256 password hash, as definitions carry it."""
    salt = os.urandom(4)
    return base64.b64encode(
        salt + hashlib.sha256(salt + password.encode()).digest()).decode()


def configured(url=DEFAULT_URL):
    """A Broker for the node at url, or None when it does not answer or
    rabbitmqctl cannot administer it.
    """
    parsed = urllib.parse.urlparse(url)
    host, port = parsed.hostname or '127.0.0.1', parsed.port or 5672
    if not answers(host, port):
        return None
    ctl = next((path for path in ('/usr/sbin/rabbitmqctl',
                                  str(_LIB_BIN / 'rabbitmqctl'))
                if os.path.exists(path)), None)
    if ctl is None:
        return None
    broker = Broker(host, port, [ctl, '-q'])
    return broker if broker.administrable() else None


class PrivateRabbitMQ:
    """A RabbitMQ node on 127.0.0.1:port, all its state under
    state_dir/rabbitmq, with its own epmd (a daemonized epmd would outlive
    the node and escape ``down``) and its own Erlang cookie (HOME).
    """

    def __init__(self, state_dir, port, dist_port, epmd_port,
                 die_with_parent=True, tls_port=None, tls=None):
        """tls_port, tls: a TLS listener on 127.0.0.1:tls_port with the
        server's deployment.Tls (its CA, certificate and key), verifying
        every client's certificate against that CA.
        """
        self.dir = pathlib.Path(state_dir) / 'rabbitmq'
        self.port, self.dist_port, self.epmd_port = port, dist_port, epmd_port
        self.tls_port, self.tls = tls_port, tls
        self.die_with_parent = die_with_parent
        self.node = 'novafpga%d@localhost' % port
        self.log = self.dir / 'rabbitmq.log'
        self.epmd = self.server = None

    def env(self):
        return dict(
            os.environ, HOME=str(self.dir), RABBITMQ_NODENAME=self.node,
            RABBITMQ_NODE_IP_ADDRESS='127.0.0.1',
            RABBITMQ_NODE_PORT=str(self.port),
            RABBITMQ_DIST_PORT=str(self.dist_port),
            RABBITMQ_MNESIA_BASE=str(self.dir / 'mnesia'),
            RABBITMQ_LOG_BASE=str(self.dir / 'log'),
            RABBITMQ_PID_FILE=str(self.dir / 'beam-pid'),
            RABBITMQ_ENABLED_PLUGINS_FILE=str(self.dir / 'enabled_plugins'),
            # Not /etc/rabbitmq's: those name the system node and its port.
            RABBITMQ_CONFIG_FILE=str(self.dir / 'rabbitmq.conf'),
            RABBITMQ_CONF_ENV_FILE=str(self.dir / 'rabbitmq-env.conf'),
            RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=(
                '-kernel inet_dist_use_interface {127,0,0,1}'),
            ERL_EPMD_ADDRESS='127.0.0.1', ERL_EPMD_PORT=str(self.epmd_port))

    @property
    def broker(self):
        return Broker('127.0.0.1', self.port,
                      [str(_LIB_BIN / 'rabbitmqctl'), '-q', '-n', self.node],
                      env=self.env(), tls_port=self.tls_port)

    def start(self, timeout=120):
        began = time.monotonic()
        self.dir.mkdir(parents=True, exist_ok=True)
        packages.ensure('rabbitmq', 'rabbitmq-server', 'rabbitmq-server',
                        self.log)
        epmd = packages.ensure('rabbitmq', 'epmd', 'erlang-base', self.log)
        (self.dir / 'enabled_plugins').write_text('[].\n')
        (self.dir / 'rabbitmq-env.conf').write_text('')
        (self.dir / 'rabbitmq.conf').write_text(
            'listeners.tcp.local = 127.0.0.1:%d\n' % self.port
            + self.tls_conf())
        self.epmd = process.Process(
            'epmd', [epmd, '-port', self.epmd_port, '-address', '127.0.0.1'],
            self.dir, env=self.env(), die_with_parent=self.die_with_parent)
        if process.pid_file_members(self.epmd.pid_file):
            self.epmd = None  # a resumed node's epmd outlived it
        else:
            self.epmd.start()
        self.server = process.Process(
            'rabbitmq', [_LIB_BIN / 'rabbitmq-server'], self.dir,
            env=self.env(), die_with_parent=self.die_with_parent)
        self.server.start()
        broker = self.broker
        while not (answers('127.0.0.1', self.port) and broker.administrable()):
            if not self.server.running() or \
                    time.monotonic() - began > timeout:
                self.stop()
                raise process.ServiceError(
                    'rabbitmq', 'node %s did not start (logs in %s)'
                    % (self.node, self.dir / 'log'), self.server.log)
            time.sleep(0.5)
        return self

    def tls_conf(self):
        """rabbitmq.conf's TLS listener on 127.0.0.1 (the deployment's)."""
        if self.tls is None:
            return ''
        return deployment.rabbitmq_tls('127.0.0.1:%d' % self.tls_port,
                                       self.tls)

    def stop(self):
        stopped = [proc.stop() for proc in (self.server, self.epmd) if proc]
        return any(stopped)
