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

"""Signed loads over the agent API (1.5), on each backend: the board
programs a bitstream whose signature verifies against its trust store,
and refuses one that does not (or an unsigned one where signatures are
required) with SignatureRefused before it touches the region; a cached
copy is verified again at every load from the cache, and one changed on
the board's disk is not loaded at all.
"""
import hashlib
import shutil
import uuid

import pytest

from nova_fpga.contract import agent_api as api
from nova_fpga.contract import signature as sig
from nova_fpga.contract import states
from nova_fpga_devtools import pki
from tests.agent.conftest import module_for


@pytest.fixture(scope='module')
def builder(ca):
    return ca.issue('builder')


def signature_of(signer, data, tmp_path):
    path = tmp_path / ('%s.bit' % hashlib.sha256(data).hexdigest()[:12])
    path.write_bytes(data)
    return sig.BitstreamSignature(
        signature=signer.sign(path), hash_method='SHA-256',
        key_type=signer.key_type, certificate=signer.certificate(),
        certificate_id=str(uuid.uuid4()))


def start(cloud, trusted, require=True):
    return cloud.start('b0', {
        ('agent', 'trusted_ca_dir'): str(trusted),
        ('agent', 'require_signed_bitstreams'): str(require)})


def load(cloud, data, signature, bitstream=True, region='rp0'):
    return cloud.client.load({}, 'b0', region, str(uuid.uuid4()), 'img-1',
                             hashlib.sha256(data).hexdigest(),
                             data if bitstream else None,
                             signature=signature)


def free(cloud, region='rp0'):
    regions = cloud.client.describe({}, 'b0')['regions']
    found = next(r for r in regions if r['name'] == region)
    return found['state'] == states.FREE and found['instance_uuid'] is None


def test_a_signed_bitstream_loads_and_a_changed_one_is_refused(
        board_cloud, trusted, builder, tmp_path):
    cloud = board_cloud
    agent = start(cloud, trusted)
    data = module_for('rp0')
    good = signature_of(builder, data, tmp_path)
    result = load(cloud, data, good)
    assert result['state'] == states.ACTIVE
    cloud.client.unload({}, 'b0', 'rp0', result['instance_uuid'])
    changed = bytearray(data)
    changed[-200] ^= 0x40
    written = agent.manager.backend.loaded_module('rp0')
    with pytest.raises(api.SignatureRefused,
                       match='the image.s signature does not match its '
                             'bitstream .RSA-PSS, SHA-256; signer '
                             'CN=builder.'):
        load(cloud, bytes(changed), good)
    assert free(cloud)
    # nothing was written: the region holds what the unload left
    assert agent.manager.backend.loaded_module('rp0') == written


def test_unsigned_bitstreams_load_only_where_not_required(
        cloud, trusted, tmp_path):
    start(cloud, trusted, require=True)
    data = module_for('rp1')
    with pytest.raises(api.SignatureRefused,
                       match='loads only signed bitstreams and image img-1 '
                             'has no signature'):
        load(cloud, data, None, region='rp1')
    assert free(cloud, 'rp1')
    cloud.stop('b0')
    start(cloud, trusted, require=False)
    assert load(cloud, data, None, region='rp1')['state'] == states.ACTIVE


def test_an_untrusted_signer_is_refused_even_where_not_required(
        cloud, trusted, tmp_path):
    """A signature is verified whenever a load carries one."""
    start(cloud, trusted, require=False)
    rogue = pki.Authority(tmp_path / 'rogue', name='rogue CA')
    data = module_for('rp0')
    with pytest.raises(api.SignatureRefused, match='CN=mallory is not '
                                                   'issued by a certificate '
                                                   'authority board b0'):
        load(cloud, data, signature_of(rogue.issue('mallory'), data,
                                       tmp_path))
    assert free(cloud)


def test_a_load_from_the_cache_is_verified_again(cloud, trusted, builder,
                                                 ca, tmp_path):
    agent = start(cloud, trusted)
    data = module_for('rp0')
    good = signature_of(builder, data, tmp_path)
    first = load(cloud, data, good)
    cloud.client.unload({}, 'b0', 'rp0', first['instance_uuid'])
    # from the cache, with the same signature: loads
    again = load(cloud, data, good, bitstream=False)
    assert again['state'] == states.ACTIVE
    cloud.client.unload({}, 'b0', 'rp0', again['instance_uuid'])
    # from the cache, the signer's CA withdrawn since: refused
    (trusted / 'cloud-ca.pem').unlink()
    with pytest.raises(api.SignatureRefused, match='trusts no certificate'):
        load(cloud, data, good, bitstream=False)
    assert free(cloud)
    shutil.copy(ca.pem, trusted / 'cloud-ca.pem')
    # the cached copy changed on the board's disk: not loaded (the driver
    # sends the bitstream again on NotCached)
    cached = agent.manager.cache.dir / ('%s.bit' %
                                        hashlib.sha256(data).hexdigest())
    tampered = bytearray(cached.read_bytes())
    tampered[-200] ^= 0x40
    cached.write_bytes(bytes(tampered))
    with pytest.raises(api.NotCached):
        load(cloud, data, good, bitstream=False)
    assert free(cloud)
    assert load(cloud, data, good)['state'] == states.ACTIVE


def test_a_malformed_signature_is_an_invalid_request(cloud, trusted,
                                                     builder, tmp_path):
    start(cloud, trusted)
    data = module_for('rp0')
    record = signature_of(builder, data, tmp_path).to_dict()
    record['hash_method'] = 'MD5'
    with pytest.raises(api.InvalidRequest, match='hash method'):
        cloud.client._call({}, 'b0', 'load', version=api.SIGNATURE_VERSION,
                           region='rp0', instance_uuid=str(uuid.uuid4()),
                           image_id='img-1',
                           sha256=hashlib.sha256(data).hexdigest(),
                           bitstream=api.encode_bitstream(data),
                           signature=record)
    assert free(cloud)


def test_a_version_cap_below_1_5_never_sends_a_signed_load(cloud, trusted,
                                                           builder,
                                                           tmp_path):
    start(cloud, trusted, require=False)
    old = api.AgentAPI(cloud.transport, version_cap='1.4', timeout=30)
    assert not old.can_sign() and cloud.client.can_sign()
    data = module_for('rp0')
    with pytest.raises(api.InvalidRequest, match='API 1.5'):
        old.load({}, 'b0', 'rp0', str(uuid.uuid4()), 'img-1',
                 hashlib.sha256(data).hexdigest(), data,
                 signature=signature_of(builder, data, tmp_path))
