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

"""A private certificate authority for the agents' bus (``cryptography``):
the RabbitMQ node's server certificate, nova-compute's and each board's
client certificate, as PEM files in one directory.

RabbitMQ verifies every client's certificate against the CA
(``verify_peer``, ``fail_if_no_peer_cert``); clients verify the node's
certificate and its name (127.0.0.1, localhost) against the CA.
"""
import datetime
import ipaddress
import pathlib

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization
from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID
from cryptography.x509.oid import NameOID

from nova_fpga import deployment

DAY = datetime.timedelta(days=1)


def _name(common_name):
    return x509.Name([
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, 'nova-fpga'),
        x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _write_key(path, key):
    path.write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    path.chmod(0o600)


class Authority:
    """A CA in directory (ca.pem, ca-key.pem), made on first use."""

    def __init__(self, directory, name='nova-fpga agents bus CA'):
        self.dir = pathlib.Path(directory)
        self.ca_file = self.dir / 'ca.pem'
        key_file = self.dir / 'ca-key.pem'
        if self.ca_file.exists() and key_file.exists():
            self.cert = x509.load_pem_x509_certificate(
                self.ca_file.read_bytes())
            self.key = serialization.load_pem_private_key(
                key_file.read_bytes(), None)
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        self.key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.timezone.utc)
        self.cert = (
            x509.CertificateBuilder()
            .subject_name(_name(name)).issuer_name(_name(name))
            .public_key(self.key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - DAY).not_valid_after(now + 3650 * DAY)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0),
                           critical=True)
            .add_extension(x509.KeyUsage(
                digital_signature=False, content_commitment=False,
                key_encipherment=False, data_encipherment=False,
                key_agreement=False, key_cert_sign=True, crl_sign=True,
                encipher_only=False, decipher_only=False), critical=True)
            .sign(self.key, hashes.SHA256()))
        _write_key(key_file, self.key)
        self.ca_file.write_bytes(self.cert.public_bytes(
            serialization.Encoding.PEM))

    def issue(self, name, server=False, days=825, expired=False):
        """A certificate for name (a board, nova-compute, or the node with
        server=True) and its key, written as <name>.pem and
        <name>-key.pem; returns the deployment.Tls of these files.
        expired: one that ran out yesterday.
        """
        key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.timezone.utc)
        if expired:
            begins, ends = now - 30 * DAY, now - DAY
        else:
            begins, ends = now - DAY, now + days * DAY
        builder = (
            x509.CertificateBuilder()
            .subject_name(_name(name)).issuer_name(self.cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(begins).not_valid_after(ends)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None),
                           critical=True)
            .add_extension(x509.ExtendedKeyUsage(
                [ExtendedKeyUsageOID.SERVER_AUTH if server
                 else ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False))
        if server:
            builder = builder.add_extension(x509.SubjectAlternativeName([
                x509.DNSName('localhost'),
                x509.IPAddress(ipaddress.ip_address('127.0.0.1'))]),
                critical=False)
        cert = builder.sign(self.key, hashes.SHA256())
        cert_file = self.dir / ('%s.pem' % name)
        key_file = self.dir / ('%s-key.pem' % name)
        _write_key(key_file, key)
        cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        return deployment.Tls(self.ca_file, cert_file, key_file)

    def files(self, name, server=False):
        """name's files, issued on first use."""
        cert_file = self.dir / ('%s.pem' % name)
        if cert_file.exists():
            return deployment.Tls(self.ca_file, cert_file,
                                  self.dir / ('%s-key.pem' % name))
        return self.issue(name, server=server)
