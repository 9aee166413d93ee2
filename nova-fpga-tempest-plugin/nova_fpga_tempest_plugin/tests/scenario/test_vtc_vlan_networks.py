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

"""A vTC between two tenant VLAN networks: frames enter the region on the
first port's VLAN and leave on the second's.  Runs when ``[fpga]
vlan_physical_network`` names the boards' physical network.
"""
from tempest import config
from tempest.lib.common.utils import data_utils
from tempest.lib.common.utils import test_utils
from tempest.lib import decorators

from nova_fpga_tempest_plugin.tests import base

CONF = config.CONF

#: the two networks' subnets (documentation ranges: Neutron's IPAM only,
#: no DHCP, nothing routed)
SUBNETS = {'in': '192.0.2.0/24', 'out': '198.51.100.0/24'}


class VtcVlanNetworksTest(base.FpgaBaseTest):
    """A two-port region server on two VLAN networks of the boards'
    physical network: its ports are bound to its board, to a VLAN segment
    each.
    """

    @classmethod
    def skip_checks(cls):
        super(VtcVlanNetworksTest, cls).skip_checks()
        if not CONF.service_available.neutron:
            raise cls.skipException('Neutron is not available')
        if not CONF.fpga.vlan_physical_network:
            raise cls.skipException(
                'no physical network for the boards\' VLANs ([fpga] '
                'vlan_physical_network)')

    @classmethod
    def setup_clients(cls):
        super(VtcVlanNetworksTest, cls).setup_clients()
        cls.admin_networks_client = cls.os_admin.networks_client
        cls.admin_subnets_client = cls.os_admin.subnets_client
        cls.admin_ports_client = cls.os_admin.ports_client
        cls.ports_client = cls.os_primary.ports_client

    def setUp(self):
        super(VtcVlanNetworksTest, self).setUp()
        self.take_regions_lock()

    def create_vlan_network_and_port(self, role):
        """A VLAN network of the boards' physical network in the primary
        project (provider attributes are the admin's), a subnet without
        DHCP, and the project's port on it.
        """
        project_id = self.os_primary.credentials.project_id
        name = data_utils.rand_name(prefix=CONF.resource_name_prefix,
                                    name='fpga-vtc-%s' % role)
        network = self.admin_networks_client.create_network(
            name=name, project_id=project_id,
            **{'provider:network_type': 'vlan',
               'provider:physical_network':
                   CONF.fpga.vlan_physical_network})['network']
        self.addCleanup(test_utils.call_and_ignore_notfound_exc,
                        self.admin_networks_client.delete_network,
                        network['id'])
        subnet = self.admin_subnets_client.create_subnet(
            network_id=network['id'], name=name, project_id=project_id,
            cidr=SUBNETS[role], ip_version=4, enable_dhcp=False)['subnet']
        self.addCleanup(test_utils.call_and_ignore_notfound_exc,
                        self.admin_subnets_client.delete_subnet,
                        subnet['id'])
        port = self.ports_client.create_port(network_id=network['id'],
                                             name=name)['port']
        self.addCleanup(test_utils.call_and_ignore_notfound_exc,
                        self.ports_client.delete_port, port['id'])
        return network, port

    @decorators.idempotent_id('1e28b611-6c98-4dec-95b7-100e16cbb767')
    def test_vtc_on_two_vlan_networks_binds_both_ports_to_its_board(self):
        physnet = CONF.fpga.vlan_physical_network
        ingress = self.create_vlan_network_and_port('in')
        egress = self.create_vlan_network_and_port('out')
        server = self.create_region_server(
            networks=[{'port': ingress[1]['id']},
                      {'port': egress[1]['id']}])
        self.assertEqual('ACTIVE', server['status'])
        board = self.board_of(server['id'])
        self.assertEqual(1, len(self.region_allocation(server['id'])))

        vlans = []
        for network, port in (ingress, egress):
            shown = self.admin_ports_client.show_port(port['id'])['port']
            self.assertEqual(server['id'], shown['device_id'], shown)
            self.assertEqual(board, shown['binding:host_id'], shown)
            self.assertEqual(base.REGION_VIF_TYPE,
                             shown['binding:vif_type'], shown)
            details = shown['binding:vif_details']
            self.assertEqual(physnet, details.get('physical_network'),
                             shown)
            segment = self.admin_networks_client.show_network(
                network['id'])['network']['provider:segmentation_id']
            self.assertEqual(str(segment), str(details.get('vlan')), shown)
            vlans.append(segment)
        self.assertNotEqual(vlans[0], vlans[1])
