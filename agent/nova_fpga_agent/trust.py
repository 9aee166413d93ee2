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

"""The board's own check of who built a bitstream, before it programs.

Glance and nova verify a signed image through cursive and the key manager;
once a partial is in the configuration port nothing else can.  A board
therefore verifies again, with what it holds itself: the certificate
authorities its image installed (``[agent] trusted_ca_dir``, PEM files,
read again at every load so a CA is added or withdrawn without a restart),
and the signature a load carries (nova_fpga.contract.signature, agent API
1.5) over exactly the bytes it will write.  The checks are those nova
makes with certificate validation on (cursive.certificate_utils; cursive
itself needs castellan and a key manager, which a board has not): the
signer's certificate within its dates and allowed to sign
(digitalSignature, when it says), issued by a CA of the trust store that
is within its dates and may sign certificates (CA and keyCertSign), its
key of the signature's key type, and the signature valid over the data
with the signature's hash method (RSA-PSS with MGF1 and the largest salt,
ECDSA, DSA).  An intermediate CA is trusted by putting it in the store.
``[agent] require_signed_bitstreams`` decides whether an unsigned
bitstream loads at all.  What it uses of cryptography is in 42.0
(openembedded-core scarthgap's python3-cryptography).
"""
import datetime
import pathlib

from cryptography import exceptions as crypto_exc
from cryptography.hazmat.primitives.asymmetric import dsa
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography import x509
from oslo_config import cfg
from oslo_log import log as logging

from nova_fpga.contract import signature as sig

LOG = logging.getLogger(__name__)

TRUST_OPTS = [
    cfg.BoolOpt('require_signed_bitstreams', default=False,
                help='Load only bitstreams whose load carries a signature '
                     '(the image\'s img_signature properties) that this '
                     'board verifies against its own trusted CAs. False: an '
                     'unsigned bitstream loads; a signed one is verified '
                     'all the same and refused if the check fails.'),
    cfg.StrOpt('trusted_ca_dir', default='/etc/nova-fpga/trusted-ca',
               help='Directory of the certificate authorities (PEM files, '
                    '``*.pem`` or ``*.crt``, one or more certificates each) '
                    'whose '
                    'certificates may sign the bitstreams this board loads. '
                    'Read at every signed load: add a CA\'s file to trust '
                    'it, remove it to withdraw it, no restart. Missing or '
                    'empty: no signed bitstream verifies.'),
]


def register_opts(conf, group):
    conf.register_opts(TRUST_OPTS, group=group)


class SignatureRefused(Exception):
    """The board will not program this bitstream: why, in words for the
    tenant.
    """


class TrustStore:
    """The CA certificates of a directory, read at each use (None: no
    directory, no CA).
    """

    def __init__(self, directory):
        self.directory = None if directory is None else \
            pathlib.Path(directory)

    def certificates(self):
        """[x509.Certificate] of the directory's PEM files; a file that is
        not PEM is logged and left out (it cannot make anything trusted).
        """
        found = []
        if self.directory is None:
            return found
        try:
            paths = sorted(p for p in self.directory.iterdir()
                           if p.suffix in ('.pem', '.crt') and p.is_file())
        except OSError:
            return found
        for path in paths:
            try:
                found += x509.load_pem_x509_certificates(path.read_bytes())
            except (OSError, ValueError) as exc:
                LOG.warning('trusted CA file %s left out: %s', path, exc)
        return found


