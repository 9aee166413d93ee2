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

"""Signed bitstream images through the real API of the demo cloud, as a
tenant makes them (doc/source/user/signing.rst): keys and certificates made
by openssl, the certificates kept in the cloud's Barbican, the images
signed with nova-fpga-bitstream sign and imported with the openstack CLI.

board1 loads only signed bitstreams (as nova-fpga-demo up makes it) and
board0 is drained, so bob's servers go to board1.  A correctly signed vTC
boots there.  Each bad case is refused at the first layer that can see it,
with the reason shown to the tenant, and nothing is loaded or allocated:

- Glance, at import (cursive, with the certificate from Barbican): a
  signature by another key, data that is not what was signed, a hash method
  that did not make the signature or is none, a certificate the key manager
  does not have; and (the import plugin) a certificate out of its dates;
- nova's scheduler: an unsigned image (ZynqFilter keeps it off the board);
- the board (its trust store): a certificate from a CA the board does not
  trust, which Glance cannot check, and one that expired after the import;
- nova, when the server names trusted certificates
  (``--trusted-image-cert``): those two again, before any load is sent.
"""
import datetime
import subprocess
import time

import pytest

from nova_fpga.bitstream import builder
from nova_fpga import catalogue
from nova_fpga.contract import placement
from nova_fpga_devtools.localcloud import mariadb
from nova_fpga_devtools.localcloud import process
from nova_fpga_devtools import pki
from tests.e2e.conftest import import_error
from tests.e2e.conftest import PART
from tests.e2e.conftest import placement_get
from tests.e2e.conftest import REFERENCE
from tests.e2e import test_board_ops as board_ops

#: the board that requires signatures, and the one drained meanwhile
SIGNED_BOARD, OTHER_BOARD = 'board1', 'board0'
VTC = catalogue.module_id('vtc')
KEY_TYPE = 'ECC_SECP384R1'


def manage(cloud, admin, *args):
    """nova-fpga-manage board ... as admin; its output."""
    out = board_ops.manage(cloud, admin, *args)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def restart_agent(cloud, board, signed_only):
    """The board's agent again, with [agent] require_signed_bitstreams as
    asked (the stack's state says which boards require signatures).
    """
    wanted = set(cloud.state.get('signed_only_boards', ()))
    (wanted.add if signed_only else wanted.discard)(board)
    cloud.state['signed_only_boards'] = sorted(wanted)
    cloud._save_state()
    agent = cloud.board(board)
    # this test's Board did not start it: stopped by its pid file (the
    # group leader's pid: its privileged helpers are in the group too, so
    # a member's pid may be a helper's), as down() stops it
    cloud.stop('boards/%s/agent' % board)
    assert not cloud.pids().get('boards/%s/agent' % board)
    client, transport = cloud.agent_client()
    try:
        agent.start(client)
    finally:
        transport.cleanup()


def node_stats(cloud, board):
    """The board's compute node stats as nova-compute last wrote them (what
    the scheduler's filters read).
    """
    connection = mariadb.connect(cloud.state['database']['url'])
    try:
        with connection.cursor() as cursor:
            cursor.execute('SELECT stats FROM `%s`.compute_nodes WHERE '
                           'hypervisor_hostname = %%s AND deleted = 0'
                           % cloud.state['databases']['nova'], (board,))
            (stats,), = cursor.fetchall()
    finally:
        connection.close()
    return stats or ''


def wait_signed_only(cloud, board, signed_only, timeout=60):
    """Until nova-compute's resource update has published the board's
    policy to the scheduler (update_resources_interval: 5 s here).
    """
    deadline = time.monotonic() + timeout
    while (placement.SIGNED_ONLY in node_stats(cloud, board)) != signed_only:
        assert time.monotonic() < deadline, node_stats(cloud, board)
        time.sleep(1)


@pytest.fixture(scope='module')
def signed_board(cloud, admin):
    restart_agent(cloud, SIGNED_BOARD, True)
    manage(cloud, admin, 'drain', OTHER_BOARD)
    try:
        wait_signed_only(cloud, SIGNED_BOARD, True)
        assert 'signed only' in manage(cloud, admin, 'show', SIGNED_BOARD)
        yield SIGNED_BOARD
    finally:
        manage(cloud, admin, 'undrain', OTHER_BOARD)
        restart_agent(cloud, SIGNED_BOARD, False)
        wait_signed_only(cloud, SIGNED_BOARD, False)


