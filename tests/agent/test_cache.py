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

"""The board's bitstream cache: digests as names, checked on read, least
recently used out first, kept across agent restarts; and loads by digest
over RPC (API 1.1) with the version cap honoured."""
import hashlib
import uuid

import pytest

from nova_fpga.contract import agent_api as api
from nova_fpga.contract import states
from nova_fpga_agent import cache as bc
from tests.agent.conftest import module_for


def digest(data):
    return hashlib.sha256(data).hexdigest()


def test_put_get_and_reopen(tmp_path):
    data = module_for('rp0')
    cache = bc.BitstreamCache(tmp_path, 10 * len(data))
    cache.put(digest(data), 'img-1', data)
    assert cache.get(digest(data)) == data
    reopened = bc.BitstreamCache(tmp_path, 10 * len(data))
    assert reopened.get(digest(data)) == data
    assert reopened.entries() == [{'sha256': digest(data),
                                   'image_id': 'img-1', 'bytes': len(data)}]


def test_least_recently_used_goes_first(tmp_path):
    blobs = [module_for('rp0', seed=s) for s in range(3)]
    cache = bc.BitstreamCache(tmp_path, 2 * len(blobs[0]))
    cache.put(digest(blobs[0]), 'a', blobs[0])
    cache.put(digest(blobs[1]), 'b', blobs[1])
    assert cache.get(digest(blobs[0])) == blobs[0]   # a used after b
    cache.put(digest(blobs[2]), 'c', blobs[2])
    assert [e['image_id'] for e in cache.entries()] == ['c', 'a']
    assert cache.get(digest(blobs[1])) is None
    assert not (tmp_path / ('%s.bit' % digest(blobs[1]))).exists()


def test_corrupt_entry_is_a_miss_and_is_dropped(tmp_path):
    data = module_for('rp1')
    cache = bc.BitstreamCache(tmp_path, 10 * len(data))
    cache.put(digest(data), 'img', data)
    path = tmp_path / ('%s.bit' % digest(data))
    path.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    assert cache.get(digest(data)) is None
    assert cache.entries() == [] and not path.exists()


def test_names_are_digests_only(tmp_path):
    cache = bc.BitstreamCache(tmp_path / 'c', 1 << 20)
    cache.put('../escape', 'img', b'x')
    assert cache.get('../escape') is None
    assert not (tmp_path / 'escape.bit').exists()
    assert cache.entries() == []


def test_load_by_digest_over_rpc(cloud):
    cloud.start('b0')
    data = module_for('rp0')
    first = str(uuid.uuid4())
    cloud.client.load({}, 'b0', 'rp0', first, 'img-1', digest(data), data)
    cached = cloud.client.describe({}, 'b0')['cached']
    assert cached == [{'sha256': digest(data), 'image_id': 'img-1'}]
    cloud.client.unload({}, 'b0', 'rp0', first)
    # a new server with the same image: no bitstream on the wire
    second = str(uuid.uuid4())
    result = cloud.client.load({}, 'b0', 'rp0', second, 'img-1',
                               digest(data), None)
    assert (result['state'], result['instance_uuid']) == (
        states.ACTIVE,
        second,
    )
    other = module_for('rp1')
    with pytest.raises(api.NotCached):
        cloud.client.load({}, 'b0', 'rp1', str(uuid.uuid4()), 'img-2',
                          digest(other), None)
    assert (
        cloud.client.describe({}, 'b0')['regions'][1]['state'] == states.FREE
    )


def test_version_cap_1_0_never_asks_for_a_cached_load(cloud):
    cloud.start('b0')
    old = api.AgentAPI(cloud.transport, version_cap='1.0', timeout=30)
    assert not old.can_load_cached() and cloud.client.can_load_cached()
    with pytest.raises(api.InvalidRequest, match='API 1.1'):
        old.load({}, 'b0', 'rp0', str(uuid.uuid4()), 'img', '0' * 64, None)
