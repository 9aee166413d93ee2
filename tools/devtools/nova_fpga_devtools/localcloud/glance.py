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

"""Real glance-api on 127.0.0.1, authenticating against a local Keystone.

glance-api runs only as a WSGI application now; under gunicorn (no uwsgi)
glance picks native threads for its task pool, so the import flow runs in
the API process beside the requests, as in a real deployment.

Callers shape the service with data rather than subclasses: extra options
{(section, option): value} merged over the base config (None removes a base
option), extra files {name: text} written into the config directory, where
glance and oslo.policy find relative names (policy.yaml, property protection
files), the import plugins and the store backends.
"""
import os
import pathlib
import shutil
import time

from nova_fpga.contract import shell
from nova_fpga import deployment
from nova_fpga_devtools.localcloud import process

#: glance's paste pipelines as the wheel installs them.
PASTE_INI = pathlib.Path(process.BIN).parent / 'etc' / 'glance' / \
    'glance-api-paste.ini'


def _bracketed(items):
    # enabled_import_methods and image_import_plugins are bounded lists.
    return '[%s]' % ','.join(items)


class Glance:
    """glance-api under gunicorn, state in state_dir/glance."""

    def __init__(self, keystone, state_dir, extra_conf=None, extra_files=None,
                 import_plugins=('no_op',), enabled_backends=None,
                 default_backend=None, port=None, host='127.0.0.1',
                 die_with_parent=True):
        """enabled_backends maps store name to type ({'file': 'file'})."""
        self.keystone = keystone
        self.dir = pathlib.Path(state_dir) / 'glance'
        self.conf_dir = self.dir / 'etc'
        self.log = self.dir / 'glance-api.log'
        self.extra_conf = dict(extra_conf or {})
        self.extra_files = dict(extra_files or {})
        self.import_plugins = list(import_plugins)
        self.enabled_backends = dict(enabled_backends or {'file': 'file'})
        self.default_backend = default_backend or next(
            iter(self.enabled_backends))
        self.host = host
        self.port = port
        self.die_with_parent = die_with_parent
        self.process = None
        #: Seconds the last start() took, set-up commands included.
        self.startup_seconds = None

    @property
    def url(self):
        return 'http://%s:%d' % (self.host, self.port)

    def openrc(self, user='admin', project=None):
        """OS_* variables for the openstack CLI, pinned to this glance.

        Every Glance started against one keystone rewrites the catalog's
        image endpoint, so the CLI is pointed at this one explicitly.
        """
        return dict(self.keystone.openrc(user, project),
                    OS_IMAGE_ENDPOINT_OVERRIDE=self.url)

    def store_dir(self, backend):
        """Where a filesystem-type backend of that name keeps its images."""
        return self.dir / 'images' / backend

    def conf(self):
        """glance-api.conf as {(section, option): value}, extras applied."""
        ks = self.keystone
        options = {
            ('DEFAULT', 'enabled_backends'): ','.join(
                '%s:%s' % item for item in self.enabled_backends.items()),
            ('DEFAULT', 'enabled_import_methods'):
                _bracketed(['glance-direct', 'web-download']),
            ('database', 'connection'):
                'sqlite:///%s' % (self.dir / 'glance.sqlite'),
            ('paste_deploy', 'flavor'): 'keystone',
            ('paste_deploy', 'config_file'):
                self.conf_dir / 'glance-api-paste.ini',
            ('keystone_authtoken', 'www_authenticate_uri'): ks.auth_url,
            ('keystone_authtoken', 'auth_url'): ks.auth_url,
            ('keystone_authtoken', 'auth_type'): 'password',
            ('keystone_authtoken', 'username'): 'glance',
            ('keystone_authtoken', 'password'): ks.password('glance'),
            ('keystone_authtoken', 'project_name'): 'service',
            ('keystone_authtoken', 'user_domain_name'): 'Default',
            ('keystone_authtoken', 'project_domain_name'): 'Default',
            ('keystone_authtoken', 'region_name'): 'RegionOne',
            ('os_glance_staging_store', 'filesystem_store_datadir'):
                self.dir / 'staging',
            ('os_glance_tasks_store', 'filesystem_store_datadir'):
                self.dir / 'tasks',
            ('glance_store', 'default_backend'): self.default_backend,
            ('image_import_opts', 'image_import_plugins'):
                _bracketed(self.import_plugins),
            # glance's defaults, written out so the file says how imports run.
            ('taskflow_executor', 'engine_mode'): 'parallel',
            ('taskflow_executor', 'max_workers'): 10,
            ('oslo_concurrency', 'lock_path'): self.dir / 'locks',
        }
        for name, kind in self.enabled_backends.items():
            if kind == 'file':
                options[(name, 'filesystem_store_datadir')] = \
                    self.store_dir(name)
        options.update(self.extra_conf)
        return {key: value for key, value in options.items()
                if value is not None}

    def _write_config(self):
        conf = self.conf()
        for key, value in conf.items():
            if key[1] == 'filesystem_store_datadir' or key == (
                    'oslo_concurrency', 'lock_path'):
                pathlib.Path(value).mkdir(parents=True, exist_ok=True)
        self.conf_dir.mkdir(parents=True, exist_ok=True)
        shutil.copy(PASTE_INI, self.conf_dir / 'glance-api-paste.ini')
        for name, text in self.extra_files.items():
            path = self.conf_dir / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        return process.write_conf(self.conf_dir / 'glance-api.conf', conf)

    def _env(self):
        return dict(os.environ, OS_GLANCE_CONFIG_DIR=str(self.conf_dir))

    def _migrate(self, conf):
        """glance-manage db_sync, once per cloud state directory.

        Migrating SQLite takes about 4 s; a fresh, migrated database is the
        same file every time, so later new glances of the cloud copy the
        first one's (kept beside keystone's state).  A restart keeps its
        images: an existing database is only migrated.
        """
        db = self.dir / 'glance.sqlite'
        template = self.keystone.dir.parent / 'glance-migrated.sqlite'
        own_db = self.conf()[('database', 'connection')] == 'sqlite:///%s' % db
        fresh = own_db and not db.exists()
        if fresh and template.exists():
            shutil.copy(template, db)
            return
        process.run('glance-manage db_sync', [
            process.BIN / 'glance-manage', '--config-file', conf, 'db_sync'],
            self.log, env=self._env())
        if fresh:
            partial = template.with_suffix('.%d' % os.getpid())
            shutil.copy(db, partial)
            os.replace(partial, template)

    def start(self, timeout=60):
        """Write config, migrate the DB, register endpoints, serve."""
        began = time.monotonic()
        self.port = self.port or process.free_port(self.host)
        self._migrate(self._write_config())
        self.keystone.set_endpoints('image', 'glance', self.url)
        self.process = process.gunicorn(
            'glance-api', 'glance.wsgi.api:application', self.dir, self.port,
            env=self._env(), threads=4, die_with_parent=self.die_with_parent,
            health_path='/healthcheck')
        self.process.start(timeout)
        self.startup_seconds = time.monotonic() - began
        return self

    def stop(self):
        return self.process.stop() if self.process else False


