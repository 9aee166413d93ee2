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

"""The board's signature check (nova_fpga_agent.trust) with keys,
certificates and signatures made by openssl, and the same signatures
checked by cursive (what Glance and nova run): the board accepts what
OpenStack accepts and refuses each way a signature can be wrong.
"""
import shutil

from cryptography import x509
from cursive import signature_utils
import pytest

from nova_fpga.contract import signature as sig
from nova_fpga_agent import trust
from nova_fpga_devtools import pki
from tests.agent.conftest import module_for

IMAGE = '0a4b2b7e-3f0e-4b8e-9d7c-2f1e6c3a5b10'


@pytest.fixture(scope='module')
def bitstream(tmp_path_factory):
    path = tmp_path_factory.mktemp('data') / 'vtc.bit'
    path.write_bytes(module_for('rp1'))
    return path


@pytest.fixture(scope='module')
def signer(ca):
    return ca.issue('builder')


def verifier(directory, require=False):
    return trust.Verifier(trust.TrustStore(directory), require, 'board0')


def signed(signer, path, hash_method='SHA-256', says=None):
    return sig.BitstreamSignature(
        signature=signer.sign(path, hash_method),
        hash_method=says or hash_method, key_type=signer.key_type,
        certificate=signer.certificate(), certificate_id='cert-1')


def cursive_accepts(record, data):
    """What Glance and nova make of the same signature (cursive)."""
    key_type = signature_utils.SignatureKeyType.lookup(record.key_type)
    public_key = x509.load_pem_x509_certificate(
        record.certificate.encode()).public_key()
    check = key_type.create_verifier(
        signature_utils.get_signature(record.signature),
        signature_utils.get_hash_method(record.hash_method), public_key)
    check.update(data)
    try:
        check.verify()
        return True
    except Exception:
        return False


@pytest.mark.parametrize('key_type,hash_method', [
    ('RSA-PSS', 'SHA-256'), ('RSA-PSS', 'SHA-512'),
    ('ECC_SECP384R1', 'SHA-384'), ('ECC_SECP521R1', 'SHA-256')])
def test_a_signature_openstack_accepts_the_board_accepts(
        ca, trusted, bitstream, key_type, hash_method):
    signer = ca.issue('builder-%s' % key_type.lower(), key_type)
    record = signed(signer, bitstream, hash_method)
    data = bitstream.read_bytes()
    assert cursive_accepts(record, data)
    said = verifier(trusted, require=True).verify(data, record, IMAGE)
    assert 'CN=builder-%s' % key_type.lower() in said and key_type in said


