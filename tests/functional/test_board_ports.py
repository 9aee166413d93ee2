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

"""Servers on tenant networks through nova's real API, scheduler and compute
with the Zynq driver, against real agents: nova binds the ports to the
board (the driver's network_binding_host_id), the agent gets their VLANs,
and nova's clean-up (delete, a failed build, a reschedule) and the driver's
periodic check leave no VLAN on a board whose port is gone.

The ports live in nova's NeutronFixture, made as the boards' mechanism
driver binds them (vif_type fpga_region, the VLAN in vif_details):
tests/neutron shows a real neutron-server binding them so.
"""
import fixtures
from nova import context as nova_context
from nova.network import model as network_model
from nova import objects
from nova.tests.functional.api import client

from nova_fpga.contract import agent_api
from nova_fpga.contract import network
from nova_fpga import deployment
from tests.functional import base


def bound_port(neutron, vlan, vif_type=network.VIF_TYPE):
    """A port on the fixture's network, bound as the boards' mechanism
    driver binds (the VLAN of its segment in vif_details).
    """
    port = neutron.create_port({'port': {
        'network_id': neutron.network_1['id']}})['port']
    stored = neutron._ports[port['id']]
    stored['binding:vif_type'] = vif_type
    stored['binding:vif_details'] = {
        'vlan': str(vlan), network.VIF_DETAILS_PHYSICAL_NETWORK:
            deployment.BOARD_PHYSNET}
    return port['id']


