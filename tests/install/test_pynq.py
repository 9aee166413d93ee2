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

"""The PYNQ-image path (agent/pynq/install.sh), as far as this machine
goes: the script run against a scratch root, with this checkout's sdist,
pinned by constraints.txt, into a clean virtualenv of its own; what it
installs is checked file by file, the venv holds the board role only and
its agent runs, and the unit and sudoers rule name the venv's programs.
No board, no systemd, no PYNQ image here: what differs on one is in
agent/pynq/README.md.
"""
import configparser
import shutil
import subprocess
import sys
import time

import pytest

from tests.conftest import REPORT
from tests.conftest import ROOT

SCRIPT = ROOT / 'agent' / 'pynq' / 'install.sh'
NOT_SOURCE = ('.venv', '.git', '.build', '.state', '.tox', 'build',
              '*.egg-info', 'dist', '__pycache__', 'sim_build')
VENV = 'opt/nova-fpga/venv'


def run(command, **kwargs):
    return subprocess.run([str(c) for c in command], capture_output=True,
                          text=True, timeout=900, **kwargs)


@pytest.fixture(scope='module')
def installed(tmp_path_factory):
    top = tmp_path_factory.mktemp('pynq')
    src = top / 'src'
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    root = top / 'root'
    (root / 'etc').mkdir(parents=True)
    # the image's own accounts, for useradd --root
    for name in ('passwd', 'group', 'shadow', 'gshadow'):
        shutil.copy('/etc/%s' % name, root / 'etc' / name)
    conf = top / 'agent.conf'
    conf.write_text('[DEFAULT]\ntransport_url = rabbit://b:p@mq/v\n')
    began = time.monotonic()
    out = run([SCRIPT, '--root', root, '--python', sys.executable,
               '--source', src, '--constraints', ROOT / 'constraints.txt',
               '--agent-conf', conf])
    assert out.returncode == 0, out.stdout + out.stderr
    REPORT.append('PYNQ-path install (agent/pynq/install.sh, scratch root, '
                  'pip cache warm): %.1f s' % (time.monotonic() - began))
    return root


def test_refuses_a_python_older_than_the_projects(tmp_path):
    old = tmp_path / 'python3.10'
    old.write_text('#!/bin/sh\nexit 1\n')
    old.chmod(0o755)
    out = run([SCRIPT, '--root', tmp_path / 'root', '--python', old,
               '--source', 'x', '--constraints', 'y'])
    assert out.returncode == 1
    assert 'not Python 3.11 or newer' in out.stderr
    assert not (tmp_path / 'root').exists()


def test_installs_these_files(installed):
    files = sorted(str(p.relative_to(installed)) for p in installed.rglob(
        '*') if p.is_file() and not str(p.relative_to(installed)).startswith(
            VENV) and p.name.rstrip('-') not in (
                'passwd', 'group', 'shadow', 'gshadow', '.pwd.lock'))
    assert files == [
        'etc/nova-fpga/agent.conf', 'etc/nova-fpga/agent.conf.sample',
        'etc/nova-fpga/pynq.conf', 'etc/sudoers.d/nova-fpga-agent',
        'etc/systemd/system/nova-fpga-agent.service',
        'etc/udev/rules.d/70-nova-fpga.rules']
    assert (installed / 'etc/sudoers.d/nova-fpga-agent').stat().st_mode \
        & 0o777 == 0o440
    assert (installed / 'etc/udev/rules.d/70-nova-fpga.rules').read_bytes() \
        == (ROOT / 'agent' / 'udev' / '70-nova-fpga.rules').read_bytes()
    assert (installed / 'etc/nova-fpga/agent.conf').stat().st_mode \
        & 0o777 == 0o640
    passwd = (installed / 'etc' / 'passwd').read_text()
    assert any(line.startswith('nova-fpga:') and line.endswith(
        ':/var/lib/nova-fpga:/usr/sbin/nologin')
        for line in passwd.splitlines()), passwd


def test_unit_sudoers_and_helper_name_the_venvs_programs(installed):
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read(installed / 'etc/systemd/system/nova-fpga-agent.service')
    assert unit['Service']['ExecStart'] == (
        '/%s/bin/nova-fpga-agent --config-file /etc/nova-fpga/agent.conf '
        '--config-file /etc/nova-fpga/pynq.conf' % VENV)
    assert unit['Service']['User'] == 'nova-fpga'
    # an unconfigured board skips it (tests/install/test_unit.py)
    assert unit['Unit']['ConditionPathExists'] == '/etc/nova-fpga/agent.conf'
    assert unit['Service']['AmbientCapabilities'] == 'CAP_NET_RAW'
    helper = configparser.ConfigParser()
    helper.read(installed / 'etc/nova-fpga/pynq.conf')
    command = helper['nova_fpga_agent_privileged']['helper_command']
    assert command == (
        'sudo /%s/bin/privsep-helper --config-file /etc/nova-fpga/agent.conf '
        '--config-file /etc/nova-fpga/pynq.conf' % VENV)
    rule = [line for line in (installed / 'etc/sudoers.d/nova-fpga-agent')
            .read_text().splitlines() if line.startswith('nova-fpga ')]
    assert rule == [
        'nova-fpga ALL = (root) NOPASSWD: /%s/bin/privsep-helper '
        r'^--config-file /etc/nova-fpga/agent\.conf --config-file '
        r'/etc/nova-fpga/pynq\.conf --privsep_context '
        r'nova_fpga_agent\.privsep\.board_pctxt --privsep_sock_path '
        r'/tmp/tmp[A-Za-z0-9_]+/privsep\.sock$' % VENV]
    # sudo itself accepts the file (Debian's sudo: bindep.txt)
    visudo = shutil.which('visudo') or '/usr/sbin/visudo'
    out = run([visudo, '-c', '-f',
               installed / 'etc/sudoers.d/nova-fpga-agent'])
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_venv_is_the_board_role_and_its_agent_runs(installed):
    python = installed / VENV / 'bin' / 'python'
    # no nova at all, not even a namespace package
    out = run([python, '-c', 'import importlib.util as u, sys; print(['
               'n for n in sys.argv[1:] if u.find_spec(n)])', 'nova',
               'glance', 'glance_store', 'keystoneauth1', 'placement',
               'neutron', 'nova_fpga_devtools', 'nova_fpga_agent',
               'oslo_messaging'])
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["['nova_fpga_agent',", "'oslo_messaging']"]
    out = run([installed / VENV / 'bin' / 'nova-fpga-agent', '--help'])
    assert out.returncode == 0 and '--config-file' in out.stdout
    assert (installed / VENV / 'bin' / 'privsep-helper').exists()
