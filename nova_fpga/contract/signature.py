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

"""A bitstream's signature as a load carries it to a board (agent API 1.5).

OpenStack signs images with four image properties, which Glance and nova
verify through cursive: the signature of the image's data (base64), the
hash method and key type that made it, and the UUID of the signer's
certificate in the key manager.  A board has no key manager: the load
carries the certificate itself (PEM), fetched by the driver, and the board
checks it against its own trust store and the signature against the bytes
it writes (nova_fpga_agent.trust).  The names and values here are
OpenStack's (cursive.signature_utils); a board verifies no other.
"""
import base64
import binascii
import dataclasses

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives import hashes

#: Glance's image properties of a signed image (cursive's names)
SIGNATURE_PROPERTY = 'img_signature'
HASH_METHOD_PROPERTY = 'img_signature_hash_method'
KEY_TYPE_PROPERTY = 'img_signature_key_type'
CERTIFICATE_PROPERTY = 'img_signature_certificate_uuid'
PROPERTIES = (SIGNATURE_PROPERTY, HASH_METHOD_PROPERTY, KEY_TYPE_PROPERTY,
              CERTIFICATE_PROPERTY)

#: hash method a signature may name (cursive's) -> cryptography's hash
HASHES = {'SHA-224': hashes.SHA224, 'SHA-256': hashes.SHA256,
          'SHA-384': hashes.SHA384, 'SHA-512': hashes.SHA512}
HASH_METHODS = tuple(HASHES)
#: key types a board verifies: cursive's, less the binary curves that
#: cryptography no longer has (SECT*); an ECC key type -> its curve
RSA_PSS = 'RSA-PSS'
DSA = 'DSA'
ECC_CURVES = {'ECC_SECP384R1': ec.SECP384R1, 'ECC_SECP521R1': ec.SECP521R1}
ECC_KEY_TYPES = tuple(ECC_CURVES)
KEY_TYPES = (RSA_PSS, DSA) + ECC_KEY_TYPES

#: the largest certificate (PEM text) a load may carry
MAX_CERTIFICATE_CHARS = 16 * 1024
#: the largest signature (base64 text): an RSA-16384 signature is 2 kB
MAX_SIGNATURE_CHARS = 4 * 1024


class MalformedSignature(ValueError):
    """A signature record that is not one (the agent answers it with
    InvalidRequest).
    """


def is_signed(properties):
    """Whether an image's properties declare a signature (any of the four:
    an image with some but not all is a malformed signed image, which
    from_properties refuses).
    """
    return any(properties.get(name) for name in PROPERTIES)


@dataclasses.dataclass(frozen=True)
class BitstreamSignature:
    """What a board needs to verify a bitstream it is asked to load."""

    #: the signature of the image's data, base64 (img_signature)
    signature: str
    #: img_signature_hash_method, one of HASH_METHODS
    hash_method: str
    #: img_signature_key_type, one of KEY_TYPES
    key_type: str
    #: the signer's X.509 certificate, PEM (what the key manager holds
    #: under img_signature_certificate_uuid)
    certificate: str
    #: img_signature_certificate_uuid, for messages
    certificate_id: str = None

    def __post_init__(self):
        for name in ('signature', 'hash_method', 'key_type', 'certificate'):
            if not isinstance(getattr(self, name), str):
                raise MalformedSignature('signature: %s must be text' % name)
        if self.hash_method not in HASH_METHODS:
            raise MalformedSignature(
                'signature: hash method %r is none of %s'
                % (self.hash_method[:32], ', '.join(HASH_METHODS)))
        if self.key_type not in KEY_TYPES:
            raise MalformedSignature(
                'signature: key type %r is none of %s'
                % (self.key_type[:32], ', '.join(KEY_TYPES)))
        if len(self.signature) > MAX_SIGNATURE_CHARS:
            raise MalformedSignature('signature: longer than %d characters'
                                     % MAX_SIGNATURE_CHARS)
        if len(self.certificate) > MAX_CERTIFICATE_CHARS:
            raise MalformedSignature('signature: certificate longer than %d '
                                     'characters' % MAX_CERTIFICATE_CHARS)
        if self.certificate_id is not None and \
                not isinstance(self.certificate_id, str):
            raise MalformedSignature('signature: certificate_id must be '
                                     'text')
        self.signature_bytes()

    def signature_bytes(self):
        try:
            return base64.b64decode(self.signature.encode('ascii'),
                                    validate=True)
        except (binascii.Error, UnicodeEncodeError):
            raise MalformedSignature('signature: img_signature is not '
                                     'base64')

    def to_dict(self):
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data):
        """The record a load carries; MalformedSignature if it is not
        one.
        """
        if not isinstance(data, dict):
            raise MalformedSignature('signature must be an object')
        fields = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - fields)
        if unknown:
            raise MalformedSignature('signature: unknown fields %s' % (
                ', '.join(repr(name)[:40] for name in unknown)))
        try:
            return cls(**data)
        except TypeError as exc:
            raise MalformedSignature('signature: %s' % exc)

    @classmethod
    def from_properties(cls, properties, certificate_pem):
        """From a signed image's properties and its signer's certificate
        (PEM, fetched from the key manager by the caller).
        """
        missing = [name for name in PROPERTIES if not properties.get(name)]
        if missing:
            raise MalformedSignature(
                'image is signed but lacks the properties %s'
                % ', '.join(missing))
        return cls(signature=properties[SIGNATURE_PROPERTY],
                   hash_method=properties[HASH_METHOD_PROPERTY],
                   key_type=properties[KEY_TYPE_PROPERTY],
                   certificate=certificate_pem,
                   certificate_id=properties[CERTIFICATE_PROPERTY])
