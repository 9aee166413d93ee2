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

"""The board backends against a fake kernel: every error the kernel can
report fails the load with its words and leaves the region decoupled and
FAILED; what reaches the configuration port is the bitstream library's
byte-swapped .bin; auto-detection finds each backend's kernel."""
import hashlib
import os
import uuid

import pytest

from nova_fpga.bitstream import convert
from nova_fpga.contract import agent_api as api
from nova_fpga.contract import states
from nova_fpga_agent.backends import base
from nova_fpga_agent.privsep import fpga as priv
from tests.agent.conftest import BoardCloud
from tests.agent.conftest import module_for
from tests.unit.bitstream import realfiles


def load(cloud, region, data, board='b0', instance=None):
    return cloud.client.load({}, board, region, instance or str(uuid.uuid4()),
                             'img', hashlib.sha256(data).hexdigest(), data)


@pytest.fixture
def make_cloud(tmp_path, kernels):
    made = []

    def make(variant):
        cloud = BoardCloud(tmp_path, variant, kernels)
        made.append(cloud)
        return cloud
    yield make
    for cloud in made:
        cloud.close()


def failed_safe(agent, region, words):
    rs = agent.manager.states[region]
    assert rs.state == states.FAILED and words in rs.error
    assert agent.manager.backend.is_decoupled(region)


@pytest.mark.parametrize('variant', ['fpga_manager', 'fpga_manager_flags'])
@pytest.mark.parametrize('state', ['firmware request error',
                                   'write init error', 'write error',
                                   'write complete error'])
def test_each_kernel_error_state_fails_the_load(make_cloud, variant, state):
    cloud = make_cloud(variant)
    agent = cloud.start('b0')
    load(cloud, 'rp1', module_for('rp1'))
    cloud.kernel('b0').control('fail_state', state)
    with pytest.raises(api.LoadFailed) as exc:
        load(cloud, 'rp0', module_for('rp0'))
    assert exc.value.step == 'write'
    failed_safe(agent, 'rp0', state)
    # the other region kept running, and the firmware was cleaned up
    assert agent.manager.states['rp1'].state == states.ACTIVE
    assert not os.listdir(os.path.join(cloud.kernel('b0').root, 'firmware',
                                       'nova-fpga'))


@pytest.mark.parametrize('variant,words', [
    # flags: the agent polls state until [board] load_timeout
    ('fpga_manager_flags', 'still in state "write" after 0.3 s'),
    # an overlay is applied or not when its path write returns
    ('fpga_manager', 'unapplied after its path was written (FPGA manager '
     'state "write")'),
])
def test_a_hung_manager_fails_the_load(make_cloud, variant, words):
    cloud = make_cloud(variant)
    agent = cloud.start('b0', {('board', 'load_timeout'): 0.3})
    cloud.kernel('b0').control('fail_state', 'hang')
    with pytest.raises(api.LoadFailed) as exc:
        load(cloud, 'rp0', module_for('rp0'))
    assert exc.value.step == 'write' and words in str(exc.value)
    failed_safe(agent, 'rp0', words)


def test_an_unapplied_overlay_fails_though_its_path_write_succeeded(
        make_cloud):
    cloud = make_cloud('fpga_manager')
    agent = cloud.start('b0')
    cloud.kernel('b0').control('overlay_fails', '1')
    instance = str(uuid.uuid4())
    with pytest.raises(api.LoadFailed, match='is unapplied after its path '
                       'was written') as exc:
        load(cloud, 'rp0', module_for('rp0'), instance=instance)
    assert exc.value.step == 'write'
    failed_safe(agent, 'rp0', 'unapplied')
    # a retry's overlay replaces the failed one
    assert load(cloud, 'rp0', module_for('rp0'),
                instance=instance)['state'] == states.ACTIVE