class Tenant:
    """bob's signing work: certificates stored in Barbican, images signed
    and imported, all deleted at the end.
    """

    def __init__(self, cli, work):
        self.cli, self.work = cli, work
        self.secrets, self.images = [], []

    def store(self, name, pem):
        """The certificate in Barbican as castellan keeps one (PEM bytes,
        base64 on the wire); its ID.
        """
        href = self.cli.run(
            'secret', 'store', '--name', name, '--secret-type',
            'certificate', '--payload-content-type',
            'application/octet-stream', '--payload-content-encoding',
            'base64', '--payload', pki.base64_of(pem), '-f', 'value', '-c',
            'Secret href').stdout.strip()
        self.secrets.append(href)
        return href.rsplit('/', 1)[-1]

    def sign(self, path, key, certificate_id, hash_method='SHA-256'):
        """The --property options nova-fpga-bitstream sign prints."""
        out = subprocess.run(
            [str(process.BIN / 'nova-fpga-bitstream'), 'sign', str(path),
             '--key', str(key), '--certificate-id', certificate_id,
             '--hash-method', hash_method], capture_output=True, text=True,
            timeout=60)
        assert out.returncode == 0, out.stderr
        return out.stdout.split()

    def import_image(self, name, path, properties):
        image = self.cli.json(
            'image', 'create', name, '--file', path, '--disk-format', 'raw',
            '--container-format', 'bare', '--import', '--property',
            'fpga_shell_id=%s' % REFERENCE.shell_id, *properties)
        self.images.append(image['id'])
        return self.cli.wait_import(image['id'])

    def clean(self):
        for image_id in self.images:
            self.cli.run('image', 'delete', image_id, check=False)
        for href in self.secrets:
            self.cli.run('secret', 'delete', href, check=False)


@pytest.fixture(scope='module')
def tenant(bob, tmp_path_factory):
    made = Tenant(bob, tmp_path_factory.mktemp('signing'))
    yield made
    made.clean()


@pytest.fixture(scope='module')
def vtc(tenant):
    """The vTC for rp1, as built, and a second build of it (another seed:
    also a well-formed partial for rp1, but not the bytes that were
    signed).
    """
    paths = []
    for seed in (0, 1):
        path = tenant.work / ('vtc_rp1_%d.bit' % seed)
        path.write_bytes(builder.build_partial(
            PART, 'vtc_rp1', VTC, REFERENCE.region('rp1').footprint,
            seed=seed))
        paths.append(path)
    return paths


@pytest.fixture(scope='module')
def authority(cloud):
    """The demo cloud's bitstream-signing CA, whose certificate every
    board trusts.
    """
    return cloud.signing_authority()


@pytest.fixture(scope='module')
def signer(authority, tenant):
    """bob's signing key, its certificate from the cloud's CA, in
    Barbican.
    """
    made = authority.issue('e2e-bob', key_type=KEY_TYPE)
    made.id = tenant.store('e2e-bob', made.pem)
    return made


@pytest.fixture(scope='module')
def signed(tenant, signer, vtc):
    image = tenant.import_image('e2e-vtc-signed', vtc[0], tenant.sign(
        vtc[0], signer.key, signer.id))
    assert image['status'] == 'active', image
    return image['id']


@pytest.fixture(scope='module')
def ca_id(tenant, authority):
    """The CA's certificate in Barbican, for --trusted-image-cert."""
    return tenant.store('e2e-bitstream-ca', authority.pem)


def nothing_left(cloud, board, server_id):
    assert cloud.region_holding(board, server_id) is None
    assert placement_get(cloud, '/allocations/%s' % server_id)[
        'allocations'] == {}


def test_a_signed_vtc_boots_on_the_board_that_requires_signatures(
        cloud, signed_board, signed, servers, ca_id):
    server_id = servers.create('e2e-signed', signed)
    shown = servers.show(server_id)
    assert shown['status'] == 'ACTIVE', shown
    assert shown['OS-EXT-SRV-ATTR:hypervisor_hostname'] == signed_board
    assert cloud.region_holding(signed_board, server_id) == 'rp1'
    log = cloud.board(signed_board).log.read_text()
    assert 'signature by CN=e2e-bob (%s, SHA-256) verified' % KEY_TYPE \
        in log, log[-2000:]
    servers.delete_all()
    # nova checks the certificate too when the server names the CA
    server = servers.cli.json(
        '--os-compute-api-version', '2.63', 'server', 'create', '--flavor',
        servers.flavor, '--image', signed, '--nic', 'none',
        '--trusted-image-cert', ca_id, 'e2e-signed-trusted', '--wait')
    servers.ids.append(server['id'])
    assert server['status'] == 'ACTIVE', server
    assert cloud.region_holding(signed_board, server['id']) == 'rp1'


