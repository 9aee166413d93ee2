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

"""The README's two commands (`make demo`, `make test`) are what they say,
and the demo and the benchmark run and say the right things."""
import hashlib
import pathlib
import re
import subprocess
import sys

from tests.conftest import ROOT


def _recipe(target):
    """The prerequisites and recipe lines of a Makefile target."""
    text = (ROOT / 'Makefile').read_text()
    match = re.search(r'^%s:(.*)\n((?:\t.*\n)*)' % re.escape(target), text,
                      re.M)
    assert match, 'no target %s' % target
    return match.group(1).split(), match.group(2)


def test_the_two_commands_set_themselves_up():
    """`make demo` runs tools/demo and `make test` the suite, both after
    `make setup` (tools/setup-env), as the README says.
    """
    readme = (ROOT / 'README.md').read_text()
    assert '`make demo`' in readme and '`make test`' in readme
    for target in ('demo', 'test'):
        prerequisites, _ = _recipe(target)
        assert 'setup' in prerequisites, target
    assert 'tools/setup-env' in _recipe('setup')[1]
    assert 'tools/demo' in _recipe('demo')[1]
    assert 'pytest tests/hdl' in _recipe('test')[1]
    assert 'tests/functional' in _recipe('test')[1]


def test_demo_runs_the_scenario_and_leaves_nothing_behind(tmp_path):
    """tools/demo (what `make demo` runs) from nothing: the cloud comes up,
    the vTC is deployed with the openstack CLI, real traffic is classified,
    the region is freed, and down stops every process and data link.
    """
    state = tmp_path / 'demo'
    out = subprocess.run([str(ROOT / 'tools' / 'demo'), '--state-dir',
                          str(state)], capture_output=True, text=True,
                         timeout=1800)
    text = out.stdout
    assert out.returncode == 0, text[-3000:] + out.stderr[-3000:]
    assert '$ openstack server create --image vtc-bitstream --flavor ' \
           'fpga.region --nic none vtc1 --wait' in text
    assert (
        'vtc-bitstream active' in text and 'pr0-add-bitstream active' in text
    )
    assert 'wrong-device-bitstream refused: ' in text and 'xc7z010' in text
    assert re.search(r'vtc1 is ACTIVE on board board\d, region rp1', text)
    sent = re.search(r'sent (\d+) frames', text)
    assert sent and int(sent.group(1)) > 1000
    assert 'traffic classes:' in text
    # class, flows classified, flows guessed, packets, bytes
    quic = re.search(r'^  quic +\d+ +\d+ +(\d+) +\d+$', text, re.M)
    assert quic and int(quic.group(1)) > 0
    # the replay is one burst, far faster than the simulated vTC: every
    # frame waits its turn, none is dropped
    assert re.search(r'^  frames_in = %s$' % sent.group(1), text, re.M), \
        text[text.index('data plane counters'):][:300]
    assert re.search(r'^  dropped = 0$', text, re.M)
    # the policy by application: Facebook's flows come back with its DSCP,
    # the other TLS flows with the class's, what was sent unmarked
    assert '$ openstack server set --property vtc:dscp:app:facebook=34 ' \
           '--property vtc:dscp:tls=18 vtc1' in text
    sent_app = re.search(r'sent (\d+) frames .* 2 capture\(s\) .*: '
                         r'DSCP 0 \u00d7 (\d+)$', text, re.M)
    assert sent_app and sent_app.group(1) == sent_app.group(2), text
    back = re.search(r'^(\d+) of them came back on VLAN \d+ in [\d.]+ s: '
                     r'DSCP 0 \u00d7 (\d+), 18 \u00d7 (\d+), '
                     r'34 \u00d7 (\d+)$', text, re.M)
    assert back and back.group(1) == sent_app.group(1), text[-3000:]
    assert int(back.group(3)) > 0 and int(back.group(4)) > 0, back.group(0)
    # the console after it: by application, Facebook's frames are those
    # that came back with its DSCP (its policy decides), and its flows
    # were named
    tail = text[back.end():]
    assert 'applications:' in tail, tail[:3000]
    facebook = re.search(r'^  facebook +(\d+) +(\d+) +(\d+)$', tail, re.M)
    assert facebook and int(facebook.group(1)) > 0, tail[:3000]
    assert facebook.group(2) == back.group(4), (facebook.group(0),
                                                back.group(0))
    assert 'Done: vtc1 was ACTIVE' in text
    assert 'Stopping the demo cloud' in text
    # nothing left running, no data link left
    for pid_file in state.rglob('*.pid'):
        for pid in pid_file.read_text().split():
            assert not pathlib.Path('/proc/%s' % pid).exists(), pid_file
    links = subprocess.run(['ip', 'netns', 'list'], capture_output=True,
                           text=True).stdout
    tag = hashlib.sha1(str(state.resolve()).encode()).hexdigest()[:6]
    assert 'nfpga-%s-' % tag not in links


def test_validation_benchmark_prints_its_figures():
    out = subprocess.run([sys.executable,
                          str(ROOT / 'benchmarks' / 'bitstream_validate.py'),
                          '--repeat', '2'], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert 'target: >= 150 MB/s' in out.stdout
    for name in ('prio.bit', 'pr_0_add.bit', 'ov5640_lcd_7010.bit'):
        assert name in out.stdout