def bitstream_glance(keystone, state_dir, builders_project,
                     key_manager=None, **options):
    """glance-api as nova-fpga deploys it: the bitstream store beside a
    file store for VM images, the default (xc7z020 parts only; bitstream
    images reach it through the paste filter that routes them), the
    inspection import plugin
    with the reference shell, role-based property protections, bitstream
    creation for admins and the builders' project, the paste filters (the
    CLI shows refused uploads' reasons; snapshots of region servers are
    refused), and SHA-256 as Glance's data hash (the digest nova's driver
    loads by).

    key_manager: castellan's options ({(section, option): value}) for
    Glance's verification of signed images (None: castellan's defaults).
    options: as for Glance (port, die_with_parent, ...).
    """
    from glance_store_bitstream import paste
    store = pathlib.Path(state_dir) / 'glance' / 'images' / 'fpga'
    # what every nova-fpga deployment sets (the DevStack plugin too)
    conf = process.options(deployment.glance(
        store, [shell.REFERENCE], 'property-protections.conf'))
    conf[('oslo_policy', 'policy_file')] = 'policy.yaml'
    conf.update(key_manager or {})
    return Glance(
        keystone, state_dir,
        enabled_backends=dict(backend.split(':') for backend in
                              deployment.glance_backends('file:file')
                              .split(', ')),
        default_backend='file',
        import_plugins=[deployment.GLANCE_IMPORT_PLUGIN],
        extra_files={
            'property-protections.conf':
                deployment.PROPERTY_PROTECTIONS.read_text(),
            'glance-api-paste.ini':
                paste.add_to_paste(PASTE_INI.read_text()),
            'policy.yaml': deployment.glance_policy([builders_project])},
        extra_conf=conf,
        **options)
