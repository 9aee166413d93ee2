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

"""Real nova on 127.0.0.1: nova-api under gunicorn, nova-conductor,
nova-scheduler with the Zynq filter and nova-compute with the Zynq driver.

One nova.conf serves all four (a single cell, like DevStack's
single-conductor layout): the API database, cell0 and cell1 each a MariaDB
database of their own, nova's RPC on its own RabbitMQ vhost, and the boards
reached by nova-compute on the agents' vhost ([zynq] transport_url) as a
user of their own.
"""
import json
import os
import pathlib
import shutil
import sys

from nova_fpga import deployment
from nova_fpga_devtools.localcloud import catalog
from nova_fpga_devtools.localcloud import limits
from nova_fpga_devtools.localcloud import migrations
from nova_fpga_devtools.localcloud import process

#: nova's paste pipelines as the wheel installs them.
PASTE_INI = pathlib.Path(process.BIN).parent / 'etc' / 'nova' / \
    'api-paste.ini'
#: The host name of the one nova-compute that proxies every board.
COMPUTE_HOST = 'zynq-proxy'
#: The daemons started with their console scripts, in start order.
DAEMONS = ('nova-conductor', 'nova-scheduler', 'nova-compute')


class Nova:
    @staticmethod
    def conf_file_in(state_dir):
        """The cloud's nova.conf (nova-compute's, the boards' proxy)."""
        return pathlib.Path(state_dir) / 'nova' / 'etc' / 'nova.conf'

    def __init__(self, keystone, state_dir, databases, transport_url,
                 boards, agents_transport_url, port, host='127.0.0.1',
                 die_with_parent=True, agents_bus=None,
                 instance_name_template=None, key_manager=None):
        """databases: {'api': url, 'cell0': url, 'cell1': url};
        agents_bus: {'vhost_per_board': bool, 'tls': deployment.Tls or
        None} (None: deployment.nova's defaults); key_manager: castellan's
        options, where the driver and nova read signers' certificates.
        """
        self.key_manager = dict(key_manager or {})
        self.agents_bus = agents_bus
        #: the libvirt domains' names (the VM host's: named after the cloud)
        self.instance_name_template = instance_name_template
        self.keystone = keystone
        self.dir = pathlib.Path(state_dir) / 'nova'
        self.conf_dir = self.dir / 'etc'
        self.conf_file = self.conf_file_in(state_dir)
        self.databases = databases
        self.transport_url = transport_url
        self.boards = list(boards)
        self.agents_transport_url = agents_transport_url
        self.host, self.port = host, port
        self.api = process.gunicorn(
            'nova-api', 'nova.wsgi.osapi_compute:application', self.dir,
            port, env=self._env(), threads=4, host=host,
            die_with_parent=die_with_parent)
        self.daemons = {name: process.Process(
            name, [process.BIN / name, '--config-file', self.conf_file],
            self.dir, env=self._env(), die_with_parent=die_with_parent)
            for name in DAEMONS}
        self.log = self.dir / 'nova-manage.log'

    @property
    def url(self):
        return 'http://%s:%d' % (self.host, self.port)

    def processes(self):
        """{name: Process} in start order."""
        return dict(self.daemons, **{'nova-api': self.api})

    def _env(self):
        return dict(os.environ, OS_NOVA_CONFIG_DIR=str(self.conf_dir))

    def conf(self):
        options = {
            ('DEFAULT', 'transport_url'): self.transport_url,
            ('DEFAULT', 'host'): COMPUTE_HOST,
            ('DEFAULT', 'my_ip'): self.host,
            ('DEFAULT', 'state_path'): self.dir,
            ('DEFAULT', 'instances_path'): self.dir / 'instances',
            ('api', 'auth_strategy'): 'keystone',
            ('api_database', 'connection'): self.databases['api'],
            ('database', 'connection'): self.databases['cell1'],
            ('wsgi', 'api_paste_config'): self.conf_dir / 'api-paste.ini',
            ('oslo_concurrency', 'lock_path'): self.dir / 'locks',
            # Two cores for the whole cloud: one worker each.
            ('conductor', 'workers'): 1,
            ('scheduler', 'workers'): 1,
            ('vnc', 'enabled'): False,
            # A board whose agent dies shows within seconds, not minutes:
            # its servers' power state (NOSTATE) and, through the node's
            # stats, the scheduler's filter (nova's defaults: 600 s, 60 s).
            ('DEFAULT', 'sync_power_state_interval'): 5,
            ('DEFAULT', 'update_resources_interval'): 5,
            # an undrained board's regions are given out again once
            # nova-compute re-reads its providers' traits (nova's default:
            # every 300 s)
            ('compute', 'resource_provider_association_refresh'): 10,
        }
        if self.instance_name_template:
            options[('DEFAULT', 'instance_name_template')] = \
                self.instance_name_template
        # what every nova-fpga deployment sets (the DevStack plugin too)
        bus = self.agents_bus or {}
        options.update(process.options(deployment.nova(
            self.boards, self.agents_transport_url,
            self.conf_dir / 'policy.d', **bus)))
        options.update(catalog.authtoken_options(self.keystone, 'nova'))
        options.update(catalog.auth_options(self.keystone, 'placement',
                                            'nova'))
        options.update(catalog.auth_options(self.keystone, 'neutron', 'nova'))
        # nova's service token beside the user's: neutron lets a member
        # delete a VM's port (device_owner compute:*) only with it
        options.update(catalog.auth_options(self.keystone, 'service_user',
                                            'nova'))
        options[('service_user', 'send_service_user_token')] = True
        # quotas: keystone's unified limits (localcloud.limits)
        options.update(limits.nova_options(self.keystone))
        options.update(self.key_manager)
        return options

    def configure(self):
        """Write nova.conf, migrate once, register user and endpoints."""
        (self.dir / 'instances').mkdir(parents=True, exist_ok=True)
        self.conf_dir.mkdir(parents=True, exist_ok=True)
        shutil.copy(PASTE_INI, self.conf_dir / 'api-paste.ini')
        (self.conf_dir / 'policy.d').mkdir(exist_ok=True)
        shutil.copy(deployment.NOVA_POLICY,
                    self.conf_dir / 'policy.d' / deployment.NOVA_POLICY.name)
        conf = self._write_conf()
        conf_args = ['--config-file', str(conf)]
        commands = [
            conf_args + ['api_db', 'sync'],
            conf_args + ['cell_v2', 'map_cell0', '--database_connection',
                         self.databases['cell0']],
            conf_args + ['cell_v2', 'create_cell', '--name', 'cell1'],
            conf_args + ['db', 'sync']]
        migrations.once(
            self.dir,
            'nova-manage',
            [
                [
                    sys.executable,
                    '-m',
                    'nova_fpga_devtools.localcloud.manage_commands',
                    'nova-manage',
                    json.dumps(commands),
                ]
            ],
            self.log,
            env=self._env(),
        )
        catalog.ensure_service_user(self.keystone, 'nova')
        self.keystone.set_endpoints('compute', 'nova', self.url + '/v2.1')
        limits.provision(self.keystone)

    def _write_conf(self):
        return process.write_conf(self.conf_file, self.conf())

    def discover_hosts(self):
        """Map the compute nodes of cell1 (the boards) for the scheduler."""
        process.run('nova-manage', [
            process.BIN / 'nova-manage', '--config-file', self.conf_file,
            'cell_v2', 'discover_hosts'], self.log, env=self._env())
