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

"""Where the mover's files are: its runtime files (control socket,
counters) in [dataplane] runtime_dir, its state in [agent] state_dir."""
import os

from nova_fpga_agent import datapath
from tests.agent.conftest import make_conf


def test_runtime_files_default_to_the_state_dir(tmp_path):
    conf = make_conf(tmp_path, 'p0')
    state = conf.agent.state_dir
    assert datapath.counters_path(conf) == os.path.join(
        state, 'datamover.counters')
    assert datapath.state_path(conf) == os.path.join(state,
                                                     'datamover.state')
    control = datapath.control_path(conf)
    assert control == os.path.join(os.path.realpath(state),
                                   'datamover.sock') or \
        control.startswith('/tmp/nfdm-')


def test_runtime_dir_takes_socket_and_counters_not_state(tmp_path):
    run = tmp_path / 'run'
    conf = make_conf(tmp_path, 'p1', {('dataplane', 'runtime_dir'): run})
    assert datapath.counters_path(conf) == str(run / 'datamover.counters')
    assert datapath.control_path(conf) == str(run / 'datamover.sock')
    # the routes outlive the mover: state, where the region state is
    assert datapath.state_path(conf) == os.path.join(
        conf.agent.state_dir, 'datamover.state')


def test_a_socket_path_too_long_goes_to_tmp(tmp_path):
    run = tmp_path / ('x' * 100)
    conf = make_conf(tmp_path, 'p2', {('dataplane', 'runtime_dir'): run})
    control = datapath.control_path(conf)
    assert control.startswith('/tmp/nfdm-') and len(control) < 108
