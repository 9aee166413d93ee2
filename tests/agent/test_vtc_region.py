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

"""A region of an emulated board running the vTC: a bitstream that declares
the vTC's module ID runs region_vtc's Verilog (Verilator, behind the
region's decoupler), the real captures go through it unchanged or
DSCP-marked exactly as the reference model says, and the counters the agent
reports over RPC are the module's, equal to the model's."""
import hashlib
import sys
import uuid

import pytest

from nova_fpga import catalogue
from nova_fpga.contract import agent_api as api
from nova_fpga_emulator import hdl_bridge
from nova_fpga_emulator import modules
from tests.agent.conftest import module_for
from tests.agent import simple_dma
from tests.conftest import HDL
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / 'hdl' / 'tests'))
import vtc_captures  # noqa: E402
from vtc_model import VtcModel  # noqa: E402

pytestmark = pytest.mark.hdl
VTC = catalogue.load().by_name('vtc')
REGS = VTC.registers


def model_counters(model):
    """The model's counters under the names the agent reports."""
    out = {
        'frames': model.counters['FRAMES'],
        'bytes': model.counters['BYTES'],
    }
    for counter in VTC.counters:
        if counter.register.labels is None:
            out[counter.name] = model.counters[counter.register.name]
    for klass in REGS.labels('CLASS_PACKETS'):
        out['%s_packets' % klass] = model.counters[
            'CLASS_PACKETS_%s' % klass.upper()
        ]
        out['%s_bytes' % klass] = model.counters[
            'CLASS_BYTES_%s' % klass.upper()
        ]
    for klass in REGS.labels('CLASS_PACKETS')[1:]:
        out['%s_flows' % klass] = model.counters[
            'CLASS_FLOWS_%s' % klass.upper()
        ]
        out['%s_guessed' % klass] = model.counters[
            'CLASS_GUESSES_%s' % klass.upper()
        ]
    return out


def test_vtc_region_classifies_real_captures_like_the_model(cloud, report):
    # a cold Verilator build takes longer than the RPC timeout: build first
    hdl_bridge.build(modules.HdlModule.of(VTC).in_slot, HDL)
    agent = cloud.start('b0')
    data = module_for('rp1', VTC.module_id)
    instance = str(uuid.uuid4())
    loaded = cloud.client.load({}, 'b0', 'rp1', instance, 'vtc-image',
                               hashlib.sha256(data).hexdigest(), data)
    assert loaded['module_id'] == '0x%08X' % VTC.module_id
    backend = agent.manager.backend
    # mark TLS and DNS flows, as an operator would
    policy = {'tls': 46, 'dns': 10}
    model = VtcModel()
    for klass, dscp in policy.items():
        value = REGS.bit('POLICY', 'ENABLE') | dscp
        backend.write_register('rp1', REGS.at('POLICY', klass), value)
        model.set_policy(klass, value)

    frames = marked = 0
    for path in vtc_captures.ndpi_capture_paths():
        for frame in vtc_captures.read_frames(path):
            now = backend.read_register('rp1', REGS.TIMESTAMP)
            expected = model.process(frame, now=now)
            assert simple_dma.transfer(backend, 'rp1', frame) == [expected], (
                path.name,
                frames,
            )
            frames += 1
            marked += expected != frame
    assert marked > 0  # the policy did mark classified flows

    stats = cloud.client.stats({}, 'b0', 'rp1', instance)
    assert stats['module'] == model_counters(model)
    assert stats['module']['frames'] == frames
    classified = {k: v for k, v in stats['module'].items()
                  if k.endswith('_packets') and v}
    report('vTC region on the emulated board: %d real frames, %d DSCP-marked, '
           'packets per class %s' % (frames, marked, classified))


#: a tenant's policy (server properties): classes the captures carry
SETTINGS = {'vtc:dscp:sip': 46, 'vtc:dscp:smtp': 10, 'vtc:dscp:tls': 18,
            'vtc:dscp:dns': 0}


def model_policy(settings):
    """{class: DSCP} of the model for a load's settings, by the
    catalogue's settings (property -> POLICY element).
    """
    return {s.register.labels.names[s.index]: settings[s.name]
            for s in VTC.settings if s.name in settings}


def test_a_load_with_settings_marks_as_the_model_says(cloud, report):
    hdl_bridge.build(modules.HdlModule.of(VTC).in_slot, HDL)
    agent = cloud.start('b0')
    backend = agent.manager.backend
    data = module_for('rp1', VTC.module_id)
    instance = str(uuid.uuid4())
    loaded = cloud.client.load({}, 'b0', 'rp1', instance, 'vtc-image',
                               hashlib.sha256(data).hexdigest(), data,
                               settings=SETTINGS)
    assert loaded['settings'] == SETTINGS
    policy = model_policy(SETTINGS)
    assert set(policy) == {'sip', 'smtp', 'tls', 'dns'}

    def registers():
        return {klass: backend.read_register('rp1', REGS.at('POLICY', klass))
                for klass in REGS.labels('POLICY')[1:]}
    wanted = {klass: REGS.bit('POLICY', 'ENABLE') | policy[klass]
              if klass in policy else 0 for klass in REGS.labels('POLICY')[1:]}
    assert registers() == wanted
    # a reset clears the module's registers, a power cycle resets it: the
    # agent writes the settings again each time, before frames flow
    cloud.client.reset({}, 'b0', 'rp1', instance)
    assert registers() == wanted
    cloud.client.power({}, 'b0', 'rp1', instance, False)
    cloud.client.power({}, 'b0', 'rp1', instance, True)
    assert registers() == wanted
    assert cloud.client.describe({}, 'b0')['regions'][1]['settings'] \
        == SETTINGS

    model = VtcModel(policy=policy)
    frames, marked = 0, {}
    for path in vtc_captures.ndpi_capture_paths():
        for frame in vtc_captures.read_frames(path):
            now = backend.read_register('rp1', REGS.TIMESTAMP)
            expected = model.process(frame, now=now)
            assert simple_dma.transfer(backend, 'rp1', frame) == [expected], (
                path.name, frames)
            frames += 1
            if expected != frame:
                marked[path.name] = marked.get(path.name, 0) + 1
    # every class of the policy that the captures classify got marks
    assert sum(marked.values()) > 0
    report('vTC region loaded with settings %s: %d real frames, DSCP-marked '
           'as the model says: %s' % (SETTINGS, frames, marked))


def test_settings_the_module_does_not_take_fail_the_load_unwritten(cloud):
    cloud.start('b0')
    data = module_for('rp0')  # the loopback: no settings
    instance = str(uuid.uuid4())
    with pytest.raises(api.LoadFailed, match='validate: property '
                       'vtc:dscp:sip is not a setting of module loopback'):
        cloud.client.load({}, 'b0', 'rp0', instance, 'loop-image',
                          hashlib.sha256(data).hexdigest(), data,
                          settings={'vtc:dscp:sip': 46})
    region = cloud.client.describe({}, 'b0')['regions'][0]
    assert (region['state'], region['decoupled']) == ('FAILED', True)
    assert region['module_id'] is None  # nothing was written
