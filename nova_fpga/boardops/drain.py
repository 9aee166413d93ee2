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

"""A board's drained state, kept in placement.

Draining marks the board's root provider with the contract's
BOARD_DRAINED_TRAIT and reserves every region (and every board slot) at
once, so the scheduler stops placing there immediately, whatever
nova-compute has read yet.  The Zynq driver keeps the reservation while the
trait is there (nova_fpga/virt/providers.py), so a region a deleted server
leaves stays out of use, across restarts of nova-compute and of the agent:
nothing about the drain lives anywhere but placement.

Undraining removes the trait only: which regions may be given out again
(the board's agent may be silent, a region failed) is the driver's call,
made at nova-compute's first resource update after it re-reads the board's
traits ([compute] resource_provider_association_refresh).

Placement changes are guarded by the provider's generation; a write that
races nova-compute's own (409) is read again and retried.
"""
from nova_fpga.contract import placement
from nova_fpga.contract import traits

#: the first microversion that accepts reserved equal to total
MICROVERSION = '1.26'
#: the inventories a drain reserves: what a region server takes
HELD_CLASSES = (placement.REGION_RESOURCE_CLASS,
                placement.BOARD_SLOT_RESOURCE_CLASS)
RETRIES = 5


class PlacementError(Exception):
    """Placement refused or did not know what was asked."""


class _Conflict(PlacementError):
    """A provider's generation moved under us: read again and retry."""


class Placement:
    """The placement calls the board commands make, on a keystoneauth
    adapter for placement (openstacksdk's ``conn.placement``).
    """

    def __init__(self, adapter):
        self.adapter = adapter

    def call(self, method, url, json=None, ok=(200,)):
        response = self.adapter.request(
            url, method, json=json, microversion=MICROVERSION,
            raise_exc=False)
        if response.status_code == 409 and 409 not in ok:
            raise _Conflict(response.text)
        if response.status_code not in ok:
            raise PlacementError('placement %s %s: HTTP %d %s' % (
                method, url, response.status_code, response.text.strip()))
        return response.json() if response.content else None

    def root(self, board):
        """The board's root provider (the compute node nova-compute made)."""
        found = self.call('GET', '/resource_providers?name=%s' % board)[
            'resource_providers']
        if not found:
            raise PlacementError(
                'board %s has no resource provider in placement (not a '
                'board nova-compute reports, or not yet)' % board)
        return found[0]

    def tree(self, root):
        """Every provider of the board: its root and its regions."""
        return self.call('GET', '/resource_providers?in_tree=%s'
                         % root['uuid'])['resource_providers']

    def traits(self, rp_uuid):
        return self.call('GET', '/resource_providers/%s/traits' % rp_uuid)

    def inventories(self, rp_uuid):
        return self.call('GET', '/resource_providers/%s/inventories'
                         % rp_uuid)

    def usages(self, rp_uuid):
        return self.call('GET', '/resource_providers/%s/usages'
                         % rp_uuid)['usages']

    def is_drained(self, root):
        return traits.BOARD_DRAINED_TRAIT in self.traits(root['uuid'])[
            'traits']


def _retrying(change):
    for _attempt in range(RETRIES):
        try:
            return change()
        except _Conflict:
            continue
    raise PlacementError('placement kept changing under us (%d generation '
                         'conflicts): try again' % RETRIES)


def _set_trait(api, root, present):
    def change():
        current = api.traits(root['uuid'])
        names = set(current['traits'])
        if (traits.BOARD_DRAINED_TRAIT in names) == present:
            return False
        names ^= {traits.BOARD_DRAINED_TRAIT}
        api.call('PUT', '/resource_providers/%s/traits' % root['uuid'],
                 json={'traits': sorted(names),
                       'resource_provider_generation':
                           current['resource_provider_generation']})
        return True
    return _retrying(change)


def _reserve_all(api, rp_uuid):
    """Reserve the whole of the provider's held classes; how many units
    this reserved anew.
    """
    def change():
        current = api.inventories(rp_uuid)
        inventories = current['inventories']
        added = 0
        for name in HELD_CLASSES:
            inventory = inventories.get(name)
            if inventory and inventory['reserved'] < inventory['total']:
                added += inventory['total'] - inventory['reserved']
                inventory['reserved'] = inventory['total']
        if added:
            api.call('PUT', '/resource_providers/%s/inventories' % rp_uuid,
                     json={'inventories': inventories,
                           'resource_provider_generation':
                               current['resource_provider_generation']})
        return added
    return _retrying(change)


def drain(api, board):
    """Mark the board drained and reserve its regions; (whether it was
    drained already, units of inventory reserved now).
    """
    root = api.root(board)
    api.call('PUT', '/traits/%s' % traits.BOARD_DRAINED_TRAIT,
             ok=(201, 204))
    changed = _set_trait(api, root, True)
    reserved = sum(_reserve_all(api, rp['uuid']) for rp in api.tree(root))
    return not changed, reserved


def undrain(api, board):
    """Remove the mark; whether the board was drained."""
    return _set_trait(api, api.root(board), False)
