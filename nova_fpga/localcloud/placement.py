"""Real placement on 127.0.0.1 under gunicorn, its database on MariaDB.

State in state_dir/placement; the catalog's 'placement' endpoint points
here and tokens are checked against the local keystone as user placement.
"""
import os
import pathlib

from nova_fpga.localcloud import catalog
from nova_fpga.localcloud import migrations
from nova_fpga.localcloud import process


class Placement:
    def __init__(self, keystone, state_dir, database_url, port,
                 host='127.0.0.1', die_with_parent=True):
        self.keystone = keystone
        self.dir = pathlib.Path(state_dir) / 'placement'
        self.conf_dir = self.dir / 'etc'
        self.database_url = database_url
        self.host, self.port = host, port
        self.process = process.gunicorn(
            'placement-api', 'placement.wsgi.api:application', self.dir,
            port, env=self._env(), threads=4, host=host,
            die_with_parent=die_with_parent)
        self.log = self.process.log

    @property
    def url(self):
        return 'http://%s:%d' % (self.host, self.port)

    def _env(self):
        return dict(os.environ, OS_PLACEMENT_CONFIG_DIR=str(self.conf_dir))

    def conf(self):
        options = {
            ('placement_database', 'connection'): self.database_url,
            ('api', 'auth_strategy'): 'keystone',
            ('oslo_concurrency', 'lock_path'): self.dir / 'locks',
        }
        options.update(catalog.authtoken_options(self.keystone, 'placement'))
        return options

    def start(self, timeout=60):
        """Write config, migrate once, register user and endpoints, serve."""
        conf = process.write_conf(self.conf_dir / 'placement.conf',
                                  self.conf())
        migrations.once(self.dir, 'placement', [
            [process.BIN / 'placement-manage', '--config-file', conf,
             'db', 'sync']], self.log, env=self._env())
        catalog.ensure_service_user(self.keystone, 'placement')
        self.keystone.set_endpoints('placement', 'placement', self.url)
        self.process.start(timeout)
        return self
