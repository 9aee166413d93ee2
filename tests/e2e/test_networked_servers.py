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

"""A region server on two tenant networks in the demo cloud, through the
real openstack CLI: nova binds its ports to the board, the boards'
mechanism driver binds them on VLAN segments, the agent steers the `in`
network's VLAN into the region and sends what it emits out on the `out`
network's VLAN; deleting the server takes the ports and the VLANs away.
"""
import pytest

from nova_fpga.contract import network
from nova_fpga_devtools.localcloud import traffic
from tests.agent.test_dataplane import Capture
from tests.conftest import realdata_path

CAPTURE = 'dns.pcap'


@pytest.fixture
def networks(bob):
    """Two tenant networks, each with a subnet (nova boots on none
    without); no DHCP: the cloud runs no agents.
    """
    made = []
    try:
        for index, name in enumerate(('e2e-in', 'e2e-out')):
            made.append(bob.json('network', 'create', name)['id'])
            bob.run('subnet', 'create', '--network', made[-1], '--no-dhcp',
                    '--subnet-range', '10.9.%d.0/24' % index, name)
        yield made
    finally:
        bob.run('network', 'delete', *made, check=False)


def test_a_server_on_in_and_out_networks(cloud, servers, images, networks,
                                         data_links, admin, bob, report):
    vlan_in, vlan_out = (admin.json('network', 'show', net_id)[
        'provider:segmentation_id'] for net_id in networks)
    server = bob.json('server', 'create', '--flavor', servers.flavor,
                      '--image', images['e2e-loopback-rp0'],
                      '--nic', 'net-id=%s' % networks[0],
                      '--nic', 'net-id=%s' % networks[1], '--wait',
                      'e2e-networked')
    servers.ids.append(server['id'])
    board = servers.show(server['id'])['OS-EXT-SRV-ATTR:hypervisor_hostname']
    ports = {p['network_id']: p for p in (
        admin.json('port', 'show', p['ID']) for p in admin.json(
            'port', 'list', '--server', server['id']))}
    assert [ports[n]['binding_host_id'] for n in networks] == [board] * 2
    assert [ports[n]['binding_vif_type'] for n in networks] == \
        [network.VIF_TYPE] * 2
    region = {r['name']: r for r in cloud.describe_boards()[board][
        'regions']}['rp0']
    assert region['instance_uuid'] == server['id']
    assert region['network'] == network.RegionNetwork(
        network.PortVlan(ports[networks[0]]['id'], vlan_in),
        network.PortVlan(ports[networks[1]]['id'], vlan_out)).to_dict()

    link = data_links[board]
    capture = Capture(link.peer_if, vlan_out)
    sent = traffic.replay([realdata_path('pcaps', 'ndpi', CAPTURE)],
                          link.peer_if, vlan_in)
    out = capture.wait_for(sent.frames)
    assert len(out) == sent.frames
    plane = cloud.wait_for_frames(board, 'rp0', server['id'], sent.frames)
    assert plane['frames_in'] == plane['frames_out'] == sent.frames, plane

    # deleted by an admin: nova deletes the ports it made with the
    # deleting user's token, and neutron lets a member delete a compute
    # port only beside a service token, which the demo cloud's nova.conf
    # does not send ([service_user] send_service_user_token)
    admin.run('server', 'delete', '--wait', server['id'])
    servers.ids.remove(server['id'])
    assert admin.json('port', 'list', '--device-id', server['id']) == []
    region = {r['name']: r for r in cloud.describe_boards()[board][
        'regions']}['rp0']
    assert (region['instance_uuid'], region['network']) == (None, None)
    report('e2e: server on networks %s (VLAN %d in) and %s (VLAN %d out) on '
           '%s/rp0: %d frames in on VLAN %d came out on VLAN %d'
           % (networks[0], vlan_in, networks[1], vlan_out, board,
              sent.frames, vlan_in, vlan_out))