@pytest.mark.parametrize('fault,words', [
    ('write error', 'Input/output error'),
    ('hang', 'Connection timed out'),
    ('write complete error', 'prog_done reads 0'),
])
def test_xdevcfg_errors_fail_the_load(make_cloud, fault, words):
    cloud = make_cloud('xdevcfg')
    agent = cloud.start('b0')
    cloud.kernel('b0').control('fail_state', fault)
    with pytest.raises(api.LoadFailed, match=words) as exc:
        load(cloud, 'rp0', module_for('rp0'))
    assert exc.value.step == 'write'
    failed_safe(agent, 'rp0', words)


@pytest.mark.parametrize('variant', ['fpga_manager', 'xdevcfg'])
def test_a_bus_error_fails_the_id_check(make_cloud, variant):
    cloud = make_cloud(variant)
    agent = cloud.start('b0')
    cloud.kernel('b0').control('bus_error', 'rp0')
    with pytest.raises(api.LoadFailed, match='SLVERR') as exc:
        load(cloud, 'rp0', module_for('rp0'))
    assert exc.value.step == 'check_id'
    failed_safe(agent, 'rp0', 'SLVERR')
    with pytest.raises(base.RegisterError, match='DECERR'):
        agent.manager.backend.read_register('rp0', 0)


@pytest.mark.parametrize('variant', ['fpga_manager', 'fpga_manager_flags',
                                     'xdevcfg'])
def test_the_port_receives_the_libraries_byte_swapped_bin(make_cloud,
                                                          variant):
    cloud = make_cloud(variant)
    cloud.start('b0')
    real = realfiles.read('pr_0_add.bit')
    assert load(cloud, 'rp0', real)['module_id'] == 'opaque'
    with open(os.path.join(cloud.kernel('b0').root, 'received.bin'),
              'rb') as f:
        assert f.read() == convert.to_bin(real)


@pytest.mark.parametrize('name,data,state', [
    ('pr_0_add.bit', lambda: realfiles.read('pr_0_add.bit'),
     'write init error'),
    ('pr_0_add-plain.bin',
     lambda: convert.to_bin(realfiles.read('pr_0_add.bit'), pcap=False),
     'write init error'),
    ('odd.bin', lambda: convert.to_bin(realfiles.read('pr_0_add.bit')) + b'x',
     'write init error'),
    ('absent.bin', None, 'firmware request error'),
])
def test_fake_zynq_fpga_refuses_what_the_driver_would(make_cloud, name, data,
                                                      state):
    """A .bit or a .bin in the wrong byte order where zynq-fpga expects the
    byte-swapped .bin, a size not a multiple of 4, a missing file.
    """
    kernel = make_cloud('fpga_manager_flags').kernel('b0')
    firmware = os.path.join(kernel.root, 'firmware')
    if data is not None:
        priv.write_firmware(os.path.join(firmware, name), data())
    mgr = os.path.join(kernel.root, 'kernel', 'sys', 'class',
                       'fpga_manager', 'fpga0')
    priv.write_attribute(os.path.join(mgr, 'flags'), '1')
    with pytest.raises(OSError):
        priv.write_attribute(os.path.join(mgr, 'firmware'), name)
    with open(os.path.join(mgr, 'state')) as f:
        assert f.read().strip() == state


@pytest.mark.parametrize('variant,backend', [
    ('fpga_manager', 'fpga_manager'), ('xdevcfg', 'xdevcfg')])
def test_auto_finds_the_backend_of_the_kernel(make_cloud, variant, backend,
                                              caplog):
    cloud = make_cloud(variant)
    caplog.set_level('INFO')
    agent = cloud.start('b0', {('agent', 'backend'): 'auto'})
    assert agent.manager.backend.name == backend
    assert cloud.client.describe({}, 'b0')['backend'] == backend
    if backend == 'fpga_manager':
        assert 'fpga_manager fpga0 (Xilinx Zynq FPGA Manager), configfs ' \
            'overlays: yes, flags/firmware: yes' in caplog.text
    assert 'backend %s detected' % backend in caplog.text
