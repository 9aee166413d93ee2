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

"""Fixtures: real glance-api on demand, against the session's keystone
(tests/conftest.py); the heterogeneous cloud (a board and the VM host)
the VM host's tests share.

Every glance_api() call starts its own glance-api (about 8 s) with the
options the test needs and stops it when the module ends.  A service that
cannot start fails the test with its log: nothing here skips.
"""
import json
import subprocess

import pytest

from nova_fpga_devtools.localcloud.glance import Glance
from nova_fpga_devtools.localcloud import process
from tests.localcloud.demo_cloud import start


@pytest.fixture(scope='module')
def glance_api(keystone, tmp_path_factory):
    """Factory: glance_api(extra_conf, extra_files, import_plugins,
    enabled_backends, default_backend) -> a started glance.Glance.
    """
    started = []

    def start(extra_conf=None, extra_files=None, import_plugins=('no_op',),
              enabled_backends=None, default_backend=None):
        api = Glance(
            keystone, tmp_path_factory.mktemp('glance'), extra_conf=extra_conf,
            extra_files=extra_files, import_plugins=import_plugins,
            enabled_backends=enabled_backends, default_backend=default_backend)
        try:
            api.start()
        except process.ServiceError as exc:
            pytest.fail(str(exc), pytrace=False)
        started.append(api)
        return api

    yield start
    for api in started:
        api.stop()


def links():
    """The root namespace's links (ip -j link show)."""
    out = subprocess.run(['ip', '-j', 'link', 'show'], capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out)


def netns_list():
    return subprocess.run(['ip', 'netns', 'list'], capture_output=True,
                          text=True, check=True).stdout


@pytest.fixture(scope='package')
def vm_host_cloud(tmp_path_factory):
    """A cloud of its own with one board and the VM host (vm_host=True),
    the board's data link and the VM host cabled to the emulated
    top-of-rack switch; shared by the VM host's test modules (one such
    cloud per run: CI time), purged at the end of this package, leaving
    no process, namespace or link.
    """
    cloud = start(tmp_path_factory.mktemp('vmhost'), boards=1, vm_host=True)
    tag = cloud._tag()
    prefix = cloud.domain_prefix()
    libvirt_dir = str(cloud.libvirt().dir)
    yield cloud
    cloud.down(purge=True)
    leftovers = subprocess.run(['ps', '-eo', 'pid,args'], capture_output=True,
                               text=True).stdout
    assert prefix not in leftovers and libvirt_dir not in leftovers, \
        leftovers
    assert tag not in netns_list()
    assert not [link['ifname'] for link in links() if tag in link['ifname']]
