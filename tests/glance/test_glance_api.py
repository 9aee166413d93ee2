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

"""Bitstream images through a real glance-api (keystone auth, the bitstream
store as default backend, the import plugin, property protections, the
create policy), driven with the real openstack CLI."""
import io
import subprocess
import uuid

import glanceclient
from glanceclient import exc as glance_exc
import pytest

from glance_store_bitstream import store
from nova_fpga import bitstream
from nova_fpga.bitstream import builder
from nova_fpga.bitstream import footprint as fp
from nova_fpga import catalogue
from nova_fpga.contract import shell
from nova_fpga.contract import traits
from nova_fpga_devtools.localcloud.process import BIN
from tests.agent.conftest import module_for
from tests.unit.bitstream import mutate
from tests.unit.bitstream import realfiles

REFERENCE = shell.load(shell.REFERENCE)
SHELL = REFERENCE.shell_id


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def import_image(cli, path, shell_id=SHELL, name=None):
    args = ['image', 'create', name or 'bs-%s' % uuid.uuid4().hex[:8],
            '--file', path, '--disk-format', 'raw',
            '--container-format', 'bare', '--import']
    if shell_id:
        args += ['--property', 'fpga_shell_id=%s' % shell_id]
    image = cli.json(*args)
    return cli.wait_import(image['id'])


def stray_files(glance, image_id):
    staged = list((glance.dir / 'staging').glob('*%s*' % image_id))
    stored = list(glance.store_dir('fpga').glob('*%s*' % image_id))
    return staged + stored


@pytest.mark.parametrize('name,data', [
    ('pr_0_add.bit', lambda: realfiles.read('pr_0_add.bit')),
    ('pr_0_sub.bit', lambda: realfiles.read('pr_0_sub.bit')),
    ('loopback-rp0', lambda: module_for('rp0')),
    ('loopback-rp1', lambda: module_for('rp1')),
    ('vtc-rp1', lambda: module_for('rp1', catalogue.module_id('vtc'))),
])
def test_partials_import_active_with_derived_properties(glance, bob,
                                                        tmp_path, name, data):
    payload = data()
    image = import_image(bob, write(tmp_path, name, payload))
    assert image['status'] == 'active', image
    props = image['properties']
    expected = traits.image_properties(bitstream.validate(payload), SHELL)
    for key, value in expected.items():
        assert props.get(key) == value, key
    assert traits.IMPORT_ERROR_PROPERTY not in props
    assert (image.get('stores') or props.get('stores')) == 'fpga'
    assert (glance.store_dir('fpga') / image['id']).read_bytes() == payload
    # one parse in one import: the store kept the plugin's, in this
    # glance-api process, and parsed nothing of its own
    verdicts = [line for line in glance.log.read_text().splitlines()
                if 'valid partial bitstream for' in line and
                ', footprint ' in line]
    assert verdicts and all(store.INSPECTED in line for line in verdicts)
    assert not any(store.PARSED in line for line in verdicts)
    assert not list((glance.dir / 'staging').glob('*%s*' % image['id']))
    downloaded = tmp_path / 'download'
    bob.run('image', 'save', image['id'], '--file', downloaded)
    assert downloaded.read_bytes() == payload


OTHER_REGION = fp.Footprint((fp.Block(0x00400100, 101 * 20),))


