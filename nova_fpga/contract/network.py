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

"""A region's ports on tenant networks: the VLANs its traffic enters and
leaves the board's data interface by.

Boards join Neutron as Ironic's nodes do: nova names the board as the
ports' binding host, the boards' mechanism driver (nova_fpga.ml2) binds a
VLAN segment of the boards' physical network and hands the segment's VLAN
to nova in the port's vif_details, and the driver gives the agent a
RegionNetwork: frames tagged with the ingress port's VLAN enter the
region, frames it emits leave tagged with the egress port's VLAN.  One
port is both.  A region loaded without a RegionNetwork (``--nic none``)
uses the VLAN its shell manifest gives it, both ways.

Shared by the mechanism driver, the virt driver and the agent; imports
neither nova nor neutron.
"""
import dataclasses
import uuid

#: binding:vif_type of a port the boards' mechanism driver bound; the virt
#: driver takes no other
VIF_TYPE = 'fpga_region'
#: vif_details key of the segment's physical network: nova's name for it
#: (nova.network.model.VIF_DETAILS_PHYSICAL_NETWORK), which neutron-lib
#: does not define; the VLAN is neutron-lib's and nova's ``vlan``
VIF_DETAILS_PHYSICAL_NETWORK = 'physical_network'
#: the directions of a region's traffic
INGRESS = 'in'
EGRESS = 'out'
MIN_VLAN = 1
MAX_VLAN = 4094


def check_vlan(value):
    """An 802.1Q VLAN ID (1-4094) as an int; ValueError otherwise."""
    if isinstance(value, bool):
        raise ValueError('VLAN %r is not a number' % (value,))
    try:
        vlan = int(value)
    except (TypeError, ValueError):
        raise ValueError('VLAN %r is not a number' % (value,))
    if not MIN_VLAN <= vlan <= MAX_VLAN:
        raise ValueError('VLAN %d is not %d-%d' % (vlan, MIN_VLAN, MAX_VLAN))
    return vlan


def check_port_id(value):
    """A Neutron port ID (a UUID) in its canonical form; ValueError
    otherwise.
    """
    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        raise ValueError('port %r is not a UUID' % (value,))


@dataclasses.dataclass(frozen=True)
class PortVlan:
    """A Neutron port bound to the board and its segment's VLAN."""

    port_id: str
    vlan: int

    @classmethod
    def from_dict(cls, data):
        if not isinstance(data, dict) or set(data) != {'port_id', 'vlan'}:
            raise ValueError('a port is {port_id, vlan}, not %r' % (data,))
        return cls(check_port_id(data['port_id']), check_vlan(data['vlan']))


@dataclasses.dataclass(frozen=True)
class RegionNetwork:
    """The ports a region's traffic enters (ingress) and leaves (egress)
    by.  None for a direction means its port is gone: frames are not
    steered in (ingress) or not sent out (egress).
    """

    ingress: PortVlan = None
    egress: PortVlan = None

    def to_dict(self):
        return {INGRESS: dataclasses.asdict(self.ingress)
                if self.ingress else None,
                EGRESS: dataclasses.asdict(self.egress)
                if self.egress else None}

    @classmethod
    def from_dict(cls, data):
        """A RegionNetwork from its RPC or state-file form; ValueError
        when it is malformed.
        """
        if not isinstance(data, dict) or set(data) - {INGRESS, EGRESS}:
            raise ValueError('a region network is {%s, %s}, not %r'
                             % (INGRESS, EGRESS, data))
        ports = {k: PortVlan.from_dict(v) if v is not None else None
                 for k, v in data.items()}
        return cls(ports.get(INGRESS), ports.get(EGRESS))

    @classmethod
    def of_ports(cls, ports):
        """A region's network from its ports in the order the server has
        them: one port is both ways, two are ingress then egress.
        """
        if len(ports) not in (1, 2):
            raise ValueError('a region has one or two ports, not %d'
                             % len(ports))
        return cls(ports[0], ports[-1])

    def port_ids(self):
        return {p.port_id for p in (self.ingress, self.egress) if p}

    def without(self, port_id):
        """This network with the port gone."""
        return RegionNetwork(
            None if self.ingress and self.ingress.port_id == port_id
            else self.ingress,
            None if self.egress and self.egress.port_id == port_id
            else self.egress)
