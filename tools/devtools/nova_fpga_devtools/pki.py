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

"""Keys, certificates and signatures made by the openssl command, as an
operator or a tenant makes them (doc/source/user/signing.rst shows the same
commands): a CA, signers it issues, signatures of files.  The demo cloud's
bitstream-signing CA (localcloud.stack) and the tests' keys.
"""
import base64
import pathlib
import subprocess

OPENSSL = 'openssl'


def openssl(*args, cwd=None):
    out = subprocess.run([OPENSSL, *[str(a) for a in args]], cwd=cwd,
                         capture_output=True, text=True, timeout=120)
    if out.returncode:
        raise RuntimeError('openssl %s: %s' % (' '.join(map(str, args)),
                                               out.stderr))
    return out.stdout


def base64_of(path):
    """A file's bytes as base64 text (what openstack secret store's
    --payload takes with --payload-content-encoding base64).
    """
    return base64.b64encode(pathlib.Path(path).read_bytes()).decode('ascii')


KEYS = {
    'RSA-PSS': ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048'],
    'ECC_SECP384R1': ['-algorithm', 'EC', '-pkeyopt',
                      'ec_paramgen_curve:secp384r1'],
    'ECC_SECP521R1': ['-algorithm', 'EC', '-pkeyopt',
                      'ec_paramgen_curve:secp521r1'],
}


class Authority:
    """A certificate authority in a directory (ca.key, ca.pem): made there,
    or the one made there before.
    """

    def __init__(self, directory, name='nova-fpga test CA', days=3650,
                 ca=True):
        self.dir = pathlib.Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.key = self.dir / 'ca.key'
        self.pem = self.dir / 'ca.pem'
        if self.pem.exists():
            return  # made before (a demo cloud's, kept across ups)
        openssl('genpkey', *KEYS['RSA-PSS'], '-out', self.key)
        openssl('req', '-x509', '-new', '-key', self.key, '-sha256',
                '-days', days, '-subj', '/CN=%s' % name, '-out', self.pem,
                '-addext', 'basicConstraints=critical,CA:%s' % (
                    'TRUE' if ca else 'FALSE'),
                '-addext', 'keyUsage=critical,%s' % (
                    'keyCertSign,cRLSign' if ca else 'digitalSignature'),
                '-addext', 'subjectKeyIdentifier=hash')

    def issue(self, name, key_type='RSA-PSS', days=365, start=None,
              end=None, key_usage='critical,digitalSignature'):
        """A Signer whose certificate this CA signed.  start/end
        (YYYYMMDDHHMMSSZ) set the validity instead of days from now.
        """
        signer = Signer(self.dir / name, key_type)
        csr = signer.dir / 'signer.csr'
        openssl('req', '-new', '-key', signer.key, '-subj', '/CN=%s' % name,
                '-out', csr)
        ext = signer.dir / 'ext.cnf'
        ext.write_text('basicConstraints=critical,CA:FALSE\n'
                       'keyUsage=%s\n'
                       'subjectKeyIdentifier=hash\n'
                       'authorityKeyIdentifier=keyid\n' % key_usage)
        if start is None:
            openssl('x509', '-req', '-in', csr, '-CA', self.pem, '-CAkey',
                    self.key, '-CAcreateserial', '-sha256', '-days', days,
                    '-extfile', ext, '-out', signer.pem)
        else:
            # openssl x509 sets no past dates before OpenSSL 3.4: openssl
            # ca does, with a database of its own
            db = signer.dir / 'ca-db'
            db.mkdir()
            (db / 'index.txt').write_text('')
            (db / 'serial').write_text('1000\n')
            conf = signer.dir / 'ca.cnf'
            conf.write_text(
                '[ca]\ndefault_ca = this\n[this]\ndir = %s\n'
                'database = $dir/index.txt\nserial = $dir/serial\n'
                'new_certs_dir = $dir\ndefault_md = sha256\n'
                'policy = any\nunique_subject = no\n'
                '[any]\ncommonName = supplied\n' % db)
            openssl('ca', '-batch', '-config', conf, '-cert', self.pem,
                    '-keyfile', self.key, '-in', csr, '-startdate', start,
                    '-enddate', end, '-extfile', ext, '-notext', '-out',
                    signer.pem)
        return signer


class Signer:
    """A signer's key and (once issued) certificate."""

    def __init__(self, directory, key_type='RSA-PSS'):
        self.dir = pathlib.Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.key_type = key_type
        self.key = self.dir / 'signer.key'
        self.pem = self.dir / 'signer.pem'
        openssl('genpkey', *KEYS[key_type], '-out', self.key)

    def certificate(self):
        return self.pem.read_text()

    def sign(self, path, hash_method='SHA-256'):
        """img_signature of the file: base64 of openssl dgst's signature,
        RSA-PSS with the largest salt as cursive verifies it.
        """
        out = self.dir / ('%s.sig' % pathlib.Path(path).name)
        digest = '-' + hash_method.replace('-', '').lower()
        pss = ['-sigopt', 'rsa_padding_mode:pss', '-sigopt',
               'rsa_pss_saltlen:max'] if self.key_type == 'RSA-PSS' else []
        openssl('dgst', digest, *pss, '-sign', self.key, '-out', out, path)
        return base64.b64encode(out.read_bytes()).decode('ascii')
