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

"""Real neutron on 127.0.0.1: neutron-server (the API under gunicorn) and
neutron-rpc-server (its agents' RPC: under WSGI the API process serves
none) on MariaDB and the cloud's RabbitMQ, and, on the VM host, the
macvtap L2 agent.

ML2 with the flat and VLAN type drivers; tenant networks are VLANs of
PHYSICAL_NETWORK (with a VM host, the VM host's trunk and the boards' data
links are cabled to the emulated top-of-rack switch, localcloud.tor, whose
board ports the switch driver demo_tor configures), bound by the mechanism
drivers in MECHANISM_DRIVERS.  Port status changes reach nova (a VM's
network-vif-plugged event).  Migrations need MySQL: SQLite fails at an
ALTER.
"""
import pathlib
import sys

from nova_fpga import deployment
from nova_fpga_devtools.localcloud import api_service
from nova_fpga_devtools.localcloud import catalog
from nova_fpga_devtools.localcloud import migrations
from nova_fpga_devtools.localcloud import process

#: neutron's paste pipelines as the wheel installs them.
PASTE_INI = pathlib.Path(process.BIN).parent / 'etc' / 'neutron' / \
    'api-paste.ini'
#: The physical network of the tenant VLANs (the boards' and the VM host's
#: data links), and its VLAN range: the first 20 of the deployment's (the
#: emulated switch cables the VM host with a link per VLAN)
PHYSICAL_NETWORK = deployment.BOARD_PHYSNET
VLAN_RANGE = (deployment.BOARD_VLANS[0], deployment.BOARD_VLANS[0] + 19)
#: ML2's mechanism drivers, in binding order: the boards' driver binds ports
#: whose host is a board, macvtap the VM host's ports (its agent)
MECHANISM_DRIVERS = [deployment.MECHANISM_DRIVER, 'macvtap']
#: neutron's privsep contexts (the agent runs as root: their helper without
#: sudo)
PRIVSEP_SECTIONS = ('privsep', 'privsep_dhcp_release', 'privsep_ovs_vsctl',
                    'privsep_namespace', 'privsep_conntrack', 'privsep_link')


#: The switch driver of the emulated top-of-rack switch (localcloud.tor_switch)
SWITCH_DRIVER = 'demo_tor'


def ml2_options(boards, switch_dir=None):
    """ml2_conf.ini of neutron-server and neutron-rpc-server: the
    deployment's ML2 options for the boards, with the VM host's driver;
    with switch_dir (the emulated switch's directory, the boards cabled to
    it), the switch driver that allows each board's VLANs on its port.
    """
    options = process.options(deployment.neutron_ml2(
        boards, physnet=PHYSICAL_NETWORK, vlans=VLAN_RANGE,
        switch_driver=SWITCH_DRIVER if switch_dir else None))
    if switch_dir:
        options[('demo_tor', 'directory')] = switch_dir
    options.update({
        ('ml2', 'mechanism_drivers'): ','.join(MECHANISM_DRIVERS),
        ('ml2', 'extension_drivers'): '',
        ('ml2_type_flat', 'flat_networks'): PHYSICAL_NETWORK,
    })
    return options


