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

"""Signing a bitstream image as OpenStack verifies signed images: the
signature of the file's bytes, made with the signer's private key and a
hash method, as the image properties Glance, nova (cursive) and the board
(nova_fpga_agent.trust) read (nova_fpga.contract.signature).  RSA keys
sign RSA-PSS with MGF1 and the largest salt, as cursive verifies; EC keys
on P-384 and P-521 sign ECDSA; DSA keys DSA.
"""
import base64

from cryptography.hazmat.primitives.asymmetric import dsa
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives import serialization
from cryptography import x509

from nova_fpga.contract import signature as sig

#: an EC key's curve name -> its img_signature_key_type
CURVES = {curve.name: key_type
          for key_type, curve in sig.ECC_CURVES.items()}


class SigningError(ValueError):
    """The key, certificate or hash method cannot make a signature
    OpenStack verifies.
    """


def load_key(pem, password=None):
    try:
        return serialization.load_pem_private_key(pem, password)
    except (ValueError, TypeError) as exc:
        raise SigningError('not a PEM private key (or the wrong password): '
                           '%s' % exc)


def key_type(key):
    """The img_signature_key_type of a private key."""
    if isinstance(key, rsa.RSAPrivateKey):
        return sig.RSA_PSS
    if isinstance(key, dsa.DSAPrivateKey):
        return sig.DSA
    if isinstance(key, ec.EllipticCurvePrivateKey) and \
            key.curve.name in CURVES:
        return CURVES[key.curve.name]
    raise SigningError('a %s key signs no image OpenStack verifies: use RSA, '
                       'DSA or EC on secp384r1 or secp521r1'
                       % type(key).__name__.replace('PrivateKey', ''))


def check_pair(key, certificate_pem):
    """Refuse a certificate whose public key is not the key's."""
    try:
        certificate = x509.load_pem_x509_certificate(certificate_pem)
    except ValueError as exc:
        raise SigningError('not a PEM X.509 certificate: %s' % exc)
    ours = key.public_key().public_bytes(
        serialization.Encoding.DER,
        serialization.PublicFormat.SubjectPublicKeyInfo)
    theirs = certificate.public_key().public_bytes(
        serialization.Encoding.DER,
        serialization.PublicFormat.SubjectPublicKeyInfo)
    if ours != theirs:
        raise SigningError('the certificate %s is not the key\'s: its public '
                           'key is another' % certificate.subject
                           .rfc4514_string())


def sign(data, key, hash_method='SHA-256'):
    """(img_signature, img_signature_key_type) of data."""
    if hash_method not in sig.HASHES:
        raise SigningError('hash method %s is none of %s' % (
            hash_method, ', '.join(sig.HASH_METHODS)))
    kind = key_type(key)
    algorithm = sig.HASHES[hash_method]()
    if kind == sig.RSA_PSS:
        raw = key.sign(data, padding.PSS(mgf=padding.MGF1(algorithm),
                                         salt_length=padding.PSS.MAX_LENGTH),
                       algorithm)
    elif kind == sig.DSA:
        raw = key.sign(data, algorithm)
    else:
        raw = key.sign(data, ec.ECDSA(algorithm))
    return base64.b64encode(raw).decode('ascii'), kind


def properties(data, key, certificate_id, hash_method='SHA-256'):
    """The four image properties of a signed image of data."""
    signature, kind = sign(data, key, hash_method)
    return {sig.SIGNATURE_PROPERTY: signature,
            sig.HASH_METHOD_PROPERTY: hash_method,
            sig.KEY_TYPE_PROPERTY: kind,
            sig.CERTIFICATE_PROPERTY: certificate_id}
