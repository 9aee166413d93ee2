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

"""The steps of a load and an unload, and of bringing a module up.

A load's steps run in order (``Load.STEPS``), each a method of the same
name; the step reached is persisted before it runs, so an agent killed at
any step restarts knowing where it was (``reconcile``).  A step that fails
(an invalid bitstream, the port, a register, a check) raises StepFailed
with its name; the manager leaves the region decoupled and FAILED with the
step and the cause.  Other regions and the static shell are never touched.
"""
import dataclasses
import hashlib

from oslo_log import log as logging

from nova_fpga import bitstream
from nova_fpga.bitstream import container
from nova_fpga.contract import states
from nova_fpga_agent.backends import base
from nova_fpga_agent.regions import network as nw
from nova_fpga_agent.regions import persistence
from nova_fpga_agent.regions import report

LOG = logging.getLogger(__name__)

#: what a failing step raises; other exceptions are not a load's failure
STEP_ERRORS = (bitstream.BitstreamError, base.PortError, base.RegisterError,
               ValueError)


class StepFailed(Exception):
    def __init__(self, step, cause):
        super().__init__('%s: %s' % (step, cause))
        self.step = step


class Steps:
    """Named steps run in order; the step reached is ``step``."""

    STEPS = ()
    #: persist each step reached in the region's state
    persist_steps = False

    def __init__(self, manager, task):
        self.manager = manager
        self.backend = manager.backend
        self.spec = task.spec
        self.rs = task.rs
        self.step = self.STEPS[0]

    def run(self):
        """Run every step; :raises StepFailed: one failed."""
        try:
            for step in self.STEPS:
                if step != self.step:
                    self.step = step
                    if self.persist_steps:
                        self.manager.records.set(self.rs, step=step)
                getattr(self, step)()
        except STEP_ERRORS as exc:
            raise StepFailed(self.step, exc)


class Load(Steps):
    """A bitstream into a LOADING region (its first step, validate, is
    recorded when the region is claimed).
    """

    STEPS = ('validate', 'decouple', 'write', 'check_port', 'couple',
             'reset', 'check_id', 'after_reset', 'settings', 'start_datapath',
             'persist')
    persist_steps = True

    def __init__(self, manager, task, data, sha256, verified=False):
        super().__init__(manager, task)
        self.data = data
        self.sha256 = sha256
        #: the data is known to have this digest (the cache checked it)
        self.verified = verified
        self.info = None
        self.writes = None
        #: seconds the configuration port took
        self.port_seconds = None

    def validate(self):
        """The one digest and the one parse of the load's bytes: the
        parse is what the backend writes by (Backend.write_partial).
        """
        if not self.verified and \
                hashlib.sha256(self.data).hexdigest() != self.sha256:
            raise ValueError('the bitstream does not have the SHA-256 '
                             'digest the request names')
        info = self.info = dataclasses.replace(
            bitstream.validate(self.data, digest=False), sha256=self.sha256)
        manifest = self.manager.manifest
        if info.device.idcode != manifest.device.idcode:
            raise ValueError('bitstream is for %s, the board is %s'
                             % (info.device.name, manifest.device.name))
        if not info.partial:
            raise ValueError('a full bitstream cannot go into a region')
        # SettingError (a ValueError) names a setting the module declared
        # does not take, before anything is written
        self.writes = self.manager.catalogue.register_writes(
            info.module_id if info.module_declared else None,
            self.rs.settings or {})
        if info.footprint != self.spec.footprint:
            raise ValueError(
                'bitstream footprint %s does not match region %s '
                '(footprint %s): it was built for another region or shell'
                % (info.footprint.signature, self.spec.name,
                   self.spec.footprint.signature))

    def decouple(self):
        self.backend.dma_stop(self.spec.name)
        self.backend.set_decoupled(self.spec.name, True)

    def write(self):
        self.port_seconds = self.backend.write_partial(
            self.spec.name, self.data, self.info)

    def check_port(self):
        held = self.backend.loaded_module(self.spec.name)
        if held != self.info.module_id:
            raise ValueError('after the write the region holds %s, not '
                             'module %s' % (report.module_text(held),
                                            report.module_text(
                                                self.info.module_id)))

    def couple(self):
        self.backend.set_decoupled(self.spec.name, False)

    def reset(self):
        self.backend.module_reset(self.spec.name)

    def check_id(self):
        if self.info.module_declared:
            found = self.backend.read_register(
                self.spec.name,
                self.manager.catalogue.common.registers.MODULE_ID)
            if found != self.info.module_id:
                raise ValueError('module ID register reads 0x%08X, the '
                                 'bitstream declares 0x%08X'
                                 % (found, self.info.module_id))

    def after_reset(self):
        if self.info.module_declared:
            nw.after_reset(self.backend, self.spec.name,
                           self.manager.catalogue.get(self.info.module_id))

    def settings(self):
        nw.write_settings(self.backend, self.spec.name, self.writes)

    def start_datapath(self):
        if self.info.module_declared:
            self.backend.dma_start(self.spec.name)

    def persist(self):
        self.manager.records.set(self.rs, state=states.ACTIVE,
                                 module_id=self.info.module_id, step=None)


