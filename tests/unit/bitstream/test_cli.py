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

"""nova-fpga-bitstream, run as the installed console script."""
import json
import shutil
import subprocess
import sys

import pytest

from nova_fpga import bitstream
from tests.unit.bitstream import realfiles


def cli(*args):
    exe = shutil.which('nova-fpga-bitstream', path=sys.prefix + '/bin')
    assert exe, 'the console script is not installed'
    return subprocess.run([exe, *map(str, args)], capture_output=True,
                          text=True, timeout=120)


def test_inspect_text_names_everything():
    out = cli('inspect', realfiles.path('pr_0_add.bit'))
    assert out.returncode == 0, out.stderr
    info = bitstream.validate(realfiles.read('pr_0_add.bit'))
    for needle in ('xc7z020 (Zynq-7000), IDCODE 0x03727093', 'partial',
                   'prio_wrapper', 'not declared', info.footprint.signature,
                   'verified (3 check words)', info.sha256,
                   'FAR 0x00420300'):
        assert needle in out.stdout


def test_inspect_json_is_the_library_description():
    out = cli('inspect', '--json', realfiles.path('prio.bit'))
    assert out.returncode == 0
    data = json.loads(out.stdout)
    expected = bitstream.validate(realfiles.read('prio.bit')).to_dict()
    assert {k: v for k, v in data.items() if k != 'file'} == expected
    assert data['kind'] == 'full'


@pytest.mark.parametrize('args,code,line', [
    (['--part', 'xc7z020', '--partial'], 0, 'OK '),
    (['--part', '7z010clg400'], 1, 'part: bitstream is for xc7z020, '
                                   'expected xc7z010'),
    (['--footprint', '00'], 1, 'footprint: FC'),
])
def test_verify_conditions(args, code, line):
    out = cli('verify', realfiles.path('pr_0_sub.bit'), *args)
    assert out.returncode == code
    assert out.stdout.count('\n') == 1 and line in out.stdout


def test_verify_wrong_part_full_and_not_a_bitstream():
    out = cli('verify', realfiles.path('ov5640_lcd_7010.bit'),
              '--part', 'xc7z020', '--partial')
    assert out.returncode == 1
    assert (
        'expected xc7z020' in out.stdout and 'expected partial' in out.stdout
    )
    out = cli('verify', realfiles.path('NEGATIVE_microblaze_pmod_mailbox.bin'))
    assert out.returncode == 2
    assert 'not a Xilinx bitstream' in out.stdout
    assert out.stdout.count('\n') == 1


def test_to_bin_and_build_round_trip(tmp_path):
    pr0 = realfiles.path('pr_0_add.bit')
    built = tmp_path / 'loopback.bit'
    out = cli('build', '--part', '7z020clg400', '--design', 'loopback',
              '--module-id', '0x4E460001', '--footprint', pr0, '-o', built)
    assert out.returncode == 0, out.stdout + out.stderr
    info = bitstream.validate(built.read_bytes())
    assert info.module_id == 0x4E460001
    assert info.footprint == bitstream.validate(realfiles.read(
        'pr_0_add.bit')).footprint
    # footprint from inspect --json works the same
    js = tmp_path / 'pr0.json'
    js.write_text(cli('inspect', '--json', pr0).stdout)
    again = tmp_path / 'again.bit'
    assert cli('build', '--part', '7z020clg400', '--design', 'x',
               '--module-id', '1', '--footprint', js, '-o',
               again).returncode == 0
    assert bitstream.validate(again.read_bytes()).footprint == info.footprint
    pcap = tmp_path / 'loopback.bin'
    out = cli('to-bin', built, '-o', pcap)
    assert out.returncode == 0
    raw = pcap.read_bytes()
    assert b'\x66\x55\x99\xaa' in raw[:64]  # sync in PCAP byte order
    assert bitstream.validate(raw).footprint == info.footprint
    assert cli('verify', pcap, '--partial', '--footprint',
               info.footprint.signature).returncode == 0


