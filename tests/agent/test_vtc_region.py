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
reports over RPC are the module's, equal to the model's.  The agent loads
the application table after every reset of the module, so flows are named
(flows_named) and a tenant's policy by application (vtc:dscp:app:<name>)
marks them."""
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
import vtc_model  # noqa: E402
from vtc_model import VtcModel  # noqa: E402
import vtc_names  # noqa: E402

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
    for number, name in enumerate(REGS.labels('APP_FLOWS')[1:], 1):
        counts = model.app_counters.get(number, {})
        for what in ('flows', 'packets', 'bytes'):
            out['app_%s_%s' % (name, what)] = counts.get(what, 0)
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
    # the agent loaded the application table and set NAMES_ON
    model = VtcModel(applications=vtc_names.load())
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
    assert stats['module']['flows_named'] > 0
    # by application too (every frame sent once the one before left and
    # its name was read: as the model, which names at once)
    by_app = {k: v for k, v in stats['module'].items()
              if k.startswith('app_') and v}
    assert sum(v for k, v in by_app.items() if k.endswith('_flows')) \
        == stats['module']['flows_named']
    classified = {k: v for k, v in stats['module'].items()
                  if k.endswith('_packets') and not k.startswith('app_') and v}
    report('vTC region on the emulated board: %d real frames, %d DSCP-marked, '
           'packets per class %s; by application %s'
           % (frames, marked, classified, by_app))


#: a tenant's policy (server properties): classes the captures carry, and
#: an application whose flows are TLS and DNS flows of the captures (its
#: DSCP, not theirs)
SETTINGS = {'vtc:dscp:sip': 46, 'vtc:dscp:smtp': 10, 'vtc:dscp:tls': 18,
            'vtc:dscp:dns': 0, 'vtc:dscp:app:google': 34}


def dscp_of(frame):
    """The DSCP of a parsed frame (IPv4 or IPv6)."""
    parsed = vtc_model.parse(frame)
    tc = frame[parsed.l3 + 1] if parsed.version == 4 else \
        (frame[parsed.l3] & 0x0F) << 4 | frame[parsed.l3 + 1] >> 4
    return tc >> 2


def model_for(settings):
    """The model of a module loaded with settings: the application table
    the agent writes, each setting's register value (POLICY or APP_POLICY
    element) as the catalogue makes it.
    """
    model = VtcModel(applications=vtc_names.load())
    for setting in VTC.settings:
        if setting.name in settings:
            label = setting.register.labels.names[setting.index]
            value = setting.value(settings[setting.name])
            if setting.register.name == 'POLICY':
                model.set_policy(label, value)
            else:
                model.set_app_policy(label, value)
    return model


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

    def registers():
        return {(name, label): backend.read_register(
            'rp1', REGS.at(name, label))
            for name in ('POLICY', 'APP_POLICY')
            for label in REGS.labels(name)[1:]}
    enable = REGS.bit('POLICY', 'ENABLE')
    decides = enable | REGS.bit('APP_POLICY', 'DECIDES')
    wanted = dict.fromkeys(registers(), 0)
    wanted.update({('POLICY', 'sip'): enable | 46,
                   ('POLICY', 'smtp'): enable | 10,
                   ('POLICY', 'tls'): enable | 18,
                   ('POLICY', 'dns'): enable,
                   ('APP_POLICY', 'google'): decides | 34})
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

    model = model_for(SETTINGS)
    frames, marked, dscps = 0, {}, {}
    for path in vtc_captures.ndpi_capture_paths():
        for frame in vtc_captures.read_frames(path):
            now = backend.read_register('rp1', REGS.TIMESTAMP)
            expected = model.process(frame, now=now)
            assert simple_dma.transfer(backend, 'rp1', frame) == [expected], (
                path.name, frames)
            frames += 1
            if expected != frame:
                marked[path.name] = marked.get(path.name, 0) + 1
                dscp = dscp_of(expected)
                dscps[dscp] = dscps.get(dscp, 0) + 1
    # the classes' DSCPs and the application's were each given
    assert {18, 34} <= set(dscps), dscps
    stats = cloud.client.stats({}, 'b0', 'rp1', instance)
    assert stats['module'] == model_counters(model)
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
