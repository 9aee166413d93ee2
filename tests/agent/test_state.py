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

"""Region state survives restarts and never half-written; a board whose
state directory takes no write takes no load and loses nothing."""
import errno
import hashlib
import json
import os
import uuid

import pytest

from nova_fpga.contract import agent_api as api
from nova_fpga.contract import states
from nova_fpga_agent import state as st
from tests.agent.conftest import module_for


def test_round_trip(tmp_path):
    store = st.StateStore(str(tmp_path))
    loaded = store.load(['rp0', 'rp1'])
    assert {s.state for s in loaded.values()} == {states.FREE}
    loaded['rp0'].state = states.ACTIVE
    loaded['rp0'].instance_uuid = 'x'
    loaded['rp0'].module_id = 0x4E460001
    store.save(loaded)
    again = st.StateStore(str(tmp_path)).load(['rp0', 'rp1'])
    assert again['rp0'] == loaded['rp0']


def test_settings_are_kept_and_older_files_have_none(tmp_path):
    store = st.StateStore(str(tmp_path))
    loaded = store.load(['rp1'])
    loaded['rp1'].settings = {'vtc:dscp:sip': 46}
    store.save(loaded)
    assert st.StateStore(str(tmp_path)).load(['rp1'])['rp1'].settings \
        == {'vtc:dscp:sip': 46}
    with open(store.path, 'w') as f:
        json.dump({'version': 2, 'regions': [
            {'region': 'rp1', 'state': states.ACTIVE, 'module_id': 1,
             'network': None}]}, f)
    assert store.load(['rp1'])['rp1'].settings is None


def test_a_crash_while_saving_leaves_the_old_file(tmp_path, monkeypatch):
    store = st.StateStore(str(tmp_path))
    loaded = store.load(['rp0'])
    loaded['rp0'].state = states.ACTIVE
    store.save(loaded)
    before = open(store.path).read()
    loaded['rp0'].state = states.FAILED

    def dies(*args):
        raise OSError('power cut')
    monkeypatch.setattr(os, 'replace', dies)
    with pytest.raises(OSError):
        store.save(loaded)
    assert open(store.path).read() == before


@pytest.mark.parametrize('content', ['{"version": 1, "regions": [{"region"',
                                     '{"version": 9, "regions": []}',
                                     '{"version": 1, "regions": '
                                     '[{"region": "rp0", "state": "HAPPY"}]}',
                                     '{"version": 3, "regions": '
                                     '[{"region": "rp0", "state": "FREE", '
                                     '"settings": [46]}]}',
                                     '\x00\x01garbage'])
def test_corrupt_file_is_quarantined_with_a_clear_error(tmp_path, content):
    store = st.StateStore(str(tmp_path))
    with open(store.path, 'w') as f:
        f.write(content)
    with pytest.raises(st.StateCorrupt) as exc:
        store.load(['rp0'])
    assert 'unreadable' in str(exc.value)
    assert open(exc.value.quarantined).read() == content
    assert not os.path.exists(store.path)
    # the next start begins clean
    assert store.load(['rp0'])['rp0'].state == states.FREE


def test_a_full_filesystem_keeps_the_old_file_and_no_partial_copy(
        tmp_path, monkeypatch):
    store = st.StateStore(str(tmp_path))
    loaded = store.load(['rp0'])
    store.save(loaded)
    before = open(store.path).read()
    loaded['rp0'].state = states.FAILED

    def full(data, f, **kwargs):
        f.write('{"version": ')
        raise OSError(errno.ENOSPC, 'No space left on device')
    monkeypatch.setattr(json, 'dump', full)
    with pytest.raises(OSError, match='No space left'):
        store.save(loaded)
    assert open(store.path).read() == before
    assert os.listdir(tmp_path) == [st.FILE_NAME]


def load(cloud, region, instance):
    data = module_for(region)
    return cloud.client.load({}, 'b0', region, instance, 'img-1',
                             hashlib.sha256(data).hexdigest(), data)


def on_disk(agent):
    return {name: (s.state, s.instance_uuid) for name, s in
            st.StateStore(agent.manager.store.state_dir).load(
                ['rp0', 'rp1']).items()}


def test_unwritable_state_refuses_loads_and_loses_nothing(cloud,
                                                          monkeypatch):
    """The directory read-only (tests/reliability mounts one for real):
    a load is refused before the region is touched, the running region
    goes on and can be unloaded, and the file catches up once written.
    """
    agent = cloud.start('b0')
    running = str(uuid.uuid4())
    load(cloud, 'rp1', running)
    store = agent.manager.store
    save = store.save

    def read_only(states):
        raise OSError(errno.EROFS, 'Read-only file system')
    monkeypatch.setattr(store, 'save', read_only)

    with pytest.raises(api.StateNotSaved, match=(
            'board b0 cannot take region rp0: region state cannot be saved '
            'in .*Read-only file system')):
        load(cloud, 'rp0', str(uuid.uuid4()))
    rp0 = agent.manager.states['rp0']
    assert (rp0.state, rp0.instance_uuid) == (states.FREE, None)
    assert agent.manager.backend.is_decoupled('rp0')
    report = cloud.client.describe({}, 'b0')
    assert 'Read-only file system' in report['state_unsaved']
    assert report['unfit'] is None
    assert {r['name']: r['state'] for r in report['regions']} == {
        'rp0': states.FREE, 'rp1': states.ACTIVE}

    # a region is freed on the board even while its file is behind
    cloud.client.unload({}, 'b0', 'rp1', running)
    assert agent.manager.states['rp1'].state == states.FREE
    assert on_disk(agent)['rp1'] == (states.ACTIVE, running)

    monkeypatch.setattr(store, 'save', save)
    agent.manager.save_pending()
    assert on_disk(agent)['rp1'] == (states.FREE, None)
    assert cloud.client.describe({}, 'b0')['state_unsaved'] is None
    assert load(cloud, 'rp0', str(uuid.uuid4()))['state'] == states.ACTIVE


def test_records_stay_json(tmp_path):
    store = st.StateStore(str(tmp_path))
    store.save(store.load(['rp0']))
    data = json.load(open(store.path))
    assert data['version'] == st.FORMAT_VERSION