class Neutron(api_service.ApiService):
    name = 'neutron'
    process_name = 'neutron-server'
    application = 'neutron.wsgi.api:application'

    def __init__(self, keystone, state_dir, database_url, port,
                 transport_url, boards=(), host='127.0.0.1',
                 die_with_parent=True, switch_dir=None):
        super().__init__(keystone, state_dir, database_url, port, host=host,
                         die_with_parent=die_with_parent)
        self.transport_url = transport_url
        #: the boards the boards' mechanism driver binds ports to
        self.boards = tuple(boards)
        #: the emulated switch's directory, when the boards are cabled to it
        self.switch_dir = switch_dir
        self.rpc_server = process.Process(
            'neutron-rpc-server', [
                process.BIN / 'neutron-rpc-server',
                '--config-file', self.conf_dir / 'neutron.conf',
                '--config-file', self.conf_dir / 'ml2_conf.ini'],
            self.dir, env=self._env(), die_with_parent=die_with_parent)

    def _env(self):
        return dict(super()._env(),
                    OS_NEUTRON_CONFIG_FILES='neutron.conf;ml2_conf.ini')

    def conf(self):
        options = {
            ('DEFAULT', 'core_plugin'): 'ml2',
            ('DEFAULT', 'service_plugins'): '',
            ('DEFAULT', 'auth_strategy'): 'keystone',
            ('DEFAULT', 'transport_url'): self.transport_url,
            ('DEFAULT', 'api_paste_config'): PASTE_INI,
            ('DEFAULT', 'state_path'): self.dir,
            ('DEFAULT', 'bind_host'): self.host,
            ('DEFAULT', 'bind_port'): self.port,
            # a VM's port going ACTIVE is nova's network-vif-plugged
            ('DEFAULT', 'notify_nova_on_port_status_changes'): True,
            ('DEFAULT', 'notify_nova_on_port_data_changes'): True,
            ('DEFAULT', 'rpc_workers'): 1,
            ('DEFAULT', 'rpc_state_report_workers'): 0,
            ('database', 'connection'): self.database_url,
            ('oslo_concurrency', 'lock_path'): self.dir / 'locks',
        }
        options.update(catalog.authtoken_options(self.keystone, 'neutron'))
        options.update(catalog.auth_options(self.keystone, 'nova',
                                            'neutron'))
        return options

    def processes(self):
        """{name: Process} in start order (the API first: start() sets
        up the configuration and database both use).
        """
        return {self.process_name: self.process,
                'neutron-rpc-server': self.rpc_server}

    def start(self, timeout=120):
        """Write config, migrate once, register user and endpoints, serve."""
        conf = process.write_conf(self.conf_dir / 'neutron.conf', self.conf())
        ml2 = process.write_conf(self.conf_dir / 'ml2_conf.ini',
                                 ml2_options(self.boards, self.switch_dir))
        migrations.once(self.dir, 'neutron', [
            [process.BIN / 'neutron-db-manage', '--config-file', conf,
             '--config-file', ml2, 'upgrade', 'heads']],
            self.log, env=self._env())
        catalog.ensure_service_user(self.keystone, 'neutron')
        self.keystone.set_endpoints('network', 'neutron', self.url)
        self.process.start(timeout)
        return self


class MacvtapAgent:
    """neutron-macvtap-agent of the VM host: binds its ports on
    PHYSICAL_NETWORK, whose frames it reaches through interface (the
    host's trunk to the switch).  host is nova-compute's host name (the
    ports' binding host).
    """

    def __init__(self, state_dir, host, interface, transport_url,
                 die_with_parent=True):
        self.dir = pathlib.Path(state_dir) / 'neutron'
        self.conf_file = self.dir / 'etc' / 'macvtap_agent.ini'
        self.host = host
        self.interface = interface
        self.transport_url = transport_url
        # neutron-macvtap-agent, on the eventlet backend (macvtap_agent)
        self.process = process.Process(
            'neutron-macvtap-agent', [
                sys.executable, '-m',
                'nova_fpga_devtools.localcloud.macvtap_agent',
                '--config-file', self.conf_file],
            self.dir, die_with_parent=die_with_parent)

    def conf(self):
        helper = '%s --config-file %s' % (process.BIN / 'privsep-helper',
                                          self.conf_file)
        options = {(section, 'helper_command'): helper
                   for section in PRIVSEP_SECTIONS}
        options.update({
            ('DEFAULT', 'host'): self.host,
            ('DEFAULT', 'transport_url'): self.transport_url,
            ('DEFAULT', 'state_path'): self.dir,
            ('DEFAULT', 'debug'): True,
            ('agent', 'polling_interval'): 1,
            # the agent runs as root: no sudo, privsep's helper directly
            ('agent', 'root_helper'): '',
            ('macvtap', 'physical_interface_mappings'): '%s:%s' % (
                PHYSICAL_NETWORK, self.interface),
            ('securitygroup', 'firewall_driver'): 'noop',
            ('securitygroup', 'enable_security_group'): False,
            ('oslo_concurrency', 'lock_path'): self.dir / 'locks',
        })
        return options

    def start(self):
        process.write_conf(self.conf_file, self.conf())
        self.process.start()
        return self
