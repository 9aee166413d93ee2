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

"""A region's ports as the contract carries them (nova_fpga.contract.network),
the agent API's version cap for them, and the driver reading them from
nova's network_info (nova_fpga.virt.ports)."""
import uuid

from neutron_lib.api.definitions import portbindings
from nova.network import model as network_model
from oslo_config import cfg
import oslo_messaging as messaging
import pytest

from nova_fpga.contract import agent_api as api
from nova_fpga.contract import network as net
from nova_fpga.contract import shell
from nova_fpga import deployment
from nova_fpga.virt import ports

IN, OUT = str(uuid.uuid4()), str(uuid.uuid4())


def vif(port_id, vlan='210', vif_type=net.VIF_TYPE):
    details = {} if vlan is None else {network_model.VIF_DETAILS_VLAN: vlan}
    return network_model.VIF(id=port_id, type=vif_type, details=details)


def test_a_region_network_round_trips_and_loses_ports():
    two = net.RegionNetwork(net.PortVlan(IN, 210), net.PortVlan(OUT, 220))
    assert net.RegionNetwork.from_dict(two.to_dict()) == two
    assert two.port_ids() == {IN, OUT}
    assert two.without(OUT) == net.RegionNetwork(net.PortVlan(IN, 210))
    assert two.without(IN).without(OUT).to_dict() == {net.INGRESS: None,
                                                      net.EGRESS: None}
    one = net.RegionNetwork.of_ports([net.PortVlan(IN, 5)])
    assert one.ingress == one.egress == net.PortVlan(IN, 5)
    # one port: gone both ways at once
    assert one.without(IN) == net.RegionNetwork()


@pytest.mark.parametrize('data', [
    {net.INGRESS: {'port_id': IN, 'vlan': 0}},
    {net.INGRESS: {'port_id': IN, 'vlan': 4095}},
    {net.INGRESS: {'port_id': IN, 'vlan': 'ten'}},
    {net.INGRESS: {'port_id': IN, 'vlan': True}},
    {net.INGRESS: {'port_id': 'not-a-uuid', 'vlan': 10}},
    {net.INGRESS: {'port_id': IN, 'vlan': 10, 'extra': 1}},
    {'sideways': None},
    [IN],
])
def test_a_malformed_region_network_is_refused(data):
    with pytest.raises(ValueError):
        net.RegionNetwork.from_dict(data)


def test_the_vif_details_keys_are_nova_and_neutron_libs():
    assert portbindings.VIF_DETAILS_VLAN == network_model.VIF_DETAILS_VLAN
    assert net.VIF_DETAILS_PHYSICAL_NETWORK == \
        network_model.VIF_DETAILS_PHYSICAL_NETWORK


def test_tenant_vlans_are_apart_from_the_reference_shells():
    low, high = deployment.BOARD_VLANS
    assert not [r.vlan for r in shell.load(shell.REFERENCE).regions
                if low <= r.vlan <= high]


def test_network_info_makes_the_region_network():
    assert ports.region_network(network_model.NetworkInfo([])) is None
    assert ports.region_network(None) is None
    one = ports.region_network(network_model.NetworkInfo([vif(IN)]))
    assert one == net.RegionNetwork(net.PortVlan(IN, 210),
                                    net.PortVlan(IN, 210))
    two = ports.region_network(network_model.NetworkInfo(
        [vif(IN, '210'), vif(OUT, '220')]))
    assert (two.ingress, two.egress) == (net.PortVlan(IN, 210),
                                         net.PortVlan(OUT, 220))


@pytest.mark.parametrize('vifs, why', [
    ([vif(IN, vif_type='ovs')], 'vif_type ovs, not fpga_region'),
    ([vif(IN, vlan=None)], 'vif_type'),
    ([vif(IN, vlan='5000')], 'VLAN 5000 is not 1-4094'),
    ([vif(str(uuid.uuid4())) for _ in range(3)], 'not 3'),
])
def test_ports_a_region_cannot_have_are_refused(vifs, why):
    with pytest.raises(ValueError, match=why):
        ports.region_network(network_model.NetworkInfo(vifs))


def test_version_cap_below_networks_refuses_networked_loads():
    transport = messaging.get_rpc_transport(cfg.CONF, url='fake:/')
    try:
        old = api.AgentAPI(transport, version_cap='1.2')
        assert not old.can_network()
        network = net.RegionNetwork.of_ports([net.PortVlan(IN, 210)])
        with pytest.raises(api.InvalidRequest,
                           match='needs agent API 1.3.*--nic none'):
            old.load({}, 'board0', 'rp0', str(uuid.uuid4()), 'img',
                     '0' * 64, b'bits', network=network)
        with pytest.raises(api.InvalidRequest, match='needs agent API 1.3'):
            old.detach_port({}, 'board0', 'rp0', str(uuid.uuid4()), IN)
        assert api.AgentAPI(transport).can_network()
    finally:
        transport.cleanup()


@pytest.mark.parametrize('version, wanted, answer', [
    ('1.3', '1.3', True), ('1.4', '1.3', True), ('1.2', '1.3', False),
    ('2.0', '1.3', False), (None, '1.3', False)])
def test_agent_versions_compare(version, wanted, answer):
    assert api.version_at_least(version, wanted) is answer