class Unload(Steps):
    """An UNLOADING region made safe and freed."""

    STEPS = ('decouple', 'free')

    def decouple(self):
        make_safe(self.backend, self.spec.name)

    def free(self):
        persistence.free(self.rs)
        self.manager.records.set(self.rs)


def make_safe(backend, name):
    """Stop the region's data path and decouple it (which holds its
    module in reset); never raises: a region is made as safe as it can be.
    """
    try:
        backend.dma_stop(name)
        if not backend.is_decoupled(name):
            backend.set_decoupled(name, True)
    except Exception:
        LOG.exception('region %s: could not decouple', name)


def run_module(manager, name, rs, couple):
    """Bring the region's module up: couple it (``couple``), reset it,
    do what its catalogue entry says to after a reset, write the tenant's
    settings (a reset clears them), its data path stopped meanwhile, then
    start its data path.

    :raises base.PortError, base.RegisterError, ValueError:
    """
    backend = manager.backend
    if couple:
        backend.set_decoupled(name, False)
    register_writes = nw.writes(manager.catalogue, rs)
    backend.dma_stop(name)
    backend.module_reset(name)
    if rs.module_id != container.NO_USER_ID:
        nw.after_reset(backend, name, manager.catalogue.get(rs.module_id))
    nw.write_settings(backend, name, register_writes)
    if rs.module_id != container.NO_USER_ID:
        backend.dma_start(name)


def reconcile(manager, rs):
    """Reconcile a region's saved state with the hardware at start-up."""
    name = rs.region
    backend = manager.backend
    held = backend.loaded_module(name)
    if rs.state in (states.LOADING, states.UNLOADING):
        manager.report.record(name, rs.instance_uuid,
                              'agent restarted during %s at step %s'
                              % (rs.state.lower(), rs.step))
        make_safe(backend, name)
        if rs.state == states.LOADING:
            rs.state, rs.error = states.FAILED, (
                'agent restarted during the load, at step %s' % rs.step)
        else:
            persistence.free(rs)
    elif rs.state in states.HOLDING_MODULE and held != rs.module_id:
        make_safe(backend, name)
        rs.state, rs.error = states.FAILED, (
            'the fabric no longer holds module %s (board rebooted or '
            'reconfigured behind the agent)' % report.module_text(
                rs.module_id))
    elif rs.state in (states.FREE, states.FAILED):
        make_safe(backend, name)
    elif rs.state == states.ACTIVE:
        # It was running: the fabric kept the module, but the DMA path
        # is the agent's and starts again with it.
        if backend.is_decoupled(name):
            backend.set_decoupled(name, False)
        if rs.module_id != container.NO_USER_ID:
            backend.dma_start(name)
    LOG.info('region %s reconciled: %s%s', name, rs.state,
             ' (%s)' % rs.error if rs.error else '')
