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

"""Ports bound to boards by a real neutron-server through the boards'
mechanism driver (fpga_board), driven by the real openstack CLI: an admin
(nova, in a cloud) binds a port to a board on a VLAN segment of the boards'
physical network with the VLAN in the vif_details; anything else is left
unbound; a tenant can neither bind a port to a board nor choose a VLAN; the
switch driver hook hears of each VLAN a board gains and loses.
"""
import pytest

from nova_fpga.contract import network
from nova_fpga import deployment
from tests.neutron.conftest import BOARDS
from tests.services import CLI

LOW, HIGH = deployment.BOARD_VLANS


@pytest.fixture(scope='module')
def admin(keystone, neutron_server):
    return CLI(keystone.openrc('admin'))


@pytest.fixture(scope='module')
def alice(keystone, neutron_server):
    return CLI(keystone.openrc('alice'))


def segment(admin, net_id):
    shown = admin.json('network', 'show', net_id)
    return (shown['provider:network_type'],
            shown['provider:physical_network'],
            shown['provider:segmentation_id'])


def test_a_port_bound_to_a_board_gets_a_vlan_segment(admin, alice):
    # a tenant's network gets a VLAN of the boards' range
    net_in = alice.json('network', 'create', 'vtc-in')['id']
    kind, physnet, vlan = segment(admin, net_in)
    assert (kind, physnet) == ('vlan', deployment.BOARD_PHYSNET)
    assert LOW <= vlan <= HIGH
    port = alice.json('port', 'create', '--network', net_in, 'vtc-in-p')
    admin.run('port', 'set', '--host', BOARDS[0], port['id'])
    bound = admin.json('port', 'show', port['id'])
    assert bound['binding_host_id'] == BOARDS[0]
    assert bound['binding_vif_type'] == network.VIF_TYPE
    details = bound['binding_vif_details']
    assert (details['vlan'], details[network.VIF_DETAILS_PHYSICAL_NETWORK]) \
        == (str(vlan), deployment.BOARD_PHYSNET)
    assert bound['status'] == 'ACTIVE'
    # its owner sees it bound (not where: binding fields are admin-only)
    assert alice.json('port', 'show', port['id'])['status'] == 'ACTIVE'


def test_ports_of_other_hosts_and_segments_are_left_unbound(admin):
    vlan_net = admin.json('network', 'create', 'plain-vlan')['id']
    other_host = admin.json('port', 'create', '--network', vlan_net,
                            '--host', 'compute1', 'not-a-board')
    assert other_host['binding_vif_type'] == 'binding_failed'
    # a flat network on the boards' physical network has no VLAN segment
    flat = admin.json('network', 'create', '--provider-network-type', 'flat',
                      '--provider-physical-network',
                      deployment.BOARD_PHYSNET, 'flat-net')['id']
    flat_port = admin.json('port', 'create', '--network', flat, '--host',
                           BOARDS[0], 'flat-port')
    assert flat_port['binding_vif_type'] == 'binding_failed'
    # a vnic_type other than normal
    direct = admin.json('port', 'create', '--network', vlan_net, '--host',
                        BOARDS[1], '--vnic-type', 'direct', 'direct-port')
    assert direct['binding_vif_type'] == 'binding_failed'


def test_a_tenant_cannot_bind_to_a_board_nor_choose_a_vlan(alice):
    net = alice.json('network', 'create', 'alice-net')['id']
    refused = alice.run('port', 'create', '--network', net, '--host',
                        BOARDS[0], 'sneaky', check=False)
    assert refused.returncode != 0
    assert 'binding:host_id' in refused.stderr, refused.stderr
    port = alice.json('port', 'create', '--network', net, 'mine')['id']
    refused = alice.run('port', 'set', '--host', BOARDS[0], port,
                        check=False)
    assert refused.returncode != 0
    assert 'binding:host_id' in refused.stderr, refused.stderr
    # another tenant's VLAN cannot be asked for
    refused = alice.run('network', 'create', '--provider-network-type',
                        'vlan', '--provider-physical-network',
                        deployment.BOARD_PHYSNET, '--provider-segment',
                        str(LOW), 'steal', check=False)
    assert refused.returncode != 0
    assert 'provider:' in refused.stderr, refused.stderr


def test_the_switch_hook_hears_of_each_vlan_a_board_gains_and_loses(
        admin, alice, neutron_server):
    net = admin.json('network', 'create', 'switched')['id']
    vlan = segment(admin, net)[2]
    gains = 'board %s gains VLAN %d' % (BOARDS[1], vlan)
    loses = 'board %s loses VLAN %d' % (BOARDS[1], vlan)

    def count(line):
        return neutron_server.log.read_text().count(line)

    first = admin.json('port', 'create', '--network', net, '--host',
                       BOARDS[1], 'first')['id']
    second = admin.json('port', 'create', '--network', net, '--host',
                        BOARDS[1], 'second')['id']
    assert (count(gains), count(loses)) == (1, 0)
    admin.run('port', 'delete', first)
    assert (count(gains), count(loses)) == (1, 0)  # second still there
    admin.run('port', 'unset', '--host', second)
    assert (count(gains), count(loses)) == (1, 1)
    # a tenant deleting its port bound to a board (nova deletes the ports
    # it made with the tenant's token)
    tenant_net = alice.json('network', 'create', 'alice-switched')['id']
    vlan = segment(admin, tenant_net)[2]
    port = alice.json('port', 'create', '--network', tenant_net,
                      'alice-bound')['id']
    admin.run('port', 'set', '--host', BOARDS[0], port)
    alice.run('port', 'delete', port)
    assert count('board %s loses VLAN %d' % (BOARDS[0], vlan)) == 1