def _wrong_key(authority, signer, vtc, tenant):
    other = pki.Signer(tenant.work / 'e2e-other', KEY_TYPE)
    return vtc[0], tenant.sign(vtc[0], other.key, signer.id)


def _other_data(authority, signer, vtc, tenant):
    # signed one build, uploads the other
    return vtc[1], tenant.sign(vtc[0], signer.key, signer.id)


def _other_hash(authority, signer, vtc, tenant):
    props = tenant.sign(vtc[0], signer.key, signer.id)
    return vtc[0], [p.replace('hash_method=SHA-256', 'hash_method=SHA-512')
                    for p in props]


def _no_hash(authority, signer, vtc, tenant):
    props = tenant.sign(vtc[0], signer.key, signer.id)
    return vtc[0], [p.replace('hash_method=SHA-256', 'hash_method=MD5')
                    for p in props]


def _unknown_certificate(authority, signer, vtc, tenant):
    return vtc[0], tenant.sign(vtc[0], signer.key,
                               '0b9cb1a4-5b39-4b44-9d0d-2f1b1f6d9a11')


def _expired(authority, signer, vtc, tenant):
    # a correct signature, which Glance's own verification passes: the
    # import plugin checks the certificate's dates
    old = authority.issue('e2e-expired', key_type=KEY_TYPE,
                          start='20240101000000Z', end='20250101000000Z')
    return vtc[0], tenant.sign(vtc[0], old.key,
                               tenant.store('e2e-expired', old.pem))


@pytest.mark.parametrize('case, reason', [
    (_wrong_key, 'Signature verification failed'),
    (_other_data, 'Signature verification failed'),
    (_other_hash, 'Signature verification failed'),
    (_no_hash, 'Invalid signature hash method: MD5'),
    (_unknown_certificate, 'Certificate not found with ID: '
     '0b9cb1a4-5b39-4b44-9d0d-2f1b1f6d9a11'),
    (_expired, 'the signer certificate CN=e2e-expired is valid from '
     '2024-01-01T00:00:00+00:00 to 2025-01-01T00:00:00+00:00, not now'),
], ids=['wrong key', 'data not signed', 'wrong hash method',
        'no such hash method', 'certificate not in Barbican', 'expired'])
