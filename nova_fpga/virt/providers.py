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

"""A board's resource-provider tree: a root that offers nothing a VM could
take, and one nested provider per reconfigurable region.

The root offers ``CUSTOM_FPGA_BOARD_SLOT``, one per region, and the FPGA
flavor asks for one beside its ``CUSTOM_FPGA_REGION``: nova's scheduler
keeps only allocation candidates that touch the compute node's own
provider (it indexes them by the node's UUID), so a request that takes
nothing from the root never lands.  No ordinary flavor asks for a slot.

Regions carry ``CUSTOM_FPGA_REGION: 1`` (a class of its own, so it lives
beside Cyborg's whole-device ``FPGA``) and the traits the shared naming
function gives the region, which is what an image's ``trait:…=required``
properties select.  A region that cannot take a server (board silent,
region failed) keeps its inventory, reserved: deleting it would fail while
it holds an allocation, and the server on it is not lost.

A drained board (the operator's trait on its root provider, set by
nova-fpga-manage board drain) has every region reserved, held ones too, so
a region its server leaves stays out of use; placement accepts a reservation
beside an allocation, and the servers keep running and can be deleted.  The
trait is placement's, not ours: nova-compute reads it into the tree it
passes here (at start and every [compute]
resource_provider_association_refresh seconds) and the resource tracker
keeps a root's traits the driver does not own, so this module only reads it.
"""
from nova_fpga.contract import placement
from nova_fpga.contract import traits


def _inventory(resource_class, total, reserved):
    return {resource_class: {
        'total': total, 'reserved': reserved, 'min_unit': 1, 'max_unit': 1,
        'step_size': 1, 'allocation_ratio': 1.0}}


def region_inventory(usable):
    return _inventory(placement.REGION_RESOURCE_CLASS, 1, 0 if usable else 1)


def update(provider_tree, board):
    """Bring the tree under the board's node provider up to date."""
    board.drained = (traits.BOARD_DRAINED_TRAIT
                     in provider_tree.data(board.name).traits)
    regions = board.manifest.regions
    unusable = sum(1 for r in regions if not board.usable(r.name))
    provider_tree.update_inventory(board.name, _inventory(
        placement.BOARD_SLOT_RESOURCE_CLASS, len(regions), unusable))
    for region in regions:
        name = board.provider_name(region.name)
        if not provider_tree.exists(name):
            provider_tree.new_child(name, board.name,
                                    uuid=board.region_uuids[region.name])
        provider_tree.update_inventory(
            name, region_inventory(board.usable(region.name)))
        provider_tree.update_traits(name,
                                    board.manifest.region_traits(region))
