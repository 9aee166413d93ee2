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

"""Signed bitstream images through nova's real API, scheduler and compute
manager, with keys and certificates made by openssl: the driver fetches
the signer's certificate from the key manager (cursive, through
castellan) and sends it with the load (agent API 1.5); the board, which
requires signatures, verifies before it programs.  Each layer on its own:
with nova's verification off, data changed in Glance after signing is
refused by the board; with it on, nova refuses it at the download with its
own signature fault, and no load is sent.  An unsigned image is refused by
the board, naming why.  Nothing stays loaded or allocated.

The key manager here is castellan's in-memory one (nova's functional
harness runs no Barbican), shared by the driver's calls; the demo cloud
and DevStack run Barbican.  nova's harness replaces its Glance client with
GlanceFixture, whose download checks nothing: here it hands its data to
nova's own verification (GlanceImageServiceV2._get_verifier and
_verify_and_write), as nova's Glance client does with Glance's chunks.
"""
import pathlib
import shutil

from castellan.common.objects import x_509
from castellan.tests.unit.key_manager import mock_key_manager
from cryptography.hazmat.primitives import serialization
from cryptography import x509
import fixtures
from nova import context as nova_context
from nova.image import glance as nova_glance

from nova_fpga import bitstream
from nova_fpga.contract import placement
from nova_fpga.contract import signature as sig
from nova_fpga.contract import traits
from nova_fpga_devtools import pki
from tests.agent import conftest as agent_fixtures
from tests.functional import base
from tests.functional import test_module_settings


class SharedKeyManager(mock_key_manager.MockKeyManager):
    """castellan's in-memory key manager, one store for every instance
    (castellan makes an instance per call).
    """

    KEYS = {}

    def __init__(self, configuration=None):
        super().__init__(configuration)
        self.keys = SharedKeyManager.KEYS


def verifying_download(fixture, context, image_id, data=None,
                       dst_path=None, trusted_certs=None):
    """GlanceFixture.download through nova's signature verification."""
    client = object.__new__(nova_glance.GlanceImageServiceV2)
    client.show = fixture.show
    verifier = client._get_verifier(context, image_id, trusted_certs)
    chunks = iter([fixture._imagedata.get(image_id, b'')])
    return client._verify_and_write(context, image_id, verifier, chunks,
                                    data, dst_path)


