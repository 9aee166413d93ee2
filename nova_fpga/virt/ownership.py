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

"""The boards this proxy manages now, and the servers that come with them.

nova moves a rebalanced node by itself (its resource tracker sets the
compute node's host to the proxy that reports it, for a driver with
``rebalances_nodes``), but not the servers on it: nova-api sends their
actions to ``instance.host``, which would stay on a dead proxy.  So the
proxy a board moves to adopts the board's servers as its agent reports them
(the regions it holds: nothing is unloaded or reloaded) by setting their
host, through nova's objects as nova-compute saves any instance.  A server
in the middle of a task is left to its current proxy and adopted at a
later refresh.

A proxy also keeps the boards whose compute node nova still has on it,
until the proxy the ring gives them to has taken that node: so a board is
never left with no proxy, as when the ring gives it to a proxy that does
not have it in its ``[zynq] boards`` (proxies with different boards and no
board groups, as before the ring).  Only the ring's boards are adopted
from, so two proxies never take a server from each other in turn.
"""
from nova import objects
from oslo_log import log as logging

from nova_fpga.virt import agents

LOG = logging.getLogger(__name__)


class Ownership:
    """This proxy's share of the configured boards (boards.Boards) by the
    ring (ring.BoardRing).
    """

    def __init__(self, boards, ring):
        self.boards = boards
        self.ring = ring
        #: names of the boards owned since the last refresh
        self.owned = set()

    def _node_hosts(self, ctxt):
        """{board name: host nova has its compute node on}."""
        uuids = {b.uuid: b.name for b in self.boards}
        return {uuids[cn.uuid]: cn.host for cn in objects.ComputeNodeList
                .get_all_by_uuids(ctxt, list(uuids))}

    def start(self, ctxt):
        """The boards this proxy manages from its start: those nova has on
        it, and those of its share nova has on none (nova-compute refuses
        to start with a node of another host, except for ironic's driver).
        The others of its share it takes at the first resource update.
        """
        self.ring.refresh(ctxt)
        hosts = self._node_hosts(ctxt)
        owned = [b.name for b in self.boards
                 if hosts.get(b.name) == self.ring.host
                 or (b.name not in hosts and self.ring.owns(b.name))]
        self.owned = set(owned)
        return owned

    def refresh(self, ctxt):
        """Rebuild the ring, adopt the servers of the boards it gives this
        proxy; returns those and the boards nova still has on this proxy
        (configuration order).
        """
        self.ring.refresh(ctxt)
        share = [b.name for b in self.boards if self.ring.owns(b.name)]
        hosts = self._node_hosts(ctxt)
        owned = [b.name for b in self.boards if b.name in share
                 or hosts.get(b.name) == self.ring.host]
        gained = set(owned) - self.owned
        lost = self.owned - set(owned)
        if gained or lost:
            LOG.info('proxy %s takes boards %s, leaves boards %s',
                     self.ring.host, ', '.join(sorted(gained)) or 'none',
                     ', '.join(sorted(lost)) or 'none')
        for name in gained:
            # what the board holds now, before its servers are adopted
            self.boards.refresh(agents.rpc_context(), self.boards[name])
        self.owned = set(owned)
        self.adopt(ctxt, share)
        return owned

    def adopt(self, ctxt, names):
        """Set this proxy as the host of the servers the boards' regions
        hold that nova still has on another proxy.
        """
        held = {region.instance_uuid: name for name in names
                for region in self.boards[name].regions().values()
                if region.instance_uuid}
        if not held:
            return
        instances = objects.InstanceList.get_by_filters(
            ctxt, {'uuid': sorted(held), 'deleted': False},
            expected_attrs=[])
        for instance in instances:
            if (instance.node != held[instance.uuid]
                    or instance.host == self.ring.host
                    or instance.task_state is not None):
                continue
            LOG.info('board %s moved here: instance %s adopted from proxy '
                     '%s', instance.node, instance.uuid, instance.host,
                     instance=instance)
            instance.host = self.ring.host
            instance.save()
