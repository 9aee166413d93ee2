"""Helpers for tests that drive a whole demo cloud (localcloud.stack):
start one in a directory, the real openstack CLI as one of its users,
nova-fpga-demo on it, and a pid check that a zombie does not pass."""
import json
import os
import pathlib
import subprocess

import pytest

from nova_fpga.localcloud import process
from nova_fpga.localcloud import rabbitmq
from nova_fpga.localcloud import stack as localstack
from tests.conftest import REPORT

#: Servers used when they answer, else the stack starts private ones.
DATABASE_URL = os.environ.get('NOVA_FPGA_TEST_DATABASE_URL',
                              'mysql+pymysql://root@127.0.0.1/')
RABBIT_URL = os.environ.get('NOVA_FPGA_TEST_RABBIT_URL', rabbitmq.DEFAULT_URL)
DEMO = str(process.BIN / 'nova-fpga-demo')


def start(state_dir, **options):
    """A Stack up in state_dir (torn down again and the test failed with
    the service's log if it cannot start); options as for Stack."""
    options.setdefault('database_url', DATABASE_URL)
    options.setdefault('transport_url', RABBIT_URL)
    cloud = localstack.Stack(state_dir, die_with_parent=True, **options)
    try:
        cloud.up()
    except process.ServiceError as exc:
        cloud.down(purge=True)
        pytest.fail(str(exc), pytrace=False)
    REPORT.append('demo stack: up from scratch in %.0f s (%s); %.0f MB RSS '
                  'in %d processes (%s MariaDB/RabbitMQ not counted)' % (
                      cloud.timings['total'], ', '.join(
                          '%s %.1f s' % item for item in cloud.timings.items()
                          if item[0] != 'total'),
                      cloud.memory_kib() / 1024,
                      sum(len(pids) for pids in cloud.pids().values()),
                      'configured' if not cloud.state['database']['private']
                      else 'no'))
    return cloud


class CLI:
    """The real openstack CLI as one user of the cloud."""

    def __init__(self, cloud, user):
        self.env = dict(os.environ, **cloud.openrc(user))

    def run(self, *args, check=True):
        out = subprocess.run([str(process.BIN / 'openstack'),
                              *map(str, args)], env=self.env,
                             capture_output=True, text=True, timeout=300)
        if check and out.returncode:
            raise AssertionError('openstack %s failed: %s'
                                 % (' '.join(map(str, args)), out.stderr))
        return out

    def json(self, *args):
        return json.loads(self.run(*args, '-f', 'json').stdout)


def demo(cloud, *args):
    """nova-fpga-demo on the cloud's state directory; its stdout."""
    out = subprocess.run([DEMO, '--state-dir', str(cloud.dir), *args],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def alive(pid):
    """True while pid is a live process (a zombie counts as gone)."""
    try:
        text = pathlib.Path('/proc/%d/stat' % pid).read_text()
    except FileNotFoundError:
        return False
    return text[text.rindex(')') + 2] != 'Z'
