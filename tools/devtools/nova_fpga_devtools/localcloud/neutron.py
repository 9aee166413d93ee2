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

"""Real neutron-server on 127.0.0.1 under gunicorn, minimal ML2 on MariaDB.

Nova calls neutron even for ``--nic none`` servers (server show lists the
ports' security groups, delete deallocates), so the cloud needs one, but no
agents: ML2 with flat/vlan types and no mechanism drivers, and the fake
transport (with no agents a port create would otherwise block on RabbitMQ).
Its migrations need MySQL: SQLite fails at an ALTER.
"""
import pathlib

from nova_fpga_devtools.localcloud import api_service
from nova_fpga_devtools.localcloud import catalog
from nova_fpga_devtools.localcloud import migrations
from nova_fpga_devtools.localcloud import process

#: neutron's paste pipelines as the wheel installs them.
PASTE_INI = pathlib.Path(process.BIN).parent / 'etc' / 'neutron' / \
    'api-paste.ini'


class Neutron(api_service.ApiService):
    name = 'neutron'
    process_name = 'neutron-server'
    application = 'neutron.wsgi.api:application'

    def _env(self):
        return dict(super()._env(),
                    OS_NEUTRON_CONFIG_FILES='neutron.conf;ml2_conf.ini')

    def conf(self):
        options = {
            ('DEFAULT', 'core_plugin'): 'ml2',
            ('DEFAULT', 'service_plugins'): '',
            ('DEFAULT', 'auth_strategy'): 'keystone',
            ('DEFAULT', 'transport_url'): 'fake:/',
            ('DEFAULT', 'api_paste_config'): PASTE_INI,
            ('DEFAULT', 'state_path'): self.dir,
            ('DEFAULT', 'bind_host'): self.host,
            ('DEFAULT', 'bind_port'): self.port,
            # No port ever becomes ACTIVE here: nothing to tell nova.
            ('DEFAULT', 'notify_nova_on_port_status_changes'): False,
            ('DEFAULT', 'notify_nova_on_port_data_changes'): False,
            ('database', 'connection'): self.database_url,
            ('oslo_concurrency', 'lock_path'): self.dir / 'locks',
        }
        options.update(catalog.authtoken_options(self.keystone, 'neutron'))
        return options

    def start(self, timeout=120):
        """Write config, migrate once, register user and endpoints, serve."""
        conf = process.write_conf(self.conf_dir / 'neutron.conf', self.conf())
        ml2 = process.write_conf(self.conf_dir / 'ml2_conf.ini', {
            ('ml2', 'type_drivers'): 'flat,vlan',
            ('ml2', 'tenant_network_types'): '',
            ('ml2', 'mechanism_drivers'): '',
            ('ml2', 'extension_drivers'): '',
        })
        migrations.once(self.dir, 'neutron', [
            [process.BIN / 'neutron-db-manage', '--config-file', conf,
             '--config-file', ml2, 'upgrade', 'heads']],
            self.log, env=self._env())
        catalog.ensure_service_user(self.keystone, 'neutron')
        self.keystone.set_endpoints('network', 'neutron', self.url)
        self.process.start(timeout)
        return self
