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

"""Which proxies are on the ring, and which boards move when one leaves:
only the leaving proxy's, and they come back to it when it returns; a
proxy keeps its nodes until the ring's owner has them, and the owner adopts
the idle servers its boards hold."""
import types

from nova import exception
from nova import objects
import pytest
from tooz import hashring

from nova_fpga.virt import ownership as own
from nova_fpga.virt import ring

BOARDS = ['board%03d' % i for i in range(200)]


def svc(host, up=True, disabled=False):
    return types.SimpleNamespace(host=host, up=up, disabled=disabled)


def is_up(service):
    return service.up


def owners(hosts):
    r = hashring.HashRing(hosts, partitions=ring.PARTITIONS)
    return {b: next(iter(r.get_nodes(b.encode()))) for b in BOARDS}


def test_members_are_the_live_enabled_proxies_and_this_one():
    services = [svc('a'), svc('b', up=False), svc('c', disabled=True),
                svc('d')]
    assert ring.members(services, is_up, 'a') == {'a', 'd'}
    # a proxy not yet in the service table is on its own ring
    assert ring.members(services, is_up, 'new') == {'a', 'd', 'new'}
    # this proxy counts itself whatever its last heartbeat says ...
    assert ring.members([svc('a', up=False), svc('d')], is_up,
                        'a') == {'a', 'd'}
    # ... and leaves the ring when an operator disables it
    assert ring.members([svc('a', disabled=True), svc('d')], is_up,
                        'a') == {'d'}


def test_a_board_group_limits_the_ring_to_its_peers():
    services = [svc('a'), svc('b'), svc('c')]
    peers = ring.check_peers('a', 'rack1', ['a', 'b'])
    assert ring.members(services, is_up, 'a', peers) == {'a', 'b'}
    assert ring.check_peers('a', None, []) is None
    with pytest.raises(exception.InvalidConfiguration):
        ring.check_peers('a', 'rack1', [])
    with pytest.raises(exception.InvalidConfiguration):
        ring.check_peers('a', 'rack1', ['b', 'c'])


def test_only_a_leaving_proxys_boards_move_and_they_come_back():
    three = owners({'a', 'b', 'c'})
    two = owners({'b', 'c'})
    moved = {b for b in BOARDS if three[b] != two[b]}
    assert moved == {b for b in BOARDS if three[b] == 'a'}
    # each proxy has a fair share (200 boards, 32 partitions per member)
    for host in 'abc':
        assert 30 < sum(1 for o in three.values() if o == host) < 110
    assert owners({'a', 'b', 'c'}) == three


def test_the_ring_gives_each_board_to_one_member():
    r = ring.BoardRing('b')
    r.set_members({'a', 'b'})
    mine = {b for b in BOARDS if r.owns(b)}
    assert mine and mine != set(BOARDS)
    assert all(r.owner(b) == ('b' if b in mine else 'a') for b in BOARDS)
    r.set_members(set())
    assert r.owner(BOARDS[0]) is None and not r.owns(BOARDS[0])


class FakeBoards:
    """boards.Boards as Ownership reads it: names, UUIDs, regions held."""

    def __init__(self, held):
        self.held = held    # {board: [instance UUIDs in its regions]}
        self.by_name = {n: types.SimpleNamespace(
            name=n, uuid='uuid-' + n, regions=lambda n=n: {
                'rp%d' % i: types.SimpleNamespace(instance_uuid=u)
                for i, u in enumerate(self.held.get(n, []))})
            for n in BOARDS[:20]}
        self.described = []

    def __iter__(self):
        return iter(self.by_name.values())

    def __getitem__(self, name):
        return self.by_name[name]

    def refresh(self, ctxt, board):
        self.described.append(board.name)


def ownership(monkeypatch, host, members, node_hosts, instances, held):
    objects.register_all()
    r = ring.BoardRing(host)
    monkeypatch.setattr(r, 'refresh', lambda ctxt: r.set_members(members))
    monkeypatch.setattr(objects.ComputeNodeList, 'get_all_by_uuids',
                        lambda ctxt, uuids: [
                            types.SimpleNamespace(uuid='uuid-' + n, host=h)
                            for n, h in node_hosts.items()])
    monkeypatch.setattr(objects.InstanceList, 'get_by_filters',
                        lambda ctxt, filters, expected_attrs: [
                            i for i in instances
                            if i.uuid in filters['uuid']])
    return own.Ownership(FakeBoards(held), r)


class FakeInstance(types.SimpleNamespace):
    saved = False

    def save(self):
        self.saved = True


def test_a_proxy_keeps_its_nodes_until_the_rings_owner_takes_them(
        monkeypatch):
    boards = BOARDS[:20]
    theirs = owners({'a', 'b'})
    # every node on a; b has just joined the ring
    o = ownership(monkeypatch, 'a', {'a', 'b'}, {n: 'a' for n in boards},
                  [], {})
    assert o.refresh(None) == boards
    # b took its share's nodes: a leaves them
    nodes = {n: theirs[n] for n in boards}
    o = ownership(monkeypatch, 'a', {'a', 'b'}, nodes, [], {})
    assert o.refresh(None) == [n for n in boards if theirs[n] == 'a']


def test_the_proxy_a_board_moves_to_adopts_its_idle_servers(monkeypatch):
    board = next(n for n in BOARDS[:20] if owners({'a', 'b'})[n] == 'b')
    idle = FakeInstance(uuid='u1', node=board, host='a', task_state=None)
    busy = FakeInstance(uuid='u2', node=board, host='a',
                        task_state='powering-off')
    elsewhere = FakeInstance(uuid='u3', node='other', host='a',
                             task_state=None)
    o = ownership(monkeypatch, 'b', {'b'}, {board: 'a'},
                  [idle, busy, elsewhere], {board: ['u1', 'u2', 'u3']})
    assert board in o.refresh(None)
    assert board in o.boards.described     # described before adopting
    assert idle.host == 'b' and idle.saved
    assert busy.host == 'a' and not busy.saved
    assert elsewhere.host == 'a' and not elsewhere.saved
    # a proxy that only keeps a board (another's by the ring) adopts none
    back = FakeInstance(uuid='u1', node=board, host='b', task_state=None)
    o = ownership(monkeypatch, 'a', {'a', 'b'}, {board: 'a'}, [back],
                  {board: ['u1']})
    assert board in o.refresh(None)
    assert back.host == 'b' and not back.saved
