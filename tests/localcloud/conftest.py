"""Fixtures: a real keystone per test session, real glance-api on demand.

Keystone takes about 11 s to set up, so one serves the whole session; every
glance_api() call starts its own glance-api (about 8 s) with the options the
test needs and stops it when the module ends.  A service that cannot start
fails the test with its log: nothing here skips.
"""
import os
import subprocess

import pytest

from nova_fpga.localcloud import process
from nova_fpga.localcloud.glance import Glance
from nova_fpga.localcloud.keystone import Keystone

OPENSTACK = str(process.BIN / 'openstack')


@pytest.fixture(scope='session')
def keystone(tmp_path_factory):
    """A started Keystone with admin, glance, alice (demo), bob (fpga-builders)."""
    ks = Keystone(tmp_path_factory.mktemp('cloud'))
    try:
        ks.start()
    except process.ServiceError as exc:
        pytest.fail(str(exc), pytrace=False)
    yield ks
    ks.stop()


@pytest.fixture(scope='module')
def glance_api(keystone, tmp_path_factory):
    """Factory: glance_api(extra_conf, extra_files, import_plugins,
    enabled_backends, default_backend) -> a started glance.Glance."""
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


def openstack(env, *args, check=True):
    """Run the real openstack CLI with an openrc; fail with its stderr."""
    result = subprocess.run([OPENSTACK, *args], env=dict(os.environ, **env),
                            capture_output=True, text=True, timeout=120)
    if check and result.returncode:
        pytest.fail('openstack %s exited %s:\n%s' % (
            ' '.join(args), result.returncode, result.stderr), pytrace=False)
    return result
