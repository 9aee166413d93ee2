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

"""The demo switch driver against the emulated switch's control directory:
found by its entry point, it allows and removes a board's VLANs on the
port named after the board (waiting for the switch to run them), refuses a
board that is not cabled, and needs its directory.  The switch process is
stood in for by a thread that reports each configuration as applied (the
forwarding itself: tests/localcloud/test_vm_host_chain.py).
"""
import threading

from oslo_config import cfg
import pytest
import stevedore

from nova_fpga.ml2 import switch
from nova_fpga_devtools.localcloud import tor
from nova_fpga_devtools.localcloud import tor_switch


@pytest.fixture
def applied(tmp_path):
    """The switch's directory, each configuration reported applied."""
    switch_ = tor.Tor('', tmp_path)
    tor._write_json(switch_.config_file, {
        'generation': 0, 'ports': {'board0': {}},
        'outer': {'board0': 'x'}})
    stop = threading.Event()

    def apply():
        while not stop.wait(0.02):
            tor._write_json(switch_.status_file, {
                'generation': switch_.config()['generation']})
    thread = threading.Thread(target=apply)
    thread.start()
    yield switch_
    stop.set()
    thread.join()


def driver(directory):
    conf = cfg.ConfigOpts()
    tor_switch.register_opts(conf)
    conf([], default_config_files=[], default_config_dirs=[])
    if directory:
        conf.set_override('directory', str(directory), group='demo_tor')
    return tor_switch.DemoTorSwitch(conf)


def test_the_entry_point_names_the_driver():
    extension = stevedore.ExtensionManager(switch.NAMESPACE)['demo_tor']
    assert extension.plugin is tor_switch.DemoTorSwitch


def test_bind_and_unbind_edit_the_boards_allowed_vlans(applied):
    demo = driver(applied.dir)
    demo.bind('board0', 205)
    demo.bind('board0', 211)
    assert applied.ports()['board0'] == {205: 'tagged', 211: 'tagged'}
    demo.unbind('board0', 205)
    assert applied.ports()['board0'] == {211: 'tagged'}


def test_a_board_not_cabled_is_an_error(applied):
    with pytest.raises(tor.TorError, match='no port board9'):
        driver(applied.dir).bind('board9', 205)


def test_the_directory_is_required():
    with pytest.raises(ValueError, match='directory'):
        driver(None)
