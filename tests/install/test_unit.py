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

"""The agent's systemd unit (agent/systemd/nova-fpga-agent.service), as
systemd reads it: systemd-analyze verify (Debian's systemd, offline, no
systemd running) in a scratch root holding the unit, the targets it names
and its program.  An unconfigured board skips the unit instead of
crash-looping into the start limit.
"""
import configparser
import glob
import shutil
import subprocess

from tests.conftest import ROOT

UNIT = ROOT / 'agent' / 'systemd' / 'nova-fpga-agent.service'
SYSTEM = 'lib/systemd/system'


def verify(tmp_path, text):
    """systemd-analyze verify's findings on the unit text, in a root of
    its own (the host's targets, the program ExecStart names).
    """
    root = tmp_path / 'root'
    (root / SYSTEM).mkdir(parents=True)
    for target in glob.glob('/%s/*.target' % SYSTEM):
        shutil.copy(target, root / SYSTEM)
    (root / SYSTEM / UNIT.name).write_text(text)
    program = root / parse(text)['Service']['ExecStart'].split()[0][1:]
    program.parent.mkdir(parents=True, exist_ok=True)
    program.write_text('#!/bin/sh\n')
    program.chmod(0o755)
    done = subprocess.run(
        [shutil.which('systemd-analyze') or '/usr/bin/systemd-analyze',
         'verify', '--root', str(root), '/%s/%s' % (SYSTEM, UNIT.name)],
        capture_output=True, text=True, timeout=120)
    return done.returncode, (done.stdout + done.stderr).strip()


def parse(text):
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read_string(text)
    return unit


def test_systemd_takes_the_unit_without_a_word(tmp_path):
    assert verify(tmp_path, UNIT.read_text()) == (0, '')


def test_verify_catches_an_option_in_the_wrong_section(tmp_path):
    text = UNIT.read_text().replace('\nStartLimitIntervalSec=', '\n#') \
        .replace('[Service]\n', '[Service]\nStartLimitIntervalSec=120\n')
    status, findings = verify(tmp_path, text)
    assert "Unknown key 'StartLimitIntervalSec' in section [Service]" in \
        findings


def test_an_unconfigured_board_skips_the_agent():
    unit = parse(UNIT.read_text())
    command = unit['Service']['ExecStart'].split()
    config = command[command.index('--config-file') + 1]
    assert unit['Unit']['ConditionPathExists'] == config
    # the crash-loop limit is read where systemd reads it
    assert (unit['Unit']['StartLimitIntervalSec'],
            unit['Unit']['StartLimitBurst']) == ('120', '5')
    assert 'StartLimitIntervalSec' not in unit['Service']
