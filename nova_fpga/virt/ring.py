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

"""Which nova-compute proxy manages which board: a consistent hash ring.

As nova's ironic driver shares its nodes between compute services, the
ring (tooz's) is built from nova's own service table: the nova-compute
services that run this driver (they have compute nodes of its hypervisor
type), kept when the servicegroup API says they are up and an operator has
not disabled them.  A board is managed by the member the ring maps its name
to, so a dead or disabled proxy's boards go to the others and come back
when it returns; only the boards of the leaving or returning member move.

With ``[zynq] board_group`` the proxies are partitioned, like ironic's
conductor groups: the ring holds only the ``[zynq] peer_list`` hosts of the
group, each configured with that group's boards.
"""
from nova import exception
from nova import objects
from nova import servicegroup
from oslo_log import log as logging
from tooz import hashring

from nova_fpga.contract import placement

LOG = logging.getLogger(__name__)

#: partitions of the ring: nova's ironic driver's (_HASH_RING_PARTITIONS)
PARTITIONS = 2 ** 5


def members(services, is_up, host, peers=None):
    """The hosts on the ring: the services (nova Service objects) that are
    up and enabled, limited to peers when given, and this host unless its
    own service is disabled (a proxy still unknown to the service table
    takes its share from its first start, as ironic's does).
    """
    found = set()
    own_disabled = False
    for svc in services:
        if svc.host == host:
            own_disabled = svc.disabled
            continue
        if peers is not None and svc.host not in peers:
            continue
        if not svc.disabled and is_up(svc):
            found.add(svc.host.lower())
    if not own_disabled:
        found.add(host.lower())
    return found


def check_peers(host, group, peers):
    """A board group needs the list of its proxies, this one included.

    :raises nova.exception.InvalidConfiguration: as ironic's peer_list
        check, which stops nova-compute from starting.
    """
    if group is None:
        return None
    peers = set(peers)
    if not peers or host not in peers:
        raise exception.InvalidConfiguration(
            '[zynq] board_group %s: [zynq] peer_list (%s) must list every '
            'proxy of the group, this one (%s) included'
            % (group, ', '.join(sorted(peers)) or 'empty', host))
    return peers


class BoardRing:
    """The ring over the live proxies, and the boards it gives this one."""

    def __init__(self, host, group=None, peers=()):
        self.host = host
        self.group = group
        self.peers = check_peers(host, group, peers)
        self._servicegroup = servicegroup.API()
        self._ring = None
        #: the hosts of the last refresh
        self.members = set()

    def refresh(self, ctxt):
        """Rebuild the ring from nova's service table; returns its members.
        """
        services = objects.ServiceList.get_all_computes_by_hv_type(
            ctxt, placement.HYPERVISOR_TYPE)
        self.set_members(members(services, self._servicegroup.service_is_up,
                                 self.host, self.peers))
        return self.members

    def set_members(self, found):
        if found != self.members:
            LOG.info('proxy ring members: %s (were %s)',
                     ', '.join(sorted(found)) or 'none',
                     ', '.join(sorted(self.members)) or 'none')
        self.members = set(found)
        self._ring = hashring.HashRing(found, partitions=PARTITIONS)

    def owner(self, board):
        """The host that manages the board (None: no proxy is on the ring).
        """
        if not self.members:
            return None
        return next(iter(self._ring.get_nodes(board.encode('utf-8'))))

    def owns(self, board):
        return self.owner(board) == self.host.lower()
