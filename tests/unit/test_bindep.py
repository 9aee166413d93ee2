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

"""bindep.txt is the one list of distribution packages: tools/setup-env
reads its Debian packages of the "test" profile as bindep's own parser
selects them, and nothing names the list it replaced.
"""
import subprocess

from bindep import depends

from tests.conftest import ROOT


def _bindep(path, profiles):
    rules = depends.Depends(path.read_text()).active_rules(profiles)
    return {name: {selector for _, selector in selectors}
            for name, selectors, _ in rules}


def test_setup_env_installs_what_bindep_selects():
    selected = _bindep(ROOT / 'bindep.txt', ['platform:dpkg', 'test'])
    assert len(selected) > 10
    out = subprocess.run([str(ROOT / 'tools' / 'setup-env'),
                          '--print-packages'], capture_output=True,
                         text=True, check=True).stdout
    read = dict(line.split() for line in out.splitlines())
    assert set(read) == set(selected)
    for name, flag in read.items():
        assert flag == ('lean' if 'no-recommends' in selected[name]
                        else 'full'), name
    # a package for other platforms or profiles is not taken
    assert 'qemu-system-x86' in read and read['qemu-system-x86'] == 'lean'


def test_setup_env_leaves_out_other_profiles_and_platforms(tmp_path):
    """setup-env's reading, on a file with what it must skip."""
    tools = tmp_path / 'tools'
    tools.mkdir()
    (tools / 'setup-env').write_text(
        (ROOT / 'tools' / 'setup-env').read_text())
    (tmp_path / 'bindep.txt').write_text(
        '# comment\nkeep [platform:dpkg test]\n'
        'rpm-only [platform:rpm test]\nnot-test [platform:dpkg doc]\n'
        'lean-one [platform:dpkg test no-recommends]\n')
    out = subprocess.run(['bash', str(tools / 'setup-env'),
                          '--print-packages'], capture_output=True,
                         text=True, check=True).stdout
    assert out.split('\n')[:-1] == ['keep full', 'lean-one lean']
    assert set(_bindep(tmp_path / 'bindep.txt',
                       ['platform:dpkg', 'test'])) == {'keep', 'lean-one'}


def test_devstacks_bindep_file_is_bindeps_format():
    """What DevStack installs for the plugin (stack.sh runs bindep -b on
    devstack/files/bindep.txt): the emulated boards' toolchain.
    """
    selected = _bindep(ROOT / 'devstack' / 'files' / 'bindep.txt',
                       ['platform:dpkg', 'default'])
    assert {'build-essential', 'python3-dev', 'iproute2'} <= set(selected)
