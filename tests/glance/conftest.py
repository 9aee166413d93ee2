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

"""Fixtures for Glance: the global CONF glance's code reads, glance-api
with the bitstream store on the session's keystone (tests/conftest.py),
and the openstack CLI as its users."""
from oslo_config import cfg
import pytest

from nova_fpga_devtools.localcloud import glance as localglance
from tests.services import CLI


@pytest.fixture(scope='module', autouse=True)
def glance_conf():
    """glance_store and oslo.policy read the global CONF, parsed (empty) as
    in glance-api; cleared afterwards, so nova's fixtures can parse it.
    """
    cfg.CONF([], project='glance', default_config_files=[])
    yield cfg.CONF
    cfg.CONF.clear()


@pytest.fixture(scope='module')
def glance(keystone, tmp_path_factory):
    """glance-api as nova-fpga deploys it (localglance.bitstream_glance):
    the bitstream store by default, the import plugin, the reference shell,
    property protections, bitstream creation for fpga-builders.
    """
    builders = keystone.admin.projects.find(name='fpga-builders').id
    g = localglance.bitstream_glance(
        keystone, tmp_path_factory.mktemp('glance'), builders)
    g.start()
    yield g
    g.stop()


@pytest.fixture(scope='module')
def admin(keystone):
    return CLI(keystone.openrc('admin'))


@pytest.fixture(scope='module')
def bob(keystone):
    return CLI(keystone.openrc('bob'))


@pytest.fixture(scope='module')
def alice(keystone):
    return CLI(keystone.openrc('alice'))
