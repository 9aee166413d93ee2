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

"""One parse and one SHA-256 digest per load on the board: the agent
parses the bytes it programs once and hands that parse to its backend
(sim, fpga_manager, xdevcfg), which does not parse them again.

The fake kernels behind the board backends are other processes (the
kernel and the device, which read the stream as hardware does): what is
counted is the agent's process.
"""
import hashlib
import uuid

from nova_fpga.contract import states
from tests.agent.conftest import module_for
from tests.unit import counting


def test_a_load_parses_and_digests_its_bitstream_once(board_cloud,
                                                      monkeypatch):
    cloud = board_cloud
    cloud.start('b0')
    data = module_for('rp0')
    sha256 = hashlib.sha256(data).hexdigest()
    counts = counting.install(monkeypatch)
    instance = str(uuid.uuid4())
    result = cloud.client.load({}, 'b0', 'rp0', instance, 'img-1', sha256,
                               data)
    assert result['state'] == states.ACTIVE
    assert (counts.parses, counts.sha256) == (1, 1), counts

    # from the board's cache: the cache's check is the digest
    cloud.client.unload({}, 'b0', 'rp0', instance)
    counts.reset()
    result = cloud.client.load({}, 'b0', 'rp0', instance, 'img-1', sha256,
                               None)
    assert result['state'] == states.ACTIVE
    assert (counts.parses, counts.sha256) == (1, 1), counts
