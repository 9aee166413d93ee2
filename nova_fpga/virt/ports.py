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

"""A server's Neutron ports as its region's VLANs, and their clean-up.

nova binds a region's ports to its board (the driver's
network_binding_host_id); the boards' mechanism driver binds each to a VLAN
segment and puts the VLAN in the port's vif_details.  Nova unbinds ports
itself when a server is deleted, fails to build or is rescheduled, and the
driver's destroy unloads the region (the agent forgets its VLANs with it).
What nova may miss (a port deleted while nova-compute was down, a destroy
the board did not answer) is caught by the resource update every
periodic interval: a VLAN whose port Neutron no longer binds to the board
is forgotten.
"""
from keystoneauth1 import exceptions as ks_exc
from neutronclient.common import exceptions as neutron_exc
from nova import context as nova_context
from nova.network import model as network_model
from nova.network import neutron
from oslo_log import log as logging

from nova_fpga.contract import agent_api
from nova_fpga.contract import network as net
from nova_fpga.contract import reports
from nova_fpga.virt import agents
from nova_fpga.virt import boards as zboards

LOG = logging.getLogger(__name__)


def region_network(network_info):
    """The RegionNetwork of a server's ports (nova's network_info, in the
    order of its ``--nic`` options), None without ports.

    :raises ValueError: a port the boards' mechanism driver did not bind,
        or more than two ports; the message says which and why.
    """
    if not network_info:
        return None
    ports = []
    for vif in network_info:
        vlan = vif['details'].get(network_model.VIF_DETAILS_VLAN)
        if vif['type'] != net.VIF_TYPE or vlan is None:
            raise ValueError(
                'port %s is bound with vif_type %s, not %s: its network '
                'has no VLAN segment on the boards\' physical network, or '
                'no mechanism driver binds boards' % (vif['id'], vif['type'],
                                                      net.VIF_TYPE))
        ports.append(net.PortVlan(vif['id'], net.check_vlan(vlan)))
    if len(ports) > 2:
        raise ValueError('a region has one port (in and out) or two (in, '
                         'then out), not %d' % len(ports))
    return net.RegionNetwork.of_ports(ports)


def detach(boards, board, region, instance_uuid, port_id, ctxt):
    """Make the board forget a port of the region; keeps its answer."""
    board.take_region(reports.RegionReport.from_dict(
        boards.client.detach_port(ctxt, board.name, region, instance_uuid,
                                  port_id)))
    LOG.info('board %s region %s: port %s detached', board.name, region,
             port_id)


def forget_unbound(boards, board):
    """Detach from the board's regions each port Neutron no longer binds
    to the board (deleted, or bound elsewhere): no VLAN stays programmed
    after its port is gone.  One port list per board holding networked
    regions; a Neutron or board that does not answer is tried again at the
    next update.
    """
    held = {name: region for name, region in board.regions().items()
            if region.network and region.instance_uuid}
    if not held or not board.up:
        return
    context = nova_context.get_admin_context()
    try:
        bound = {p['id'] for p in neutron.get_client(
            context, admin=True).list_ports(
                **{'binding:host_id': board.name, 'fields': 'id'})['ports']}
    except (neutron_exc.NeutronClientException,
            ks_exc.ClientException) as exc:
        LOG.warning('board %s: cannot list its ports in Neutron (%s); its '
                    'VLANs are checked at the next update', board.name, exc)
        return
    for name, region in held.items():
        gone = net.RegionNetwork.from_dict(region.network).port_ids() - bound
        for port_id in sorted(gone):
            LOG.warning('board %s region %s: port %s is no longer bound to '
                        'the board: forgetting its VLAN', board.name, name,
                        port_id)
            try:
                detach(boards, board, name, region.instance_uuid, port_id,
                       agents.rpc_context(context))
            except (agent_api.AgentError,) + zboards.UNREACHABLE as exc:
                LOG.error('board %s region %s: detaching port %s failed: %s',
                          board.name, name, port_id,
                          zboards.agent_error_text(exc))