@pytest.mark.parametrize(
    'case,data,message',
    [
        (
            'not-a-bitstream',
            lambda: realfiles.read('NEGATIVE_microblaze_pmod_mailbox.bin'),
            'not a Xilinx bitstream',
        ),
        (
            'truncated',
            lambda: realfiles.read('pr_0_add.bit')[:300000],
            'declares 682404 bytes',
        ),
        (
            'bit-flip',
            lambda: mutate.flip_bit(realfiles.read('pr_0_add.bit'), 200000),
            'CRC check word',
        ),
        (
            'full-as-partial',
            lambda: realfiles.read('prio.bit'),
            'only partial bitstreams',
        ),
        (
            '7z010-partial',
            lambda: module_for('rp0', part='7z010clg400'),
            'bitstream for xc7z010, but shell %s is on xc7z020' % SHELL,
        ),
        (
            'other-footprint',
            lambda: builder.build_partial(
                '7z020clg400', 'x', 0x4E460001, OTHER_REGION
            ),
            'footprint %s matches no region of shell %s'
            % (OTHER_REGION.signature, SHELL),
        ),
    ],
)
def test_bad_imports_are_refused_and_leave_nothing(glance, bob, tmp_path,
                                                   case, data, message):
    image = import_image(bob, write(tmp_path, case, data()))
    assert image['status'] == 'queued'
    error = image['properties'][traits.IMPORT_ERROR_PROPERTY]
    assert message in error, error
    assert not any(k.startswith('trait:') for k in image['properties'])
    assert 'fpga_footprint' not in image['properties']
    assert stray_files(glance, image['id']) == []


def test_refused_imports_are_found_and_deleted_as_the_user_guide_says(
        glance, bob, tmp_path):
    """doc/source/user/images.rst: a refused image stays queued;
    ``openstack image list --status queued`` lists it among the user's
    images without data, ``openstack image show`` says why, and
    ``openstack image delete`` removes it with nothing left in Glance's
    staging area or the store.
    """
    name = 'refused-%s' % uuid.uuid4().hex[:6]
    refused = import_image(bob, write(tmp_path, name, b'\x5a' * 4096),
                           name=name)
    assert refused['status'] == 'queued'
    queued = {i['Name']: i['ID'] for i in bob.json(
        'image', 'list', '--status', 'queued')}
    assert queued.get(name) == refused['id'], queued
    shown = bob.json('image', 'show', name, '-c', 'status', '-c',
                     'properties')
    assert shown['status'] == 'queued'
    assert 'not a Xilinx bitstream' in \
        shown['properties'][traits.IMPORT_ERROR_PROPERTY]
    bob.run('image', 'delete', name)
    assert name not in {i['Name'] for i in bob.json(
        'image', 'list', '--status', 'queued')}
    assert stray_files(glance, refused['id']) == []