def test_glance_refuses_a_bad_signature_at_import(
        case, reason, authority, signer, vtc, tenant):
    path, props = case(authority, signer, vtc, tenant)
    name = 'e2e-bad-%s' % case.__name__.strip('_')
    image = tenant.import_image(name, path, props)
    assert image['status'] == 'queued', image
    assert reason in import_error(image), image
    # what the tenant runs to wait for an import says why, and fails
    out = subprocess.run(
        [str(process.BIN / 'nova-fpga-bitstream'), 'wait-import', name],
        env=tenant.cli.env, capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert reason in out.stdout + out.stderr, out


#: seconds a certificate of the tests lives, tried in turn: long enough to
#: import an image signed under it (the import checks its dates), then it
#: has expired when its server is created.  A slow machine takes longer
#: than the first to store, sign and import; the next is tried then.
SHORT_LIVES = (30, 90, 270)


def _import_short_lived(authority, tenant, vtc):
    """An image signed under a certificate of the cloud's CA that Glance
    takes, and the time its certificate ends: the first of SHORT_LIVES
    that outlives the import.  An import refused for anything but the
    certificate's end fails the test.
    """
    stamp = '%Y%m%d%H%M%SZ'
    for attempt, life in enumerate(SHORT_LIVES):
        now = datetime.datetime.now(datetime.timezone.utc)
        ends = now + datetime.timedelta(seconds=life)
        short = authority.issue(
            'e2e-short-lived-%d' % attempt, key_type=KEY_TYPE,
            start=(now - datetime.timedelta(minutes=5)).strftime(stamp),
            end=ends.strftime(stamp))
        cert_id = tenant.store('e2e-expired-%d' % attempt, short.pem)
        image = tenant.import_image(
            'e2e-vtc-expired-%d' % attempt, vtc[0],
            tenant.sign(vtc[0], short.key, cert_id))
        if image['status'] == 'active':
            return image, short, ends
        # only the end of the certificate's life may have come first
        assert image['status'] == 'queued', image
        assert 'the signer certificate CN=%s is valid from' % short.dir.name \
            in import_error(image), image
    raise AssertionError('no import outlived a certificate of %d s' % life)


@pytest.fixture(scope='module')
def out_of_reach(authority, tenant, vtc):
    """{case: (image, CN, the board's reason, nova's reason)}: images that
    Glance takes (their signatures verify, their certificates are within
    their dates at import) and a board must refuse: signed under a
    certificate of a CA no board trusts, and under one of the cloud's CA
    that has expired since the import.
    """
    rogue = pki.Authority(tenant.work / 'rogue', name='e2e rogue CA')
    mallory = rogue.issue('e2e-mallory', key_type=KEY_TYPE)
    cert_id = tenant.store('e2e-untrusted', mallory.pem)
    image = tenant.import_image('e2e-vtc-untrusted', vtc[0], tenant.sign(
        vtc[0], mallory.key, cert_id))
    assert image['status'] == 'active', image
    made = {'untrusted': (
        image['id'], mallory.dir.name,
        'is not issued by a certificate authority board %s trusts '
        '(issuer CN=e2e rogue CA)' % SIGNED_BOARD,
        'Certificate chain building failed')}
    image, short, ends = _import_short_lived(authority, tenant, vtc)
    made['expired'] = (image['id'], short.dir.name, 'is valid from',
                       'The certificate is outside its valid date range')
    # until the short-lived certificate has expired
    time.sleep(max(0.0, (ends - datetime.datetime.now(
        datetime.timezone.utc)).total_seconds() + 1))
    return made


@pytest.mark.parametrize('case', ['expired', 'untrusted'])
def test_the_board_refuses_what_glance_passed(
        case, cloud, signed_board, out_of_reach, servers):
    image, cn, reason, _ = out_of_reach[case]
    server_id = servers.create('e2e-%s' % case, image, wait=False)
    server = servers.wait_for(server_id, lambda s: s['status'] != 'BUILD')
    assert server['status'] == 'ERROR', server
    assert 'board %s refused the load: the signer certificate CN=%s %s' % (
        signed_board, cn, reason) in server['fault']['message'], server
    # the tenant reads it too
    assert reason in servers.cli.json('server', 'show', server_id)[
        'fault']['message']
    nothing_left(cloud, signed_board, server_id)


@pytest.mark.parametrize('case', ['expired', 'untrusted'])
def test_nova_refuses_them_first_given_trusted_certificates(
        case, cloud, signed_board, out_of_reach, servers, ca_id):
    image, _, _, reason = out_of_reach[case]
    server = servers.cli.json(
        '--os-compute-api-version', '2.63', 'server', 'create', '--flavor',
        servers.flavor, '--image', image, '--nic', 'none',
        '--trusted-image-cert', ca_id, 'e2e-trusted-%s' % case)
    servers.ids.append(server['id'])
    shown = servers.wait_for(server['id'], lambda s: s['status'] != 'BUILD')
    assert shown['status'] == 'ERROR', shown
    message = shown['fault']['message']
    assert 'Image signature certificate validation failed' in message, shown
    assert reason in message, shown
    # no load was sent: the board never heard of the server
    assert server['id'] not in cloud.board(signed_board).log.read_text()
    nothing_left(cloud, signed_board, server['id'])


def test_an_unsigned_image_is_kept_off_the_board(cloud, signed_board, images,
                                                 servers):
    server_id = servers.create('e2e-unsigned', images['e2e-vtc-rp1'],
                               wait=False)
    server = servers.wait_for(server_id, lambda s: s['status'] != 'BUILD')
    assert server['status'] == 'ERROR', server
    assert 'No valid host was found' in server['fault']['message']
    log = (cloud.dir / 'nova' / 'nova-scheduler.log').read_text()
    assert 'board %s loads only signed bitstreams and image %s has no ' \
        'signature' % (signed_board, images['e2e-vtc-rp1']) in log
    nothing_left(cloud, signed_board, server_id)
