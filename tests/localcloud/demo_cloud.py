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

"""Helpers for tests that drive a whole demo cloud (localcloud.stack):
start one in a directory, and nova-fpga-demo on it."""
import os
import subprocess

import pytest

from nova_fpga_devtools.localcloud import process
from nova_fpga_devtools.localcloud import rabbitmq
from nova_fpga_devtools.localcloud import stack as localstack
from tests.conftest import REPORT

#: Servers used when they answer, else the stack starts private ones.
DATABASE_URL = os.environ.get('NOVA_FPGA_TEST_DATABASE_URL',
                              'mysql+pymysql://root@127.0.0.1/')
RABBIT_URL = os.environ.get('NOVA_FPGA_TEST_RABBIT_URL', rabbitmq.DEFAULT_URL)
DEMO = str(process.BIN / 'nova-fpga-demo')


def start(state_dir, **options):
    """A Stack up in state_dir (torn down again and the test failed with
    the service's log if it cannot start); options as for Stack.
    """
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


def demo(cloud, *args, env=None, stderr=False):
    """nova-fpga-demo on the cloud's state directory (in env, default
    os.environ); its stdout, or (stdout, stderr) if stderr.
    """
    out = subprocess.run([DEMO, '--state-dir', str(cloud.dir), *args],
                         capture_output=True, text=True, timeout=600,
                         env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    return (out.stdout, out.stderr) if stderr else out.stdout