class SignedImagesTest(base.ZynqTestBase):
    BOARDS = ('board0',)

    def setUp(self):
        tmp = pathlib.Path(self.useFixture(fixtures.TempDir()).path)
        self.ca = pki.Authority(tmp / 'ca')
        self.builder = self.ca.issue('builder')
        trusted = tmp / 'trusted-ca'
        trusted.mkdir()
        shutil.copy(self.ca.pem, trusted / 'cloud.pem')
        self.AGENT_OPTIONS = {'board0': {
            ('agent', 'trusted_ca_dir'): str(trusted),
            ('agent', 'require_signed_bitstreams'): 'True'}}
        self.tmp = tmp
        SharedKeyManager.KEYS.clear()
        self.flags(backend='%s.%s' % (__name__, 'SharedKeyManager'),
                   group='key_manager')
        super().setUp()
        self.stub_out('nova.tests.fixtures.glance.GlanceFixture.download',
                      verifying_download)

    fault_of = test_module_settings.SettingsBase.fault_of

    def store_certificate(self, signer):
        der = x509.load_pem_x509_certificate(
            signer.certificate().encode()).public_bytes(
            serialization.Encoding.DER)
        return SharedKeyManager().store(nova_context.get_admin_context(),
                                        x_509.X509(der))

    def signed_image(self, data, signed_data=None, name='signed'):
        """An image of data whose signature properties sign signed_data
        (data itself unless given: what Glance holds changed after
        signing).
        """
        path = self.tmp / ('%s.bit' % name)
        path.write_bytes(signed_data or data)
        props = traits.image_properties(bitstream.validate(data),
                                        base.SHELL_ID)
        props.update({
            sig.SIGNATURE_PROPERTY: self.builder.sign(path),
            sig.HASH_METHOD_PROPERTY: 'SHA-256',
            sig.KEY_TYPE_PROPERTY: 'RSA-PSS',
            sig.CERTIFICATE_PROPERTY: self.store_certificate(self.builder)})
        return self.create_bitstream_image(data, name, props)

    def nothing_loaded(self):
        self.assertEqual({}, self.loads())
        for region in ('rp0', 'rp1'):
            usages = self._get_provider_usages(self._get_provider_uuid_by_name(
                placement.region_provider_name('board0', region)))
            self.assertFalse(any(usages.values()), (region, usages))

    def test_a_signed_image_boots_on_a_board_that_requires_signatures(self):
        data = agent_fixtures.module_for('rp0')
        server = self.boot(self.signed_image(data))
        self.assertEqual({('board0', 'rp0'): server['id']}, self.loads())
        self.assertIn('signature by CN=builder (RSA-PSS, SHA-256) verified '
                      'against the board\'s trusted CAs',
                      self.stdlog.logger.output)

    def test_data_changed_after_signing_is_refused_by_the_board(self):
        """nova's verification off (its default): the board's check is
        the one that sees it.
        """
        data = agent_fixtures.module_for('rp0')
        signed = bytearray(data)
        signed[-300] ^= 0x01
        server = self.boot(self.signed_image(data, bytes(signed)),
                           expected_state='ERROR')
        self.assertIn('board board0 refused the load: the image\'s '
                      'signature does not match its bitstream (RSA-PSS, '
                      'SHA-256; signer CN=builder)', self.fault_of(server))
        self.nothing_loaded()

    def test_with_nova_verifying_it_refuses_at_the_download(self):
        self.flags(verify_glance_signatures=True, group='glance')
        data = agent_fixtures.module_for('rp0')
        signed = bytearray(data)
        signed[-300] ^= 0x01
        server = self.boot(self.signed_image(data, bytes(signed)),
                           expected_state='ERROR')
        self.assertIn('Signature verification for the image failed: the '
                      'signature of image %s does not match its data'
                      % server['image']['id'], self.fault_of(server))
        self.assertNotIn('refused to load image', self.stdlog.logger.output)
        self.nothing_loaded()
        # and a good one still boots, downloaded and verified by nova
        good = self.boot(self.signed_image(data, name='good'))
        self.assertEqual({('board0', 'rp0'): good['id']}, self.loads())
        self.assertIn('Image signature verification succeeded',
                      self.stdlog.logger.output)

    def test_an_unsigned_image_is_kept_off_the_board_by_the_filter(self):
        """The scheduler is the first layer that sees it: the board's
        report says it loads only signed bitstreams (a node stat), and
        ZynqFilter says why it turns the image away.
        """
        self._run_periodics()
        server = self.boot(self.region_image('rp0'), expected_state='ERROR')
        # scheduled nowhere: the server and its fault are in cell0
        self.assertIn('No valid host', server['fault']['message'])
        self.assertIn('board board0 loads only signed bitstreams and image '
                      '%s has no signature' % server['image']['id'],
                      self.stdlog.logger.output)
        self.assertNotIn('refused to load image', self.stdlog.logger.output)
        self.nothing_loaded()

    def test_a_certificate_missing_from_the_key_manager_is_nova_fault(self):
        data = agent_fixtures.module_for('rp0')
        path = self.tmp / 'nocert.bit'
        path.write_bytes(data)
        props = traits.image_properties(bitstream.validate(data),
                                        base.SHELL_ID)
        props.update({
            sig.SIGNATURE_PROPERTY: self.builder.sign(path),
            sig.HASH_METHOD_PROPERTY: 'SHA-256',
            sig.KEY_TYPE_PROPERTY: 'RSA-PSS',
            sig.CERTIFICATE_PROPERTY: 'b1a0e3f2-0000-4000-8000-000000000000'})
        server = self.boot(self.create_bitstream_image(data, 'nocert', props),
                           expected_state='ERROR')
        self.assertIn('Signature verification for the image failed: '
                      'Certificate not found with ID: '
                      'b1a0e3f2-0000-4000-8000-000000000000',
                      self.fault_of(server))
        self.nothing_loaded()


class SignedOnlyBesideAnyTest(base.ZynqTestBase):
    """board0 loads only signed bitstreams, board1 any: an unsigned image
    goes to board1.
    """

    def setUp(self):
        tmp = pathlib.Path(self.useFixture(fixtures.TempDir()).path)
        self.AGENT_OPTIONS = {'board0': {
            ('agent', 'trusted_ca_dir'): str(tmp),
            ('agent', 'require_signed_bitstreams'): 'True'}}
        super().setUp()

    def test_an_unsigned_image_goes_to_the_board_that_takes_it(self):
        self._run_periodics()
        for _ in range(2):
            server = self.boot(self.region_image('rp0'))
            self.assertEqual(
                'board1', server['OS-EXT-SRV-ATTR:hypervisor_hostname'])
            self._delete_server(server)
