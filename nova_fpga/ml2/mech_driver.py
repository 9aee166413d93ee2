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

"""ML2 mechanism driver binding ports to Zynq boards on VLAN segments.

A region server's ports are bound as Ironic's nodes' are: nova names the
board as the binding host (the Zynq driver's network_binding_host_id), this
driver binds a VLAN segment of the physical network the board is cabled to
and puts the segment's VLAN in the vif_details, where nova's driver reads
it and gives it to the board's agent.  Ports of any other host, vnic_type
or segment are refused (not bound) so other mechanism drivers can take
them.  Who may bind a port to a board is Neutron's policy: setting
binding:host_id, and choosing a network's segmentation ID, are for admins
(nova binds with its service credentials); a tenant's network gets its
VLAN from [ml2_type_vlan] network_vlan_ranges.

How Neutron knows boards: from configuration ([ml2_zynq] boards, a
board -> physical network mapping like an L2 agent's bridge_mappings,
written from the same list as nova-compute's [zynq] boards by
nova_fpga.deployment).  networking-baremetal learns its nodes' physical
networks from agents that ironic-neutron-agent reports per node; boards
have no such agent in Neutron and a board's cabling changes when an
operator re-cables it, which is a configuration change anyway.

A top-of-rack switch driver (switch.py) is told when a board gains its
first port on a VLAN and loses its last.
"""
from neutron_lib.api.definitions import portbindings
from neutron_lib import constants as n_const
from neutron_lib.plugins import directory
from neutron_lib.plugins.ml2 import api
from oslo_config import cfg
from oslo_log import log as logging

from nova_fpga.contract import network as net
from nova_fpga.ml2 import conf as ml2_conf
from nova_fpga.ml2 import switch

LOG = logging.getLogger(__name__)

ml2_conf.register_opts(cfg.CONF)


class ZynqBoardMechanismDriver(api.MechanismDriver):
    """Binds ports whose binding host is a board to a VLAN segment of the
    board's physical network.
    """

    #: what nova asks for a plain ``--nic net-id=...``
    supported_vnic_types = (portbindings.VNIC_NORMAL,)

    def initialize(self):
        self.boards = dict(cfg.CONF.ml2_zynq.boards)
        self.switch = switch.load(cfg.CONF.ml2_zynq.switch_driver)
        LOG.info('Zynq boards in ML2: %s; switch driver %s',
                 ', '.join('%s on %s' % b for b in sorted(self.boards.items()))
                 or '(none)', cfg.CONF.ml2_zynq.switch_driver)

    @property
    def connectivity(self):
        return portbindings.CONNECTIVITY_L2

    def bind_port(self, context):
        board = context.host
        physnet = self.boards.get(board)
        if physnet is None:
            return  # not a board: another driver's
        vnic_type = context.current.get(portbindings.VNIC_TYPE)
        if vnic_type not in self.supported_vnic_types:
            LOG.info('port %s on board %s: vnic_type %s is not bound to '
                     'boards', context.current['id'], board, vnic_type)
            return
        for segment in context.segments_to_bind:
            if (segment[api.NETWORK_TYPE] == n_const.TYPE_VLAN
                    and segment[api.PHYSICAL_NETWORK] == physnet):
                vlan = segment[api.SEGMENTATION_ID]
                context.set_binding(
                    segment[api.ID], net.VIF_TYPE,
                    {portbindings.VIF_DETAILS_VLAN: str(vlan),
                     net.VIF_DETAILS_PHYSICAL_NETWORK: physnet},
                    status=n_const.PORT_STATUS_ACTIVE)
                LOG.info('port %s bound to board %s on VLAN %d of %s',
                         context.current['id'], board, vlan, physnet)
                return
        LOG.warning('port %s on board %s not bound: network %s has no VLAN '
                    'segment on physical network %s (segments: %s)',
                    context.current['id'], board,
                    context.network.current['id'], physnet,
                    ', '.join('%s/%s/%s' % (s[api.NETWORK_TYPE],
                                            s[api.PHYSICAL_NETWORK],
                                            s[api.SEGMENTATION_ID])
                              for s in context.segments_to_bind) or 'none')

    def update_port_postcommit(self, context):
        now = self._board_vlan(context.vif_type, context.host,
                               context.bottom_bound_segment)
        before = self._board_vlan(context.original_vif_type,
                                  context.original_host,
                                  context.original_bottom_bound_segment)
        if before == now:
            return
        if before is not None:
            self._release(context, *before)
        if now is not None:
            self._gain(context, *now)

    def delete_port_postcommit(self, context):
        bound = self._board_vlan(context.vif_type, context.host,
                                 context.bottom_bound_segment)
        if bound is not None:
            self._release(context, *bound)

    def _board_vlan(self, vif_type, host, segment):
        """(board, VLAN) of a binding this driver made, else None."""
        if vif_type != net.VIF_TYPE or host not in self.boards or not segment:
            return None
        return host, segment[api.SEGMENTATION_ID]

    def _others_on(self, context, board, vlan):
        """Whether another port is bound to the board on the VLAN (any
        project's: the request may be a tenant's, who sees neither other
        projects' ports nor binding fields).
        """
        ports = directory.get_plugin().get_ports(
            context._plugin_context.elevated(),
            filters={portbindings.HOST_ID: [board]},
            fields=['id', portbindings.VIF_TYPE, portbindings.VIF_DETAILS])
        return any(p['id'] != context.current['id']
                   and p[portbindings.VIF_TYPE] == net.VIF_TYPE
                   and str(p[portbindings.VIF_DETAILS].get(
                       portbindings.VIF_DETAILS_VLAN)) == str(vlan)
                   for p in ports)

    def _gain(self, context, board, vlan):
        if not self._others_on(context, board, vlan):
            self._tell_switch('bind', board, vlan)

    def _release(self, context, board, vlan):
        if not self._others_on(context, board, vlan):
            self._tell_switch('unbind', board, vlan)

    def _tell_switch(self, action, board, vlan):
        try:
            getattr(self.switch, action)(board, vlan)
        except Exception:
            LOG.exception('switch driver %s: %s of VLAN %d on board %s '
                          'failed', cfg.CONF.ml2_zynq.switch_driver, action,
                          vlan, board)