class RegionPortsTest(base.ZynqTestBase):

    def setUp(self):
        # the reschedule test steers the first attempt by the boards' cache
        self.flags(weight_classes=['nova.scheduler.weights.all_weighers',
                                   deployment.WEIGHER],
                   group='filter_scheduler')
        super().setUp()

    def port(self, vlan, vif_type=network.VIF_TYPE):
        return bound_port(self.neutron, vlan, vif_type)

    def boot_on(self, image, ports, expected_state='ACTIVE'):
        return self._create_server(
            image_uuid=image, flavor_id=self.fpga_flavor,
            networks=[{'port': p} for p in ports],
            expected_state=expected_state)

    def region(self, server):
        """(board, the agent's report of the server's region)."""
        board, name = self.region_of(server)
        for region in self.cloud.client.describe({}, board)['regions']:
            if region['name'] == name:
                return board, region

    def host_of(self, port_id):
        return self.neutron.show_port(port_id)['port'].get('binding:host_id')

    def test_in_and_out_ports_then_delete(self):
        port_in, port_out = self.port(210), self.port(220)
        server = self.boot_on(self.region_image('rp0'), [port_in, port_out])
        board, region = self.region(server)
        self.assertEqual(server['OS-EXT-SRV-ATTR:hypervisor_hostname'], board)
        # ports bound to the board, as ironic's to the node
        self.assertEqual([board, board],
                         [self.host_of(p) for p in (port_in, port_out)])
        self.assertEqual(network.RegionNetwork(
            network.PortVlan(port_in, 210),
            network.PortVlan(port_out, 220)).to_dict(), region['network'])

        self._delete_server(server)
        self._wait_until_deleted(server)
        self.assertEqual({}, self.loads())
        # nova unbinds ports it was given (and deletes those it made: it
        # tells them apart by its info cache, which stays empty when other
        # functional tests ran before in this process)
        self.assertEqual([None, None], [
            self.host_of(p) if p in self.neutron._ports else None
            for p in (port_in, port_out)])
        for answer in (self.cloud.client.describe({}, b)
                       for b in self.BOARDS):
            self.assertEqual([None] * 2,
                             [r['network'] for r in answer['regions']])

    def test_detaching_a_port_forgets_its_vlan(self):
        port_in, port_out = self.port(210), self.port(220)
        server = self.boot_on(self.region_image('rp0'), [port_in, port_out])
        # what nova's compute manager calls on a detach or a port's
        # network-vif-deleted event (nova finds the VIF in its info cache
        # first, which other functional tests in this process leave empty)
        instance = objects.Instance.get_by_uuid(
            nova_context.get_admin_context(), server['id'])
        self.compute.driver.detach_interface(
            nova_context.get_admin_context(), instance,
            network_model.VIF(id=port_out))
        self.assertEqual(network.RegionNetwork(
            network.PortVlan(port_in, 210)).to_dict(),
            self.region(server)[1]['network'])
        # a region's ports are given at its load: nova refuses to attach
        # one later (the driver leaves supports_attach_interface False)
        refused = self.assertRaises(
            client.OpenStackApiException, self.api.attach_interface,
            server['id'], {'interfaceAttachment': {'port_id': port_out}})
        self.assertEqual(400, refused.response.status_code)

    def test_one_port_is_in_and_out(self):
        port = self.port(230)
        server = self.boot_on(self.region_image('rp1'), [port])
        _, region = self.region(server)
        self.assertEqual(network.RegionNetwork(
            network.PortVlan(port, 230), network.PortVlan(port, 230)
        ).to_dict(), region['network'])

    def test_a_port_no_board_driver_bound_fails_the_build(self):
        port = self.port(240, vif_type='ovs')
        server = self.boot_on(self.region_image('rp0'), [port],
                              expected_state='ERROR')
        self.assertIn('vif_type ovs, not %s' % network.VIF_TYPE,
                      server['fault']['message'])
        self.assertEqual({}, self.loads())
        self.assertIsNone(self.host_of(port))

    def test_the_periodic_update_forgets_a_port_neutron_lost(self):
        port_in, port_out = self.port(210), self.port(220)
        server = self.boot_on(self.region_image('rp0'), [port_in, port_out])
        # deleted behind nova's back (no network-vif-deleted event)
        self.neutron.delete_port(port_out)
        self._run_periodics()
        _, region = self.region(server)
        self.assertEqual(network.RegionNetwork(
            network.PortVlan(port_in, 210)).to_dict(), region['network'])
        self.assertIn('port %s is no longer bound to the board' % port_out,
                      self.stdlog.logger.output)

    def test_a_board_whose_vlan_is_taken_reschedules(self):
        # board0 caches the rp1 image, so the weigher sends rp1 there first
        rp1 = self.region_image('rp1')
        first = self._create_server(
            image_uuid=rp1, flavor_id=self.fpga_flavor, networks='none',
            az='nova::board0')
        self._delete_server(first)
        self._wait_until_deleted(first)
        self._run_periodics()  # the scheduler learns what board0 caches
        # VLAN 210 enters board0's rp0
        self._create_server(
            image_uuid=self.region_image('rp0'), flavor_id=self.fpga_flavor,
            networks=[{'port': self.port(210)}], az='nova::board0')
        # its build no longer counts as board0's I/O when weighing
        self._run_periodics()
        port_in, port_out = self.port(210), self.port(250)
        server = self.boot_on(rp1, [port_in, port_out])
        self.assertIn('VLAN 210 already enters region rp0 of board board0',
                      self.stdlog.logger.output)
        board, region = self.region(server)
        self.assertEqual('board1', board)
        self.assertEqual(['board1', 'board1'],
                         [self.host_of(p) for p in (port_in, port_out)])
        self.assertEqual(210, region['network'][network.INGRESS]['vlan'])
        board0 = self.cloud.client.describe({}, 'board0')['regions']
        self.assertNotIn(server['id'], [r['instance_uuid'] for r in board0])


class OldAgentTest(base.ZynqTestBase):
    """Boards whose agents serve agent API 1.2 (before region networks)."""

    def setUp(self):
        self.useFixture(fixtures.MonkeyPatch(
            'nova_fpga.contract.agent_api.API_VERSION', '1.2'))
        super().setUp()

    def test_a_networked_server_is_refused_in_words(self):
        port = bound_port(self.neutron, 210)
        server = self._create_server(
            image_uuid=self.region_image('rp0'), flavor_id=self.fpga_flavor,
            networks=[{'port': port}], expected_state='ERROR')
        self.assertIn('runs agent API 1.2, which cannot put a region on '
                      'tenant networks (%s needed)'
                      % agent_api.NETWORK_VERSION,
                      server['fault']['message'])
        self.assertEqual({}, self.loads())
        # --nic none still works on it
        self.boot(self.region_image('rp0'))
