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

"""The local cloud is real: tokens, uploads, imports, and clean stops by pid.

Every check goes through the real openstack CLI with the openrc the runner
hands out, as the demo and the end-to-end tests will.
"""
import os
import time

import pytest

from nova_fpga_devtools.localcloud.glance import Glance
from nova_fpga_devtools.localcloud.keystone import Keystone
from nova_fpga_devtools.localcloud.keystone import USERS
from nova_fpga_devtools.localcloud import process
from tests.conftest import REPORT
from tests.services import alive
from tests.services import CLI

#: Only an admin may delete images: shows extra_files reach glance's policy.
POLICY = '"delete_image": "role:admin"\n'


@pytest.fixture(scope='module')
def glance(glance_api, keystone):
    api = glance_api(extra_conf={('DEFAULT', 'debug'): True},
                     extra_files={'policy.yaml': POLICY})
    REPORT.append(
        'localcloud: keystone started in %.1f s, glance-api in %.1f s'
        % (keystone.startup_seconds, api.startup_seconds)
    )
    return api


def image_create(cli, name, *args):
    return cli.json('image', 'create', '--disk-format', 'raw',
                    '--container-format', 'bare', *args, name)


def wait_status(cli, image_id, status, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        image = cli.json('image', 'show', image_id)
        if image['status'] == status:
            return image
        if image['status'] in ('killed', 'deleted') or \
                time.monotonic() > deadline:
            pytest.fail('image %s is %s, not %s, after %ss' % (
                image_id, image['status'], status, timeout), pytrace=False)
        time.sleep(0.5)


def raw_file(tmp_path, size=3 << 20):
    path = tmp_path / 'disk.raw'
    path.write_bytes(os.urandom(size))
    return path


@pytest.mark.parametrize('user', ['admin', 'alice', 'bob'])
def test_keystone_issues_tokens(keystone, user):
    token = CLI(keystone.openrc(user)).json('token', 'issue')
    project = keystone.admin.projects.get(token['project_id'])
    assert project.name == USERS[user][0]
    rc = (keystone.dir / ('openrc-%s' % user)).read_text()
    assert 'export OS_USERNAME=%s\n' % user in rc


def test_keystone_refuses_a_wrong_password(keystone):
    cli = CLI(dict(keystone.openrc('alice'), OS_PASSWORD='wrong'))
    result = cli.run('token', 'issue', check=False)
    assert result.returncode != 0
    assert '401' in result.stderr


def test_upload_goes_active_in_the_file_store(glance, tmp_path):
    data = raw_file(tmp_path)
    alice = CLI(glance.openrc('alice'))
    image = image_create(alice, 'uploaded', '--file', str(data))
    assert image['status'] == 'active'
    assert image['size'] == data.stat().st_size
    stored = glance.store_dir('file') / image['id']
    assert stored.read_bytes() == data.read_bytes()
    # bob's project does not see alice's image.
    hidden = CLI(glance.openrc('bob')).run('image', 'show', image['id'],
                                           check=False)
    assert hidden.returncode != 0


def test_glance_direct_import_goes_active_through_the_plugins(
    glance, tmp_path
):
    data = raw_file(tmp_path)
    alice = CLI(glance.openrc('alice'))
    image = image_create(alice, 'imported', '--import', '--file', str(data))
    image = wait_status(alice, image['id'], 'active')
    assert image['size'] == data.stat().st_size
    assert image['properties']['stores'] == 'file'
    assert (glance.store_dir('file') / image['id']).exists()
    assert 'No_op import plugin' in glance.process.log.read_text()
    assert not (glance.dir / 'staging' / image['id']).exists()


def test_extra_files_reach_glance_policy(glance):
    alice = CLI(glance.openrc('alice'))
    image = image_create(alice, 'undeletable')
    refused = alice.run('image', 'delete', image['id'], check=False)
    assert refused.returncode != 0
    CLI(glance.openrc('admin')).run('image', 'delete', image['id'])


def test_a_restart_keeps_port_and_images(glance, tmp_path):
    data = raw_file(tmp_path, 1 << 20)
    alice = CLI(glance.openrc('alice'))
    image = image_create(alice, 'kept', '--file', str(data))
    url = glance.url
    assert glance.stop()
    glance.start()
    assert glance.url == url
    shown = wait_status(alice, image['id'], 'active')
    assert shown['checksum'] == image['checksum']


def test_services_stop_by_pid_leaving_nothing(glance_api, tmp_path):
    api = glance_api()
    pids = api.process.pids()
    assert len(pids) >= 2, 'expected gunicorn master and worker: %s' % pids
    assert api.stop()
    assert not api.process.pid_file.exists()
    assert not [pid for pid in pids if alive(pid)]

    # The demo's path: another command finds and stops a cloud by its
    # state directory's pid files, glance before keystone.
    ks = Keystone(tmp_path, die_with_parent=False).start()
    api = Glance(ks, tmp_path, die_with_parent=False).start()
    running = process.services(tmp_path)
    assert sorted(running) == ['glance/glance-api', 'keystone/keystone']
    pids = running['glance/glance-api'] + running['keystone/keystone']
    assert len(pids) >= 4, running
    assert process.stop_all(tmp_path) == [
        'glance/glance-api',
        'keystone/keystone',
    ]
    assert not [pid for pid in pids if alive(pid)]
    assert process.services(tmp_path) == {}
    assert process.stop_all(tmp_path) == []


def test_a_service_that_cannot_start_is_named_with_its_log(keystone,
                                                           tmp_path):
    api = Glance(keystone, tmp_path,
                 extra_conf={('glance_store', 'default_backend'): 'nowhere'})
    with pytest.raises(process.ServiceError) as failed:
        api.start(timeout=60)
    message = str(failed.value)
    assert message.startswith('glance-api: ')
    assert 'last lines of %s' % api.log in message
    assert 'nowhere' in message
    assert not api.process.running()
    assert not api.process.pid_file.exists()
