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
(tests/conftest.py).

Every glance_api() call starts its own glance-api (about 8 s) with the
options the test needs and stops it when the module ends.  A service that
cannot start fails the test with its log: nothing here skips.
"""
import pytest

from nova_fpga_devtools.localcloud.glance import Glance
from nova_fpga_devtools.localcloud import process


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