def test_wait_import_ends_with_glances_verdict_and_its_exit_status(
        glance, bob, tmp_path):
    """openstack image create --import returns before the import runs, exit
    0 either way; nova-fpga-bitstream wait-import, with the same
    credentials, waits for the verdict: exit 0 and the derived properties
    for a bitstream Glance took, exit 1 and Glance's reason for one it
    refused.
    """
    wait = [str(BIN / 'nova-fpga-bitstream'), 'wait-import', '--timeout',
            '120']
    for name, data, status, shown in (
            ('good', module_for('rp0'), 0, 'active: fpga_bitstream=partial'),
            ('7z010', module_for('rp0', part='7z010clg400'), 1,
             'import refused: bitstream for xc7z010, but shell %s is on '
             'xc7z020' % SHELL)):
        name = 'wait-%s-%s' % (name, uuid.uuid4().hex[:6])
        created = bob.run(
            'image', 'create', name, '--file', write(tmp_path, name, data),
            '--disk-format', 'raw', '--container-format', 'bare', '--import',
            '--property', 'fpga_shell_id=%s' % SHELL)
        assert created.returncode == 0     # whatever Glance will decide
        out = subprocess.run(wait + [name], env=bob.env, capture_output=True,
                             text=True, timeout=180)
        assert out.returncode == status, out.stdout + out.stderr
        assert shown in out.stdout, out.stdout
    out = subprocess.run(wait + ['no-such-image'], env=bob.env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and 'no-such-image' in out.stderr


def test_unregistered_shell_is_refused(glance, bob, tmp_path):
    other = str(uuid.uuid4())
    image = import_image(bob, write(tmp_path, 'x', module_for('rp0')),
                         shell_id=other)
    assert 'shell %s is not registered' % other in \
        image['properties'][traits.IMPORT_ERROR_PROPERTY]


def test_plain_upload_is_refused_with_the_reason_the_cli_shows(
    glance, bob, admin, tmp_path
):
    """openstack image create --file --property fpga_shell_id (no
    --import): the route filter sends the data to the bitstream store,
    which refuses valid data with the command that works and invalid data
    with the validator's words, both shown by the CLI; the SDK deletes the
    image it created for it.
    """
    stored = set(glance.store_dir('fpga').iterdir())
    good = bob.run('image', 'create', 'plain-good', '--file',
                   write(tmp_path, 'good', module_for('rp1')),
                   '--disk-format', 'raw', '--container-format', 'bare',
                   '--property', 'fpga_shell_id=%s' % SHELL, check=False)
    assert good.returncode != 0
    assert 'BadRequestException: 400' in good.stderr
    assert 'bitstreams must be uploaded with --import' in good.stderr
    assert 'openstack image create --import --property fpga_shell_id=%s ' \
        '--file BITSTREAM NAME' % SHELL in good.stderr
    bad = bob.run('image', 'create', 'plain-bad', '--file',
                  write(tmp_path, 'bad', mutate.flip_bit(module_for('rp1'),
                                                         99999)),
                  '--disk-format', 'raw', '--container-format', 'bare',
                  '--property', 'fpga_shell_id=%s' % SHELL, check=False)
    assert bad.returncode != 0 and 'CRC check word' in bad.stderr
    left = admin.json('image', 'list')
    assert not [i for i in left if i['Name'].startswith('plain-')]
    assert set(glance.store_dir('fpga').iterdir()) == stored


def test_vm_images_keep_glances_default_store(glance, bob, tmp_path):
    """Beside the boards, a cloud's VM images: uploaded or imported
    without fpga_shell_id, they go to Glance's default backend (a file
    store here) untouched, and nothing of them reaches the bitstream store.
    """
    stored = set(glance.store_dir('fpga').iterdir())
    disk = bytes(range(256)) * 4096     # any bytes: a disk image
    for how in ([], ['--import']):
        image = bob.json('image', 'create', 'vm-%s' % uuid.uuid4().hex[:6],
                         '--file', write(tmp_path, 'disk', disk),
                         '--disk-format', 'raw', '--container-format',
                         'bare', *how)
        image = bob.wait_import(image['id'])
        assert image['status'] == 'active', image
        assert (image.get('stores') or image['properties'].get(
            'stores')) == 'file'
        assert (glance.store_dir('file') / image['id']).read_bytes() == disk
        assert not any(k.startswith('fpga_') for k in image['properties'])
        bob.run('image', 'delete', image['id'])
    assert set(glance.store_dir('fpga').iterdir()) == stored


def _staged(keystone, user, name, data, shell_id=None):
    """An image with its data staged, not yet imported (what ``openstack
    image create`` without --file at a terminal, then ``openstack image
    stage``, do; here through python-glanceclient: without a terminal the
    CLI would upload its empty stdin).
    """
    client = glanceclient.Client('2', session=keystone.session(user))
    props = {'fpga_shell_id': shell_id} if shell_id else {}
    image = client.images.create(name=name, disk_format='raw',
                                 container_format='bare', **props)
    client.images.stage(image['id'], io.BytesIO(data))
    return image['id']


@pytest.mark.parametrize('store,shell_id,refusal', [
    ('fpga', SHELL, None),
    ('file', SHELL, 'a bitstream image is kept in the bitstream store '
     '(fpga), not in file: import it with --store fpga, or name no store'),
    ('fpga', None, 'store fpga keeps bitstream images only: an image '
     'imported into it declares fpga_shell_id'),
])
def test_the_import_names_the_bitstream_store_or_is_refused(
        glance, keystone, bob, store, shell_id, refusal):
    """openstack image import --store: a bitstream imported into the
    bitstream store is active there; a bitstream bound for another store,
    and anything else bound for the bitstream store, are refused, with
    the reason on the image and nothing left in either store.
    """
    data = module_for('rp0') if shell_id else bytes(4096)
    image_id = _staged(keystone, 'bob', 'to-%s' % store, data, shell_id)
    bob.run('image', 'import', image_id, '--method', 'glance-direct',
            '--store', store)
    image = bob.wait_import(image_id)
    if refusal is None:
        assert image['status'] == 'active', image
        assert (glance.store_dir(store) / image_id).read_bytes() == data
        return
    assert image['status'] == 'queued'
    assert refusal in image['properties'][traits.IMPORT_ERROR_PROPERTY]
    assert stray_files(glance, image_id) == []
    assert not list(glance.store_dir('file').glob('*%s*' % image_id))


def test_a_refused_upload_keeps_glances_reason(glance, keystone, bob):
    """python-glanceclient too shows Glance's message, and the image it
    created stays queued with no data anywhere.
    """
    client = glanceclient.Client('2', session=keystone.session('bob'))
    image = client.images.create(name='plain-bad', disk_format='raw',
                                 container_format='bare',
                                 fpga_shell_id=SHELL)
    with pytest.raises(glance_exc.HTTPBadRequest) as exc:
        client.images.upload(image['id'], io.BytesIO(
            mutate.flip_bit(module_for('rp1'), 99999)))
    assert 'CRC check word' in str(exc.value)
    assert client.images.get(image['id'])['status'] == 'queued'
    assert stray_files(glance, image['id']) == []
    client.images.delete(image['id'])


def test_policy_limits_who_creates_bitstreams(glance, alice, tmp_path):
    image = import_image(alice, write(tmp_path, 'a', module_for('rp0')))
    assert image['status'] == 'queued'
    assert 'fpga:bitstream:create' in \
        image['properties'][traits.IMPORT_ERROR_PROPERTY]
    alice.run('image', 'delete', image['id'])


def test_refused_uploads_always_say_why_and_leave_nothing(
    glance, alice, admin, tmp_path
):
    """20 plain uploads in a row (a CLI run of a few seconds each) by a
    project that may not create bitstreams: 20 clear 403s with the
    policy's reason (none a connection closed mid-upload), and no image
    left behind.
    """
    path = write(tmp_path, 'b', module_for('rp0'))
    before = {i['ID'] for i in admin.json('image', 'list')}
    stored = set(glance.store_dir('fpga').iterdir())
    answers = []
    for n in range(20):
        out = alice.run('image', 'create', 'alice-plain-%d' % n, '--file',
                        path, '--disk-format', 'raw', '--container-format',
                        'bare', '--property', 'fpga_shell_id=%s' % SHELL,
                        check=False)
        answers.append((out.returncode, out.stderr.strip()))
    unclear = [(n, err) for n, (rc, err) in enumerate(answers)
               if rc == 0 or 'ForbiddenException: 403' not in err
               or 'fpga:bitstream:create does not allow project' not in err]
    assert not unclear, unclear
    after = {i['ID'] for i in admin.json('image', 'list')}
    assert after == before
    assert set(glance.store_dir('fpga').iterdir()) == stored


def test_users_cannot_forge_derived_properties(glance, bob, admin, tmp_path):
    image = import_image(bob, write(tmp_path, 'p', module_for('rp0')))
    assert image['status'] == 'active'
    forged = bob.run('image', 'set', image['id'], '--property',
                     'fpga_footprint=%s' % ('0' * 32), check=False)
    assert forged.returncode != 0 and '403' in forged.stderr
    trait = 'trait:%s' % traits.footprint_trait('0' * 32)
    created = bob.run('image', 'create', 'forged', '--property',
                      '%s=required' % trait, '--disk-format', 'raw',
                      '--container-format', 'bare', check=False)
    assert created.returncode != 0 and '403' in created.stderr
    # Glance's words as it wrote them (no HTML escapes: issue 33)
    assert "Attribute '%s' is reserved." % trait in created.stderr, \
        created.stderr
    again = bob.json('image', 'show', image['id'])
    assert again['properties']['fpga_footprint'] == \
        image['properties']['fpga_footprint']
