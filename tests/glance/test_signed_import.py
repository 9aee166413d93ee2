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

"""The import plugin's part of a signed bitstream image: the signature
record whole and the signer's certificate within its dates, refused at
import in words (Glance's own verification, which runs next, checks the
signature against the data and never the certificate's dates).  The key
manager is castellan's in-memory one, holding certificates openssl made,
as Barbican hands them to cursive.
"""
from castellan.common.objects import x_509
from castellan.tests.unit.key_manager import mock_key_manager
from cryptography.hazmat.primitives import serialization
from cryptography import x509
from cursive import exception as cursive_exception
from cursive import signature_utils
import pytest

from glance_store_bitstream import import_plugin
from nova_fpga.contract import signature as sig
from nova_fpga.contract import traits
from nova_fpga_devtools import pki
from tests.agent.conftest import module_for
from tests.glance.test_parse_count import shells  # noqa: F401 (a fixture)
from tests.glance.test_parse_count import Wrapper
from tests.glance.test_store import context
from tests.glance.test_store import fpga_store  # noqa: F401 (a fixture)
from tests.glance.test_store import image_tables  # noqa: F401 (a fixture)


@pytest.fixture(autouse=True)
def bitstream_store(fpga_store):  # noqa: F811
    """Glance with the bitstream store enabled (the plugin's routing)."""
    return fpga_store


@pytest.fixture
def key_manager(monkeypatch):
    manager = mock_key_manager.MockKeyManager()
    calls = []

    def api(*args, **kwargs):
        calls.append(args)
        return manager
    monkeypatch.setattr(signature_utils.key_manager, 'API', api)
    manager.calls = calls
    return manager


@pytest.fixture(scope='module')
def authority(tmp_path_factory):
    return pki.Authority(tmp_path_factory.mktemp('ca'), name='cloud CA')


def stored(manager, signer):
    der = x509.load_pem_x509_certificate(signer.pem.read_bytes()).public_bytes(
        serialization.Encoding.DER)
    return manager.store(context('p-admin', ['admin']), x_509.X509(der))


def signed(certificate_id):
    return {sig.SIGNATURE_PROPERTY: 'c2lnbmF0dXJl',
            sig.HASH_METHOD_PROPERTY: 'SHA-256',
            sig.KEY_TYPE_PROPERTY: 'ECC_SECP384R1',
            sig.CERTIFICATE_PROPERTY: certificate_id}


def inspect(tmp_path, manifest, extra):
    staged = tmp_path / 'img-signed'
    staged.write_bytes(module_for('rp0'))
    wrapper = Wrapper('img-signed', dict(
        extra, **{traits.SHELL_ID_PROPERTY: manifest.shell_id}))
    task = import_plugin._InspectBitstream(
        context('p-admin', ['admin']), 'task-1', 'api_image_import', wrapper,
        ['fpga'])
    task.execute('file://%s' % staged)
    return wrapper.action.image_extra_properties


def test_a_certificate_within_its_dates_passes(tmp_path, shells,  # noqa
                                               key_manager, authority):
    signer = authority.issue('builder', key_type='ECC_SECP384R1')
    props = inspect(tmp_path, shells, signed(stored(key_manager, signer)))
    assert props['fpga_partial'] == 'true'
    assert key_manager.calls


def test_an_expired_certificate_is_refused_at_import(tmp_path, shells,  # noqa
                                                     key_manager, authority):
    signer = authority.issue('old-builder', key_type='ECC_SECP384R1',
                             start='20240101000000Z', end='20250101000000Z')
    with pytest.raises(import_plugin.BitstreamImportRefused) as refused:
        inspect(tmp_path, shells, signed(stored(key_manager, signer)))
    assert str(refused.value) == (
        'the signer certificate CN=old-builder is valid from '
        '2024-01-01T00:00:00+00:00 to 2025-01-01T00:00:00+00:00, not now')


def test_a_certificate_not_yet_valid_is_refused(tmp_path, shells,  # noqa
                                                key_manager, authority):
    signer = authority.issue('new-builder', key_type='ECC_SECP384R1',
                             start='20990101000000Z', end='21000101000000Z')
    with pytest.raises(import_plugin.BitstreamImportRefused,
                       match='valid from 2099-01-01'):
        inspect(tmp_path, shells, signed(stored(key_manager, signer)))


def test_a_certificate_the_key_manager_lacks_is_cursives_error(
        tmp_path, shells, key_manager):  # noqa: F811
    with pytest.raises(cursive_exception.SignatureVerificationError,
                       match='Certificate not found with ID: 0b9cb1a4'):
        inspect(tmp_path, shells,
                signed('0b9cb1a4-5b39-4b44-9d0d-2f1b1f6d9a11'))


def test_part_of_a_signature_record_is_refused(tmp_path, shells,  # noqa
                                               key_manager):
    partial = signed('0b9cb1a4-5b39-4b44-9d0d-2f1b1f6d9a11')
    del partial[sig.KEY_TYPE_PROPERTY]
    with pytest.raises(import_plugin.BitstreamImportRefused,
                       match='the image is signed .* but lacks '
                             'img_signature_key_type'):
        inspect(tmp_path, shells, partial)
    assert not key_manager.calls


def test_an_unsigned_image_asks_no_key_manager(tmp_path, shells,  # noqa
                                               key_manager):
    assert inspect(tmp_path, shells, {})['fpga_partial'] == 'true'
    assert not key_manager.calls
