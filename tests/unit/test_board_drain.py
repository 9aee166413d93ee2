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

"""nova_fpga.boardops.drain against a fake placement that answers as the
real one does to a lost generation race (409): the command reads again
and retries, and gives up with a clear error when placement keeps moving.
The real placement's side is tests/functional/test_board_drain.py.
"""
import json

import pytest

from nova_fpga.boardops import drain
from nova_fpga.contract import placement
from nova_fpga.contract import traits


class Response:
    def __init__(self, status, body=None):
        self.status_code = status
        self.content = json.dumps(body).encode() if body is not None else b''
        self.text = self.content.decode()

    def json(self):
        return json.loads(self.content)


class FakePlacement:
    """One board (root + one region); every PUT first meets `conflicts`
    generation conflicts (someone else wrote in between).
    """

    def __init__(self, conflicts=0):
        self.conflicts = conflicts
        self.generation = 1
        self.traits = {'COMPUTE_NODE'}
        self.inventory = {
            'root': {placement.BOARD_SLOT_RESOURCE_CLASS: {
                'total': 2, 'reserved': 0}},
            'rp0': {placement.REGION_RESOURCE_CLASS: {
                'total': 1, 'reserved': 0}}}
        self.calls = []

    def request(self, url, method, json=None, microversion=None,
                raise_exc=True):
        assert microversion == drain.MICROVERSION and not raise_exc
        self.calls.append((method, url))
        if method == 'PUT' and url.startswith('/traits/'):
            return Response(204)
        if method == 'PUT':
            if self.conflicts:
                self.conflicts -= 1
                self.generation += 1
                return Response(409, {'errors': [{'title': 'Conflict'}]})
            assert json['resource_provider_generation'] == self.generation
            self.generation += 1
            if url.endswith('/traits'):
                self.traits = set(json['traits'])
            else:
                self.inventory[url.split('/')[2]] = json['inventories']
            return Response(200, {})
        if url.startswith('/resource_providers?name='):
            return Response(200, {'resource_providers': [{'uuid': 'root'}]})
        if url.startswith('/resource_providers?in_tree='):
            return Response(200, {'resource_providers': [
                {'uuid': 'root'}, {'uuid': 'rp0'}]})
        rp = url.split('/')[2]
        if url.endswith('/traits'):
            return Response(200, {'traits': sorted(self.traits),
                                  'resource_provider_generation':
                                      self.generation})
        return Response(200, {'inventories': self.inventory[rp],
                              'resource_provider_generation':
                                  self.generation})


def test_drain_retries_a_lost_race_and_reserves_everything():
    fake = FakePlacement(conflicts=2)
    assert drain.drain(drain.Placement(fake), 'board0') == (False, 3)
    assert traits.BOARD_DRAINED_TRAIT in fake.traits
    assert 'COMPUTE_NODE' in fake.traits  # nova's traits kept
    assert fake.inventory['rp0'][placement.REGION_RESOURCE_CLASS][
        'reserved'] == 1
    assert fake.inventory['root'][placement.BOARD_SLOT_RESOURCE_CLASS][
        'reserved'] == 2
    assert drain.undrain(drain.Placement(fake), 'board0') is True
    assert fake.traits == {'COMPUTE_NODE'}
    # undrain leaves the reservation to nova-compute
    assert fake.inventory['rp0'][placement.REGION_RESOURCE_CLASS][
        'reserved'] == 1


def test_placement_that_keeps_moving_is_an_error():
    fake = FakePlacement(conflicts=drain.RETRIES)
    with pytest.raises(drain.PlacementError, match='generation conflicts'):
        drain.drain(drain.Placement(fake), 'board0')
    assert traits.BOARD_DRAINED_TRAIT not in fake.traits
