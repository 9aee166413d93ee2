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

"""The cloud's MariaDB: the configured server when it answers, else a
private one in state_dir/mariadb started from the Debian package.

Nova, placement and neutron need a real SQL server: several nova processes
on one SQLite file fail with "database is locked", and neutron's migrations
ALTER tables SQLite cannot.  Each service gets databases of its own, named
with the cloud's prefix so two clouds can share one server.
"""
import getpass
import pathlib
import shutil
import time
import urllib.parse

import pymysql

from nova_fpga_devtools.localcloud import packages
from nova_fpga_devtools.localcloud import process


def _connect_args(url):
    parsed = urllib.parse.urlparse(url)
    query = urllib.parse.parse_qs(parsed.query)
    args = {'user': urllib.parse.unquote(parsed.username or 'root'),
            'password': urllib.parse.unquote(parsed.password or ''),
            'connect_timeout': 3}
    if 'unix_socket' in query:
        args['unix_socket'] = query['unix_socket'][0]
    else:
        args['host'] = parsed.hostname or '127.0.0.1'
        args['port'] = parsed.port or 3306
    return args


def connect(url):
    """A pymysql connection to the server of a SQLAlchemy mysql URL."""
    return pymysql.connect(autocommit=True, **_connect_args(url))


def answers(url):
    """True when the server at url accepts our credentials."""
    try:
        connect(url).close()
        return True
    except pymysql.err.MySQLError:
        return False


def database_url(server_url, name):
    """server_url (mysql+pymysql://user:pw@host:port/) with database name."""
    parsed = urllib.parse.urlparse(server_url)
    return urllib.parse.urlunparse(parsed._replace(path='/' + name))


def create_databases(server_url, names):
    with connect(server_url) as conn, conn.cursor() as cursor:
        for name in names:
            cursor.execute('CREATE DATABASE IF NOT EXISTS `%s` '
                           'CHARACTER SET utf8mb4' % name)


def drop_databases(server_url, names):
    with connect(server_url) as conn, conn.cursor() as cursor:
        for name in names:
            cursor.execute('DROP DATABASE IF EXISTS `%s`' % name)


def list_databases(server_url):
    with connect(server_url) as conn, conn.cursor() as cursor:
        cursor.execute('SHOW DATABASES')
        return {row[0] for row in cursor.fetchall()}


class PrivateMariaDB:
    """mariadbd on 127.0.0.1:port with its data under state_dir/mariadb."""

    def __init__(self, state_dir, port, die_with_parent=True):
        self.dir = pathlib.Path(state_dir) / 'mariadb'
        self.port = port
        self.die_with_parent = die_with_parent
        self.data = self.dir / 'data'
        self.socket = self.dir / 'mysqld.sock'
        self.log = self.dir / 'mariadb.log'
        self.process = None

    @property
    def url(self):
        """Root over TCP: granted to root@127.0.0.1 at install."""
        return 'mysql+pymysql://root@127.0.0.1:%d/' % self.port

    def _install(self):
        """mariadb-install-db into a fresh data directory, then let root in
        over TCP (the install grants root@localhost, the socket, only).
        """
        if (self.data / 'mysql').is_dir():
            return False
        if self.data.exists():
            shutil.rmtree(self.data)  # a half-done install
        install = packages.ensure('mariadb', 'mariadb-install-db',
                                  'mariadb-server', self.log)
        process.run(
            'mariadb',
            [
                install,
                '--no-defaults',
                '--datadir=%s' % self.data,
                '--user=%s' % getpass.getuser(),
                '--auth-root-authentication-method=normal',
                '--skip-test-db',
            ],
            self.log,
        )
        return True

    def start(self, timeout=60):
        began = time.monotonic()
        self.dir.mkdir(parents=True, exist_ok=True)
        binary = packages.ensure('mariadb', 'mariadbd', 'mariadb-server',
                                 self.log)
        fresh = self._install()
        self.process = process.Process('mariadb', [
            binary, '--no-defaults', '--datadir=%s' % self.data,
            '--socket=%s' % self.socket, '--port=%d' % self.port,
            '--bind-address=127.0.0.1', '--user=%s' % getpass.getuser(),
            # Not *.pid: those are the cloud's own pid files (services()).
            '--pid-file=%s' % (self.dir / 'mariadbd-pid'),
            # Small: a demo's few databases, many nova connections.
            '--innodb-buffer-pool-size=64M', '--performance-schema=OFF',
            '--max-connections=500', '--skip-name-resolve'],
            self.dir, die_with_parent=self.die_with_parent)
        self.process.start()
        socket_url = 'mysql+pymysql://root@localhost/?unix_socket=%s' \
            % self.socket
        while not answers(socket_url):
            if not self.process.running():
                self.process.stop()
                raise process.ServiceError('mariadb', 'mariadbd exited',
                                           self.log)
            if time.monotonic() - began > timeout:
                self.process.stop()
                raise process.ServiceError('mariadb', 'no answer on %s within'
                                           ' %ss' % (self.socket, timeout),
                                           self.log)
            time.sleep(0.2)
        if fresh:
            with connect(socket_url) as conn, conn.cursor() as cursor:
                cursor.execute("CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'")
                cursor.execute("GRANT ALL ON *.* TO 'root'@'127.0.0.1' "
                               "WITH GRANT OPTION")
        return self

    def stop(self):
        return self.process.stop() if self.process else False
