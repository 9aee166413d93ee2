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

"""The board role, installed as a board installs it: nova-fpga from a copy
of the checkout (not editable) pinned by constraints.txt, in a virtualenv
of its own, then the board emulator (agent/emulator, without HDL).

It shows that the cloud services are not there, that the agent from that
virtualenv serves describe and loads a real Vivado partial over RabbitMQ,
that no development tool came along, and that without the emulator a
``backend = sim`` agent says which backends are installed.  pip takes the
wheels from its cache; the figures section reports how long it took.
"""
import hashlib
import json
import shutil
import subprocess
import sys
import time
import uuid

import pytest

from nova_fpga.contract import states
from tests.agent.processes import AgentProcess
from tests.agent.processes import client_for
from tests.conftest import REPORT
from tests.conftest import ROOT
from tests.unit.bitstream import realfiles

#: not part of a source checkout a board would build from
NOT_SOURCE = ('.venv', '.git', '.build', '.state', '.tox', 'build',
              '*.egg-info', '__pycache__', 'sim_build')
CLOUD = ('nova', 'glance', 'glance_store', 'placement', 'neutron',
         'keystone')
CLOUD_DISTRIBUTIONS = ('nova', 'glance', 'glance-store',
                       'openstack-placement', 'neutron', 'keystone')
TOOLS = ('nova-fpga-devtools', 'nova-fpga-emulator')

# What the board's Python can import, run in the board's virtualenv (-I:
# not the checkout's packages from the working directory).
PROBE = '''
import importlib.metadata as md
import importlib.util
import json
import sys

def dist(name):
    try:
        return md.distribution(name).version
    except md.PackageNotFoundError:
        return None

def spec(name):
    found = importlib.util.find_spec(name)
    return found and {'origin': found.origin,
                      'path': list(found.submodule_search_locations or [])}

from nova_fpga.contract import shell
json.dump({
    'modules': {name: spec(name) for name in sys.argv[1].split(',')},
    'nova_code': [name for name in ('nova.virt.driver', 'nova.compute')
                  if spec('nova') and spec(name)],
    'distributions': {name: dist(name) for name in sys.argv[2].split(',')},
    'scripts': {ep.name: d.metadata['Name'] for d in md.distributions()
                for ep in d.entry_points if ep.group == 'console_scripts'},
    'manifest': str(shell.REFERENCE),
}, sys.stdout)
'''


def run(command, timeout=600):
    result = subprocess.run([str(c) for c in command], capture_output=True,
                            text=True, timeout=timeout)
    if result.returncode:
        pytest.fail('%s failed (%d):\n%s' % (
            ' '.join(map(str, command)), result.returncode,
            (result.stdout + result.stderr)[-4000:]), pytrace=False)
    return result.stdout


def pip_install(venv, what):
    """This test environment's pip, installing into the board's venv."""
    run([sys.executable, '-m', 'pip', '--python', venv / 'bin' / 'python',
         'install', '-q', '--no-compile', '--no-input',
         '-c', ROOT / 'constraints.txt', what])


def agent_without_emulator(venv, manifest, state_dir):
    """The venv's agent with backend = sim: (exit status, its output)."""
    conf = state_dir.parent / 'noemu.conf'
    conf.write_text('[agent]\nboard_name = noemu\nmanifest = %s\n'
                    'state_dir = %s\nbackend = sim\n' % (manifest, state_dir))
    result = subprocess.run([venv / 'bin' / 'nova-fpga-agent',
                             '--config-file', conf], capture_output=True,
                            text=True, timeout=120)
    return result.returncode, result.stdout + result.stderr


@pytest.fixture(scope='module')
def board(tmp_path_factory):
    """The board's virtualenv, what it showed without the emulator, and
    what its Python can import with the emulator installed.
    """
    top = tmp_path_factory.mktemp('board-role')
    src = top / 'src'
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    venv = top / 'venv'
    began = time.monotonic()
    run([sys.executable, '-m', 'venv', '--without-pip', venv])
    pip_install(venv, src)
    base = time.monotonic() - began
    probe = json.loads(run([venv / 'bin' / 'python', '-I', '-c', PROBE,
                            ','.join(CLOUD), ','.join(CLOUD_DISTRIBUTIONS)]))
    without = agent_without_emulator(venv, probe['manifest'],
                                     top / 'noemu')
    began = time.monotonic()
    pip_install(venv, src / 'agent' / 'emulator')
    emulator = time.monotonic() - began
    REPORT.append('board role install: venv + nova-fpga %.1f s, '
                  'nova-fpga-emulator %.1f s (pip cache warm)'
                  % (base, emulator))
    probe = json.loads(run([venv / 'bin' / 'python', '-I', '-c', PROBE,
                            ','.join(CLOUD),
                            ','.join(CLOUD_DISTRIBUTIONS + TOOLS)]))
    return {'venv': venv, 'without_emulator': without, 'probe': probe}


def test_no_cloud_service_is_installed(board):
    probe = board['probe']
    assert {name: version for name, version
            in probe['distributions'].items()
            if name in CLOUD_DISTRIBUTIONS and version} == {}
    importable = {name: found for name, found in probe['modules'].items()
                  if found}
    # the one exception is the nova.virt.zynq shim nova-fpga ships (nova
    # loads drivers only from its own namespace): on a board it leaves
    # an empty namespace package ``nova`` with no nova code in it
    nova = importable.pop('nova', None)
    assert importable == {}
    if nova is not None:
        assert nova['origin'] is None  # a namespace, no nova/__init__.py
        assert probe['nova_code'] == []


def test_no_development_tool_came_along(board):
    probe = board['probe']
    assert probe['distributions']['nova-fpga-devtools'] is None
    assert probe['distributions']['nova-fpga-emulator'] == '0.1.0'
    assert probe['scripts']['nova-fpga-agent'] == 'nova-fpga'
    assert not (board['venv'] / 'bin' / 'nova-fpga-demo').exists()
    assert {name: dist for name, dist in probe['scripts'].items()
            if dist in TOOLS} == {}


def test_sim_backend_without_the_emulator_names_the_installed(board):
    status, output = board['without_emulator']
    assert status == 1, output
    # the board backends come with nova-fpga
    assert 'backend sim is not installed (installed: fpga_manager, ' \
        'xdevcfg)' in output, output


def test_agent_from_the_venv_loads_a_real_partial(board, tmp_path, rabbitmq):
    client, transport = client_for(rabbitmq.user('install-cloud'))
    agent = AgentProcess(
        tmp_path, 'installed', rabbitmq.user('installed'),
        {('agent', 'manifest'): board['probe']['manifest'],
         ('emulator', 'hdl_dir'): None},
        agent=board['venv'] / 'bin' / 'nova-fpga-agent')
    try:
        agent.start(client)
        described = client.describe({}, 'installed')
        assert described['backend'] == 'sim'
        assert [r['name'] for r in described['regions']] == ['rp0', 'rp1']
        data = realfiles.read('pr_0_add.bit')
        instance = str(uuid.uuid4())
        loaded = client.load({}, 'installed', 'rp0', instance, 'pr0-add',
                             hashlib.sha256(data).hexdigest(), data)
        assert loaded['module_id'] == 'opaque'
        rp0 = next(r for r in client.describe({}, 'installed')['regions']
                   if r['name'] == 'rp0')
        assert rp0['state'] == states.ACTIVE
        assert rp0['instance_uuid'] == instance
    finally:
        agent.stop()
        transport.cleanup()
