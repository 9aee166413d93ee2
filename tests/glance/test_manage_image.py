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

"""nova-fpga-manage image create against real keystone and glance-api: the
import flow with the conventions, Glance's verdict reported, bad files
refused before anything reaches the cloud."""
import os
import subprocess
import sys

from nova_fpga.contract import shell
from tests.agent import conftest as agent_fixtures
from tests.conftest import realdata_path

MANAGE = os.path.join(sys.prefix, 'bin', 'nova-fpga-manage')
SHELL_ID = shell.load(shell.REFERENCE).shell_id


def manage(cli, *args):
    return subprocess.run([MANAGE, *map(str, args)], env=cli.env,
                          capture_output=True, text=True, timeout=300)


def images_named(cli, name):
    return [i for i in cli.json('image', 'list') if i['Name'] == name]


def test_image_create_imports_with_the_conventions(glance, bob, tmp_path):
    path = tmp_path / 'loopback_rp0.bit'
    path.write_bytes(agent_fixtures.module_for('rp0'))
    out = manage(bob, 'image', 'create', 'manage-loopback', path,
                 '--shell-id', SHELL_ID)
    assert out.returncode == 0, out.stderr
    assert 'active' in out.stdout
    [listed] = images_named(bob, 'manage-loopback')
    image = bob.json('image', 'show', listed['ID'])
    assert (image['disk_format'], image['container_format']) == ('raw', 'bare')
    props = image['properties']
    assert props['fpga_shell_id'] == SHELL_ID
    assert props['fpga_partial'] in (True, 'True', 'true')
    assert any(k.startswith('trait:CUSTOM_FPGA_') for k in props)
    # what the command printed is what Glance derived
    assert 'fpga_sha256=%s' % props['fpga_sha256'] in out.stdout


def test_wrong_device_is_refused_with_glances_reason(glance, bob):
    path = realdata_path('bitstreams', 'pynq_atk_2.5.6', 'ov5640_lcd_7010.bit')
    out = manage(bob, 'image', 'create', 'manage-7z010', path,
                 '--shell-id', SHELL_ID)
    assert out.returncode == 1
    assert 'Glance refused image' in out.stderr
    assert '7z010' in out.stderr
    [image] = images_named(bob, 'manage-7z010')
    assert image['Status'] == 'queued'  # refused: no data kept


def test_not_a_bitstream_never_reaches_glance(glance, bob):
    path = realdata_path('bitstreams', 'pynq_atk_2.5.6',
                         'NEGATIVE_microblaze_pmod_mailbox.bin')
    out = manage(bob, 'image', 'create', 'manage-negative', path,
                 '--shell-id', SHELL_ID)
    assert out.returncode == 1
    assert out.stderr.startswith('nova-fpga-manage: ')
    assert 'sync' in out.stderr.lower() or 'bitstream' in out.stderr.lower()
    assert images_named(bob, 'manage-negative') == []
