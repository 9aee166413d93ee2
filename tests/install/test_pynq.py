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
goes: the install.sh of this checkout's sdist, unpacked as on a board, run
against a scratch root with that sdist, pinned by constraints.txt, into a
clean virtualenv of its own; what it installs is checked file by file, the
venv holds the board role only and its agent runs, the data mover it built
from the sdist's sources runs and pynq.conf names it, and the unit and
sudoers rule name the venv's programs.  No board, no systemd, no PYNQ image
here: what differs on one is in agent/pynq/README.md.
"""
import configparser
import os
import shutil
import subprocess
import sys
import tarfile
import time

from nova_fpga_devtools import yocto
from oslo_config import cfg
import pytest

from nova_fpga_agent import datapath
from nova_fpga_agent import trust
from nova_fpga_devtools import pki
from tests.conftest import REPORT
from tests.conftest import ROOT

SCRIPT = ROOT / 'agent' / 'pynq' / 'install.sh'
VENV = 'opt/nova-fpga/venv'
MOVER = '/opt/nova-fpga/bin/nova-fpga-datamover'
NO_COMPILER = ('needed to build the data mover (agent/datamover): on a PYNQ '
               'image (Ubuntu), sudo apt install gcc make\n')


def run(command, env=None, **kwargs):
    # the script and the venv's programs see the venv's packages only, not
    # what a PYTHONPATH gives the tests
    env = dict(os.environ if env is None else env)
    env.pop('PYTHONPATH', None)
    return subprocess.run([str(c) for c in command], capture_output=True,
                          text=True, timeout=900, env=env, **kwargs)


@pytest.fixture(scope='module')
def installed(tmp_path_factory):
    top = tmp_path_factory.mktemp('pynq')
    # the sdist, unpacked as on the board: its install.sh and the sources
    # beside it (agent/datamover) are what runs
    sdist = yocto.build_sdist(top / 'dist')
    with tarfile.open(sdist) as t:
        t.extractall(top, filter='data')
    script = next(top.glob('nova_fpga-*')) / 'agent' / 'pynq' / 'install.sh'
    root = top / 'root'
    (root / 'etc').mkdir(parents=True)
    # the image's own accounts, for useradd --root
    for name in ('passwd', 'group', 'shadow', 'gshadow'):
        shutil.copy('/etc/%s' % name, root / 'etc' / name)
    conf = top / 'agent.conf'
    conf.write_text('[DEFAULT]\ntransport_url = rabbit://b:p@mq/v\n')
    ca = pki.Authority(top / 'ca', name='cloud bitstream CA')
    shutil.copy(ca.pem, top / 'cloud-ca.pem')
    # where the script's build directory goes (and must not stay)
    tmp = top / 'tmp'
    tmp.mkdir()
    began = time.monotonic()
    out = run([script, '--root', root, '--python', sys.executable,
               '--source', sdist, '--constraints', ROOT / 'constraints.txt',
               '--agent-conf', conf, '--trusted-ca', top / 'cloud-ca.pem'],
              env=dict(os.environ, TMPDIR=str(tmp)))
    assert out.returncode == 0, out.stdout + out.stderr
    assert list(tmp.iterdir()) == []
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


@pytest.mark.parametrize('missing', ['cc', 'make'])
def test_refuses_without_a_compiler_or_make(tmp_path, missing):
    """Before the venv: the data mover is built on the board."""
    env = dict(os.environ)
    env.pop('CC', None)
    if missing == 'cc':
        env['CC'] = '/nonexistent-cc'
        named = 'the C compiler /nonexistent-cc not found, '
    else:
        # a PATH with the compiler and what the script runs before its
        # checks, and no make
        bin_dir = tmp_path / 'bin'
        bin_dir.mkdir()
        for name in ('dirname', 'gcc'):
            (bin_dir / name).symlink_to(shutil.which(name))
        env['PATH'] = str(bin_dir)
        named = 'make not found, '
    out = run([SCRIPT, '--root', tmp_path / 'root', '--python',
               sys.executable, '--source', ROOT, '--constraints',
               ROOT / 'constraints.txt'], env=env)
    assert out.returncode == 1, out.stdout + out.stderr
    assert out.stderr == 'install.sh: ' + named + NO_COMPILER
    assert not (tmp_path / 'root').exists()


def test_refuses_without_the_data_movers_sources(tmp_path):
    """install.sh alone, without the sdist around it."""
    script = tmp_path / 'agent' / 'pynq' / 'install.sh'
    script.parent.mkdir(parents=True)
    shutil.copy(SCRIPT, script)
    out = run([script, '--root', tmp_path / 'root', '--python',
               sys.executable, '--source', ROOT, '--constraints',
               ROOT / 'constraints.txt'])
    assert out.returncode == 1, out.stdout + out.stderr
    assert out.stderr == (
        'install.sh: no data mover sources in %s/agent/pynq/../datamover: '
        'run the install.sh of an unpacked sdist or a checkout\n' % tmp_path)
    assert not (tmp_path / 'root').exists()


def test_refuses_a_trusted_ca_that_is_not_a_certificate(tmp_path):
    junk = tmp_path / 'ca.pem'
    junk.write_text('not a certificate\n')
    out = run([SCRIPT, '--root', tmp_path / 'root', '--python',
               sys.executable, '--source', ROOT, '--constraints',
               ROOT / 'constraints.txt', '--trusted-ca', junk])
    assert out.returncode == 1, out.stdout + out.stderr
    assert out.stderr == 'install.sh: --trusted-ca %s is not a PEM ' \
        'certificate\n' % junk
    assert not (tmp_path / 'root').exists()


def test_installs_these_files(installed):
    files = sorted(str(p.relative_to(installed)) for p in installed.rglob(
        '*') if p.is_file() and not str(p.relative_to(installed)).startswith(
            VENV) and p.name.rstrip('-') not in (
                'passwd', 'group', 'shadow', 'gshadow', '.pwd.lock'))
    assert files == [
        'etc/nova-fpga/agent.conf', 'etc/nova-fpga/agent.conf.sample',
        'etc/nova-fpga/pynq.conf', 'etc/nova-fpga/trusted-ca/cloud-ca.pem',
        'etc/sudoers.d/nova-fpga-agent',
        'etc/systemd/system/nova-fpga-agent.service',
        'etc/udev/rules.d/70-nova-fpga.rules',
        'opt/nova-fpga/bin/nova-fpga-datamover']
    assert (installed / 'etc/sudoers.d/nova-fpga-agent').stat().st_mode \
        & 0o777 == 0o440
    assert (installed / 'etc/udev/rules.d/70-nova-fpga.rules').read_bytes() \
        == (ROOT / 'agent' / 'udev' / '70-nova-fpga.rules').read_bytes()
    assert (installed / 'etc/nova-fpga/agent.conf').stat().st_mode \
        & 0o777 == 0o640
    # the trust store, where [agent] trusted_ca_dir looks by default
    trusted = installed / 'etc/nova-fpga/trusted-ca'
    assert trusted.stat().st_mode & 0o777 == 0o755
    assert (trusted / 'cloud-ca.pem').stat().st_mode & 0o777 == 0o644
    assert str(trusted).endswith(trust.TRUST_OPTS[1].default)
    assert [c.subject.rfc4514_string() for c in trust.TrustStore(
        trusted).certificates()] == ['CN=cloud bitstream CA']
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


def test_builds_the_data_mover_and_pynq_conf_names_it(installed):
    mover = installed / MOVER.lstrip('/')
    assert mover.stat().st_mode & 0o777 == 0o755
    # the mover itself: without arguments it says how it is run
    out = run([mover])
    assert out.returncode == 2
    assert out.stderr.startswith(
        'usage: nova-fpga-datamover --interface IF --counters FILE'), \
        out.stderr
    # the files the unit gives the agent, read with the agent's options
    conf = cfg.ConfigOpts()
    datapath.register_opts(conf)
    conf(['--config-file', str(installed / 'etc/nova-fpga/agent.conf'),
          '--config-file', str(installed / 'etc/nova-fpga/pynq.conf')],
         project='nova-fpga', default_config_files=[],
         default_config_dirs=[])
    assert conf.dataplane.mover_binary == MOVER