class Verifier:
    """Whether a load's bitstream may be programmed (verify)."""

    def __init__(self, trust_store, require_signed, board_name):
        self.trust_store = trust_store
        self.require_signed = require_signed
        self.board_name = board_name

    @classmethod
    def from_conf(cls, group, board_name):
        return cls(TrustStore(group.trusted_ca_dir),
                   group.require_signed_bitstreams, board_name)

    def verify(self, data, signature, image_id, now=None):
        """Return what was verified (text for the log) or raise
        SignatureRefused.  data: the bytes the board will write;
        signature: a contract BitstreamSignature or None.
        """
        if signature is None:
            if self.require_signed:
                raise SignatureRefused(
                    'board %s loads only signed bitstreams and image %s has '
                    'no signature' % (self.board_name, image_id))
            return 'unsigned (the board does not require signatures)'
        now = now or datetime.datetime.now(datetime.timezone.utc)
        try:
            signer = x509.load_pem_x509_certificate(
                signature.certificate.encode('ascii'))
        except (ValueError, UnicodeEncodeError) as exc:
            raise SignatureRefused('the signer certificate of image %s is '
                                   'not a PEM X.509 certificate: %s'
                                   % (image_id, exc))
        name = signer.subject.rfc4514_string()
        self._check_dates(signer, name, now)
        self._check_chain(signer, name, now)
        self._check_signature(data, signature, signer, name, image_id)
        return 'signature by %s (%s, %s) verified against the board\'s ' \
            'trusted CAs' % (name, signature.key_type, signature.hash_method)

    @staticmethod
    def _check_dates(signer, name, now):
        if not signer.not_valid_before_utc <= now <= \
                signer.not_valid_after_utc:
            raise SignatureRefused(
                'the signer certificate %s is valid from %s to %s, not now '
                '(%s)' % (name, signer.not_valid_before_utc.isoformat(),
                          signer.not_valid_after_utc.isoformat(),
                          now.replace(microsecond=0).isoformat()))

    def _check_chain(self, signer, name, now):
        cas = self.trust_store.certificates()
        if not cas:
            raise SignatureRefused(
                'board %s trusts no certificate authority (%s holds none): '
                'it cannot verify the signer %s'
                % (self.board_name, self.trust_store.directory, name))
        usage = _extension(signer, x509.KeyUsage)
        if usage is not None and not usage.digital_signature:
            raise SignatureRefused('the signer certificate %s may not sign '
                                   '(its key usage lacks digitalSignature)'
                                   % name)
        issuers = [ca for ca in cas if ca.subject == signer.issuer]
        for ca in issuers:
            try:
                signer.verify_directly_issued_by(ca)
            except (ValueError, TypeError, crypto_exc.InvalidSignature):
                continue
            ca_name = ca.subject.rfc4514_string()
            constraints = _extension(ca, x509.BasicConstraints)
            ca_usage = _extension(ca, x509.KeyUsage)
            if constraints is None or not constraints.ca or \
                    ca_usage is None or not ca_usage.key_cert_sign:
                raise SignatureRefused(
                    'the signer certificate %s is issued by %s, which is '
                    'no certificate authority (basic constraints CA and '
                    'key usage keyCertSign)' % (name, ca_name))
            if not ca.not_valid_before_utc <= now <= ca.not_valid_after_utc:
                raise SignatureRefused(
                    'the signer certificate %s is issued by %s, which is '
                    'valid from %s to %s, not now' % (
                        name, ca_name, ca.not_valid_before_utc.isoformat(),
                        ca.not_valid_after_utc.isoformat()))
            return
        raise SignatureRefused(
            'the signer certificate %s is not issued by a certificate '
            'authority board %s trusts (issuer %s)'
            % (name, self.board_name, signer.issuer.rfc4514_string()))

    @staticmethod
    def _check_signature(data, signature, signer, name, image_id):
        key = signer.public_key()
        hash_method = sig.HASHES[signature.hash_method]()
        raw = signature.signature_bytes()
        try:
            if signature.key_type == sig.RSA_PSS:
                if not isinstance(key, rsa.RSAPublicKey):
                    raise TypeError
                key.verify(raw, data, padding.PSS(
                    mgf=padding.MGF1(hash_method),
                    salt_length=padding.PSS.MAX_LENGTH), hash_method)
            elif signature.key_type == sig.DSA:
                if not isinstance(key, dsa.DSAPublicKey):
                    raise TypeError
                key.verify(raw, data, hash_method)
            else:
                if not (isinstance(key, ec.EllipticCurvePublicKey)
                        and isinstance(key.curve,
                                       sig.ECC_CURVES[signature.key_type])):
                    raise TypeError
                key.verify(raw, data, ec.ECDSA(hash_method))
        except TypeError:
            raise SignatureRefused(
                'the signer certificate %s holds no %s key'
                % (name, signature.key_type))
        except crypto_exc.InvalidSignature:
            raise SignatureRefused(
                'the image\'s signature does not match its bitstream (%s, '
                '%s; signer %s)' % (signature.key_type,
                                    signature.hash_method, name))


def _extension(certificate, kind):
    """The value of a certificate's extension of a kind, or None."""
    try:
        return certificate.extensions.get_extension_for_class(kind).value
    except x509.ExtensionNotFound:
        return None