def test_to_bin_refuses_invalid_input_and_writes_nothing(tmp_path):
    out_file = tmp_path / 'out.bin'
    out = cli('to-bin', realfiles.path('NEGATIVE_microblaze_pmod_mailbox.bin'),
              '-o', out_file)
    assert out.returncode == 2
    assert not out_file.exists() and not list(tmp_path.iterdir())


def test_sign_makes_properties_that_cursive_and_the_board_verify(tmp_path):
    """A key and certificate made by openssl, as the user guide makes
    them; the properties sign prints are what Glance and nova (cursive)
    and the board (nova_fpga_agent.trust) verify the file's bytes with.
    """
    import shutil as sh

    from cryptography import x509
    from cursive import signature_utils

    from nova_fpga.contract import signature as sig
    from nova_fpga_agent import trust
    from nova_fpga_devtools import pki
    ca = pki.Authority(tmp_path / 'ca')
    data = realfiles.read('pr_0_add.bit')
    image = tmp_path / 'pr_0_add.bit'
    image.write_bytes(data)
    trusted = tmp_path / 'trusted'
    trusted.mkdir()
    sh.copy(ca.pem, trusted / 'ca.pem')
    for key_type, hash_method in (('RSA-PSS', 'SHA-256'),
                                  ('ECC_SECP384R1', 'SHA-384')):
        signer = ca.issue('builder-%s' % key_type.lower(), key_type)
        out = cli('sign', image, '--key', signer.key, '--certificate',
                  signer.pem, '--certificate-id', 'cert-uuid',
                  '--hash-method', hash_method, '--json')
        assert out.returncode == 0, out.stderr
        props = json.loads(out.stdout)
        assert props[sig.KEY_TYPE_PROPERTY] == key_type
        assert props[sig.HASH_METHOD_PROPERTY] == hash_method
        assert props[sig.CERTIFICATE_PROPERTY] == 'cert-uuid'
        public_key = x509.load_pem_x509_certificate(
            signer.pem.read_bytes()).public_key()
        check = signature_utils.SignatureKeyType.lookup(
            key_type).create_verifier(
            signature_utils.get_signature(props[sig.SIGNATURE_PROPERTY]),
            signature_utils.get_hash_method(hash_method), public_key)
        check.update(data)
        check.verify()  # raises InvalidSignature otherwise
        record = sig.BitstreamSignature.from_properties(
            props, signer.certificate())
        said = trust.Verifier(trust.TrustStore(trusted), True,
                              'board0').verify(data, record, 'img')
        assert said.startswith('signature by CN=builder-')
        # the text form is what openstack image create takes
        text = cli('sign', image, '--key', signer.key, '--certificate-id',
                   'cert-uuid', '--hash-method', hash_method)
        assert text.returncode == 0
        assert '--property img_signature_key_type=%s' % key_type in \
            text.stdout


def test_sign_refuses_a_key_that_is_not_the_certificates(tmp_path):
    from nova_fpga_devtools import pki
    ca = pki.Authority(tmp_path / 'ca')
    signer = ca.issue('builder')
    other = pki.Signer(tmp_path / 'other')
    image = tmp_path / 'm.bit'
    image.write_bytes(realfiles.read('pr_0_add.bit'))
    out = cli('sign', image, '--key', other.key, '--certificate', signer.pem,
              '--certificate-id', 'x')
    assert out.returncode == 2 and out.stdout == ''
    assert 'the certificate CN=builder is not the key\'s' in out.stderr
    ed = tmp_path / 'ed.key'
    pki.openssl('genpkey', '-algorithm', 'ED25519', '-out', ed)
    out = cli('sign', image, '--key', ed, '--certificate-id', 'x')
    assert out.returncode == 2
    assert 'a Ed25519 key signs no image OpenStack verifies' in out.stderr
    out = cli('sign', image, '--key', image, '--certificate-id', 'x')
    assert out.returncode == 2 and 'not a PEM private key' in out.stderr
