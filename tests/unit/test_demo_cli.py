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

"""nova-fpga-demo's command line as the guide writes it: the first up's
options after ``up`` as well as before it (issue 33: ``nova-fpga-demo up
--vm-host`` was 'unrecognized arguments')."""
import pytest

from nova_fpga_devtools import demo
from nova_fpga_devtools.localcloud import stack


@pytest.fixture
def stacks(monkeypatch):
    made = []
    monkeypatch.setattr(stack, 'Stack',
                        lambda state_dir, **kwargs: made.append(kwargs))
    return made


@pytest.mark.parametrize('argv', [
    ['up', '--vm-host', '--boards', '3', '--board-backend',
     'board1=fpga_manager'],
    ['--vm-host', '--boards', '3', '--board-backend', 'board1=fpga_manager',
     'up'],
])
def test_up_takes_its_options_after_or_before_its_name(argv, stacks):
    demo._stack(demo.parse(argv))
    (made,) = stacks
    assert (made['vm_host'], made['boards'], made['board_backends']) == (
        True, 3, {'board1': 'fpga_manager'})


def test_defaults_and_other_commands(stacks):
    demo._stack(demo.parse(['status']))
    demo._stack(demo.parse(['up']))
    assert [(m['vm_host'], m['boards'], m['board_backends'])
            for m in stacks] == [(False, 2, {})] * 2


def test_too_many_boards_after_up_is_refused(stacks):
    with pytest.raises(SystemExit, match='1 to 16 boards'):
        demo._stack(demo.parse(['up', '--boards', '40']))


def test_manage_finds_the_demo_clouds_nova_conf(monkeypatch, tmp_path):
    """nova-fpga-manage board list/show read $NOVA_FPGA_NOVA_CONF when no
    --config-file is given, and the demo's admin openrc exports it: the
    cloud's nova.conf (issue 33: 'Failed to find some config files:
    /etc/nova/nova.conf' on the demo cloud).
    """
    from nova_fpga.cmd import manage
    from nova_fpga_devtools.localcloud import nova as localnova

    def path(*argv):
        return manage.nova_conf_path(manage._parser().parse_args(argv))
    monkeypatch.delenv(manage.NOVA_CONF_VARIABLE, raising=False)
    assert path('board', 'list') == manage.NOVA_CONF
    monkeypatch.setenv(manage.NOVA_CONF_VARIABLE, '/x/nova.conf')
    assert path('board', 'show', 'b0') == '/x/nova.conf'
    assert path('board', 'list', '--config-file', '/y.conf') == '/y.conf'
    cloud = stack.Stack(tmp_path)
    monkeypatch.setattr(cloud, 'require_state', lambda: None)
    env = cloud.cloud_env('admin')
    assert env[manage.NOVA_CONF_VARIABLE] == str(
        localnova.Nova.conf_file_in(tmp_path))
    assert manage.NOVA_CONF_VARIABLE not in cloud.cloud_env('alice')


def test_a_scenario_that_fails_half_way_deletes_its_server(
        tmp_path, monkeypatch):
    """The scenario's server is deleted when a later step fails (issue 33:
    a scenario that crashed on a --vm-host cloud left vtc1 running).
    """
    from nova_fpga_devtools.localcloud import scenario as localscenario

    class Cloud:
        dir = tmp_path
        vm_host_name = None     # boards only: the server has no ports

        @staticmethod
        def clouds_file():
            return tmp_path / 'clouds.yaml'

        @staticmethod
        def credentials_file():
            return tmp_path / 'openrc'

        @staticmethod
        def cloud_env(user):
            return {}

        @staticmethod
        def region_holding(board, server):
            raise localscenario.ScenarioError('no such interface')
    (tmp_path / 'clouds.yaml').write_text('{}')
    (tmp_path / 'capture.pcap').write_bytes(b'')
    played = localscenario.Scenario(Cloud(), pcaps=tmp_path,
                                    out=lambda text: None)
    commands = []

    def run(*argv, check=True, quiet=False):
        commands.append(' '.join(str(a) for a in argv))
    monkeypatch.setattr(played, 'run', run)
    monkeypatch.setattr(played, 'json', lambda *argv: (
        [] if argv[2] == 'list' else
        {'id': 's1', 'OS-EXT-SRV-ATTR:hypervisor_hostname': 'board0'}))
    monkeypatch.setattr(played, 'build', lambda *a: tmp_path / 'x.bit')
    monkeypatch.setattr(played, 'import_image', lambda *a, **k: None)
    with pytest.raises(localscenario.ScenarioError, match='no such'):
        played.play()
    created = commands.index(next(c for c in commands
                                  if c.startswith('openstack server create')))
    assert 'openstack server delete --wait vtc1' in commands[created:]


@pytest.mark.parametrize('argv, signed_only', [
    (['up'], ['board1']),
    (['up', '--boards', '1'], []),
    (['up', '--signed-only-board', 'none'], []),
    (['up', '--boards', '3', '--signed-only-board', 'board0',
      '--signed-only-board', 'board2'], ['board0', 'board2']),
    (['--signed-only-board', 'board0', 'up'], ['board0']),
])
def test_the_board_that_loads_only_signed_bitstreams(argv, signed_only,
                                                     stacks):
    demo._stack(demo.parse(argv))
    assert stacks[0]['signed_only_boards'] == signed_only


def test_a_signed_only_board_the_cloud_lacks_is_refused(tmp_path, capsys):
    """Said in words on the first up, before anything starts."""
    code = demo.main(['--state-dir', str(tmp_path / 'cloud'), 'up',
                      '--signed-only-board', 'board7'])
    assert code == 2
    assert 'signed-only boards board7: boards are board0, board1' in \
        capsys.readouterr().err
