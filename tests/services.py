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

"""What every test that drives real OpenStack services uses: the real
openstack CLI as one user, and a pid check that a zombie does not pass."""
import json
import os
import pathlib
import subprocess
import time

from nova_fpga.contract import traits
from nova_fpga_devtools.localcloud import keystone
from nova_fpga_devtools.localcloud import process

OPENSTACK = str(process.BIN / 'openstack')


class CLI:
    """The real openstack CLI with one user's openrc: a Keystone's,
    a Glance's or a demo cloud's openrc(user), or such a dict changed.
    """

    def __init__(self, openrc):
        # OS_* variables of the shell running the tests (a sourced
        # openrc's OS_CLOUD, say) would select another cloud or user.
        self.env = dict(keystone.without_client_variables(os.environ),
                        **openrc)

    def run(self, *args, check=True):
        out = subprocess.run([OPENSTACK, *map(str, args)], env=self.env,
                             capture_output=True, text=True, timeout=300)
        if check and out.returncode:
            raise AssertionError('openstack %s exited %d: %s' % (
                ' '.join(map(str, args)), out.returncode, out.stderr))
        return out

    def json(self, *args):
        return json.loads(self.run(*args, '-f', 'json').stdout)

    def wait_import(self, image_id, timeout=60):
        """The image once its import has ended: active, or back to queued
        with Glance's reason (Glance has no event to wait on: this polls).
        """
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            image = self.json('image', 'show', image_id)
            if image['status'] == 'active':
                return image
            props = image.get('properties') or {}
            if image['status'] == 'queued' and (
                    traits.IMPORT_ERROR_PROPERTY in props
                    or props.get('os_glance_failed_import')):
                return image
            time.sleep(0.5)
        raise AssertionError(
            'import of %s did not finish: %s' % (image_id, image)
        )


def alive(pid):
    """True while pid is a live process (a zombie counts as gone)."""
    try:
        text = pathlib.Path('/proc/%d/stat' % pid).read_text()
    except FileNotFoundError:
        return False
    return text[text.rindex(')') + 2] != 'Z'
