"""Fixtures for Glance: the global CONF glance's code reads, a real
keystone and glance-api with the bitstream store, and the openstack CLI."""
from oslo_config import cfg


import json  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

import pytest  # noqa: E402

from glance_store_bitstream import policy  # noqa: E402
from nova_fpga import shell  # noqa: E402
from nova_fpga.localcloud import glance as localglance  # noqa: E402
from nova_fpga.localcloud import keystone as localkeystone  # noqa: E402

ETC = os.path.join(os.path.dirname(policy.__file__), 'etc')
OPENSTACK = os.path.join(sys.prefix, 'bin', 'openstack')


@pytest.fixture(scope='module', autouse=True)
def glance_conf():
    """glance_store and oslo.policy read the global CONF, parsed (empty) as
    in glance-api; cleared afterwards, so nova's fixtures can parse it."""
    cfg.CONF([], project='glance', default_config_files=[])
    yield cfg.CONF
    cfg.CONF.clear()


@pytest.fixture(scope='session')
def keystone(tmp_path_factory):
    ks = localkeystone.Keystone(tmp_path_factory.mktemp('cloud'))
    ks.start()
    yield ks
    ks.stop()


@pytest.fixture(scope='module')
def glance(keystone, tmp_path_factory):
    """glance-api with the bitstream store as default backend, the import
    plugin, the reference shell registered, property protections, and a
    policy that lets the fpga-builders project create bitstream images."""
    builders = keystone.admin.projects.find(name='fpga-builders').id
    with open(os.path.join(ETC, 'property-protections-roles.conf')) as f:
        protections = f.read()
    state = tmp_path_factory.mktemp('glance')
    g = localglance.Glance(
        keystone, state,
        enabled_backends={'fpga': 'bitstream', 'file': 'file'},
        default_backend='fpga',
        import_plugins=['fpga_bitstream_inspection'],
        extra_files={
            'property-protections.conf': protections,
            'policy.yaml': '"%s": "role:admin or project_id:%s"\n'
                           % (policy.CREATE, builders)},
        extra_conf={
            ('fpga', 'filesystem_store_datadir'):
                state / 'glance' / 'images' / 'fpga',
            ('fpga', 'bitstream_allowed_devices'): 'xc7z020',
            ('bitstream_import', 'shell_manifests'): str(shell.REFERENCE),
            ('DEFAULT', 'property_protection_file'):
                'property-protections.conf',
            ('DEFAULT', 'property_protection_rule_format'): 'roles',
            ('oslo_policy', 'policy_file'): 'policy.yaml',
        })
    g.start()
    yield g
    g.stop()


class CLI:
    """The real openstack CLI as one user."""

    def __init__(self, keystone, user):
        self.env = dict(os.environ, **keystone.openrc(user))

    def run(self, *args, check=True):
        out = subprocess.run([OPENSTACK, *map(str, args)], env=self.env,
                             capture_output=True, text=True, timeout=120)
        if check and out.returncode:
            raise AssertionError('openstack %s failed: %s'
                                 % (' '.join(map(str, args)), out.stderr))
        return out

    def json(self, *args):
        return json.loads(self.run(*args, '-f', 'json').stdout)


@pytest.fixture(scope='module')
def admin(keystone):
    return CLI(keystone, 'admin')


@pytest.fixture(scope='module')
def bob(keystone):
    return CLI(keystone, 'bob')


@pytest.fixture(scope='module')
def alice(keystone):
    return CLI(keystone, 'alice')
