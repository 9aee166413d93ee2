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

"""Real Barbican (barbican-api from PyPI) on 127.0.0.1 under gunicorn: the
key manager in which tenants keep the certificates their bitstream images
are signed with, read by Glance and nova through castellan.

Its secrets are kept by the store_crypto plugin with simple_crypto (a key
encryption key in barbican.conf, made at the first start), its database
on SQLite in state_dir/barbican (its tables made at start from barbican's
models, db_auto_create: barbican's alembic migrations do not run on
SQLite), the
catalog's 'key-manager' endpoint points here, tokens are checked against
the local keystone as user barbican.  barbican-api's WSGI application is
its paste pipeline (the wheel's barbican-api-paste.ini: authtoken, then
the API) with this state directory's files (barbican_wsgi).

Barbican reads barbican.conf only where oslo.config looks by default
(~/.barbican/, ~/, /etc/barbican/, /etc/): each of its plugin modules
parses the configuration again at import, with no file named.  So the
file is state_dir/barbican/.barbican/barbican.conf and barbican-api runs
with HOME=state_dir/barbican.
"""
import base64
import os
import pathlib
import shutil
import sys

from nova_fpga_devtools.localcloud import api_service
from nova_fpga_devtools.localcloud import catalog
from nova_fpga_devtools.localcloud import process

#: the paste pipeline the barbican wheel installs
PASTE_INI = pathlib.Path(sys.prefix) / 'etc' / 'barbican' / \
    'barbican-api-paste.ini'


class Barbican(api_service.ApiService):
    name = 'barbican'
    process_name = 'barbican-api'
    #: the service type castellan looks up in the catalog
    service_type = 'key-manager'

    application = 'nova_fpga_devtools.localcloud.barbican_wsgi:application'

    def __init__(self, keystone, state_dir, port, **kwargs):
        super().__init__(keystone, state_dir, None, port, **kwargs)
        self.conf_dir = self.dir / '.barbican'
        self.paste_ini = self.conf_dir / 'barbican-api-paste.ini'

    def _env(self):
        return dict(os.environ, HOME=str(self.dir),
                    NOVA_FPGA_BARBICAN_CONF_DIR=str(self.dir / '.barbican'))

    def kek(self):
        """The simple_crypto plugin's key encryption key: 32 random
        bytes, base64, made once and kept in the state directory.
        """
        path = self.dir / 'kek'
        if not path.exists():
            self.dir.mkdir(parents=True, exist_ok=True)
            path.write_text(base64.b64encode(os.urandom(32)).decode())
            path.chmod(0o600)
        return path.read_text().strip()

    def conf(self):
        options = {
            ('DEFAULT', 'sql_connection'):
                'sqlite:///%s' % (self.dir / 'barbican.sqlite'),
            ('DEFAULT', 'db_auto_create'): True,
            ('DEFAULT', 'host_href'): self.url,
            ('secretstore', 'enabled_secretstore_plugins'): 'store_crypto',
            ('crypto', 'enabled_crypto_plugins'): 'simple_crypto',
            ('simple_crypto_plugin', 'kek'): self.kek(),
            ('oslo_concurrency', 'lock_path'): self.dir / 'locks',
        }
        options.update(catalog.authtoken_options(self.keystone, 'barbican'))
        return options

    def start(self, timeout=60):
        """Write config, register user and endpoints, serve."""
        process.write_conf(self.conf_dir / 'barbican.conf', self.conf())
        shutil.copyfile(PASTE_INI, self.paste_ini)
        catalog.ensure_service_user(self.keystone, 'barbican')
        self.keystone.set_endpoints(self.service_type, 'barbican', self.url)
        self.process.start(timeout)
        return self


def castellan_options(keystone):
    """What Glance and nova set to read certificates from this Barbican
    through castellan, with the request's own token: {(section, option):
    value}; none without a keystone (a service object made only to read
    its settings, as Stack.nova(None)).
    """
    if keystone is None:
        return {}
    return {('key_manager', 'backend'): 'barbican',
            ('barbican', 'auth_endpoint'): keystone.auth_url,
            ('barbican', 'barbican_endpoint_type'): 'public'}