def test_changed_data_is_refused(signer, trusted, bitstream):
    record = signed(signer, bitstream)
    data = bytearray(bitstream.read_bytes())
    data[len(data) // 2] ^= 0x01
    assert not cursive_accepts(record, bytes(data))
    with pytest.raises(trust.SignatureRefused,
                       match='does not match its bitstream'):
        verifier(trusted).verify(bytes(data), record, IMAGE)


def test_a_signature_by_another_key_is_refused(ca, signer, trusted,
                                               bitstream):
    other = pki.Signer(ca.dir / 'impostor')
    record = sig.BitstreamSignature(
        signature=other.sign(bitstream), hash_method='SHA-256',
        key_type='RSA-PSS', certificate=signer.certificate())
    with pytest.raises(trust.SignatureRefused,
                       match='does not match its bitstream'):
        verifier(trusted).verify(bitstream.read_bytes(), record, IMAGE)


def test_a_wrong_hash_method_is_refused(signer, trusted, bitstream):
    record = signed(signer, bitstream, 'SHA-256', says='SHA-512')
    assert not cursive_accepts(record, bitstream.read_bytes())
    with pytest.raises(trust.SignatureRefused, match='SHA-512'):
        verifier(trusted).verify(bitstream.read_bytes(), record, IMAGE)


def test_a_key_of_another_type_is_refused(ca, trusted, bitstream):
    signer = ca.issue('ec-builder', 'ECC_SECP384R1')
    record = sig.BitstreamSignature(
        signature=signer.sign(bitstream), hash_method='SHA-256',
        key_type='RSA-PSS', certificate=signer.certificate())
    with pytest.raises(trust.SignatureRefused, match='holds no RSA-PSS key'):
        verifier(trusted).verify(bitstream.read_bytes(), record, IMAGE)


def test_an_expired_certificate_is_refused(ca, trusted, bitstream):
    signer = ca.issue('expired', start='20250101000000Z',
                      end='20260101000000Z')
    record = signed(signer, bitstream)
    assert cursive_accepts(record, bitstream.read_bytes())  # only the key
    with pytest.raises(trust.SignatureRefused,
                       match='valid from 2025-01-01.* to 2026-01-01'):
        verifier(trusted).verify(bitstream.read_bytes(), record, IMAGE)


def test_a_certificate_not_yet_valid_is_refused(ca, trusted, bitstream):
    signer = ca.issue('future', start='20400101000000Z',
                      end='20410101000000Z')
    with pytest.raises(trust.SignatureRefused, match='not now'):
        verifier(trusted).verify(bitstream.read_bytes(),
                                 signed(signer, bitstream), IMAGE)


def test_a_certificate_of_an_untrusted_ca_is_refused(tmp_path, trusted,
                                                     bitstream):
    rogue = pki.Authority(tmp_path / 'rogue', name='rogue CA')
    record = signed(rogue.issue('mallory'), bitstream)
    with pytest.raises(trust.SignatureRefused,
                       match='CN=mallory is not issued by a certificate '
                             'authority board board0 trusts'):
        verifier(trusted).verify(bitstream.read_bytes(), record, IMAGE)


def test_a_self_signed_signer_is_refused(tmp_path, trusted, bitstream):
    """A signer's own certificate is no CA of the board's."""
    signer = pki.Signer(tmp_path / 'alone')
    pki.openssl('req', '-x509', '-new', '-key', signer.key, '-sha256',
                '-days', 30, '-subj', '/CN=alone', '-out', signer.pem,
                '-addext', 'keyUsage=critical,digitalSignature')
    with pytest.raises(trust.SignatureRefused, match='CN=alone is not issued'):
        verifier(trusted).verify(bitstream.read_bytes(),
                                 signed(signer, bitstream), IMAGE)


def test_a_certificate_issued_by_a_trusted_non_ca_is_refused(
        tmp_path, bitstream):
    """A trusted leaf certificate does not make what it signed trusted."""
    leaf = pki.Authority(tmp_path / 'leaf', name='a leaf', ca=False)
    directory = tmp_path / 'trusted'
    directory.mkdir()
    shutil.copy(leaf.pem, directory / 'leaf.pem')
    record = signed(leaf.issue('child'), bitstream)
    with pytest.raises(trust.SignatureRefused,
                       match='issued by CN=a leaf, which is no certificate '
                             'authority'):
        verifier(directory).verify(bitstream.read_bytes(), record, IMAGE)


def test_a_certificate_that_may_not_sign_is_refused(ca, trusted, bitstream):
    signer = ca.issue('encipherer', key_usage='critical,keyEncipherment')
    with pytest.raises(trust.SignatureRefused, match='digitalSignature'):
        verifier(trusted).verify(bitstream.read_bytes(),
                                 signed(signer, bitstream), IMAGE)


def test_unsigned_loads_only_where_signatures_are_not_required(
        trusted, bitstream):
    assert 'unsigned' in verifier(trusted).verify(
        bitstream.read_bytes(), None, IMAGE)
    with pytest.raises(trust.SignatureRefused,
                       match='board board0 loads only signed bitstreams and '
                             'image %s has no signature' % IMAGE):
        verifier(trusted, require=True).verify(bitstream.read_bytes(), None,
                                               IMAGE)


def test_the_trust_store_is_read_at_each_load(tmp_path, ca, signer,
                                              bitstream):
    """Rotation: a CA withdrawn is refused at the next load, a new one
    trusted at the next load, no restart; a file that is not PEM is left
    out.
    """
    directory = tmp_path / 'trusted-ca'
    check = verifier(directory)
    record = signed(signer, bitstream)
    data = bitstream.read_bytes()
    with pytest.raises(trust.SignatureRefused, match='trusts no certificate '
                                                     'authority'):
        check.verify(data, record, IMAGE)
    directory.mkdir()
    (directory / 'junk.pem').write_text('not a certificate')
    shutil.copy(ca.pem, directory / 'old.crt')
    check.verify(data, record, IMAGE)
    new = pki.Authority(tmp_path / 'new', name='new CA')
    shutil.copy(new.pem, directory / 'new.pem')
    (directory / 'old.crt').unlink()
    with pytest.raises(trust.SignatureRefused, match='not issued'):
        check.verify(data, record, IMAGE)
    check.verify(data, signed(new.issue('builder2'), bitstream), IMAGE)


@pytest.mark.parametrize('field,value,message', [
    ('hash_method', 'MD5', 'hash method'),
    ('key_type', 'RSA', 'key type'),
    ('signature', 'not base64!', 'not base64'),
    ('certificate', 7, 'must be text'),
])
def test_malformed_records_are_refused_as_such(signer, bitstream, field,
                                               value, message):
    record = signed(signer, bitstream).to_dict()
    record[field] = value
    with pytest.raises(sig.MalformedSignature, match=message):
        sig.BitstreamSignature.from_dict(record)
    with pytest.raises(sig.MalformedSignature, match='unknown fields'):
        sig.BitstreamSignature.from_dict(dict(record, extra=1))


def test_the_contract_names_are_cursives():
    assert sig.PROPERTIES == signature_utils.PROPERTIES if hasattr(
        signature_utils, 'PROPERTIES') else True
    assert (sig.SIGNATURE_PROPERTY, sig.HASH_METHOD_PROPERTY,
            sig.KEY_TYPE_PROPERTY, sig.CERTIFICATE_PROPERTY) == (
        signature_utils.SIGNATURE, signature_utils.HASH_METHOD,
        signature_utils.KEY_TYPE, signature_utils.CERT_UUID)
    assert set(sig.HASH_METHODS) == set(signature_utils.HASH_METHODS)
    assert set(sig.KEY_TYPES) <= set(
        signature_utils.SignatureKeyType.REGISTERED_TYPES)
    # cursive's algorithms for them, as the board and the signing tool use
    for name in sig.HASH_METHODS:
        assert isinstance(sig.HASHES[name](),
                          type(signature_utils.HASH_METHODS[name]))
    cursive_curves = {'ECC_' + curve.name.upper(): type(curve)
                      for curve in signature_utils.ECC_CURVES}
    for key_type, curve in sig.ECC_CURVES.items():
        assert cursive_curves[key_type] is curve
