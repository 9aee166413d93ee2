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

"""RegionManager: what the agent's RPC endpoint and service call.

Each operation checks its arguments, takes its region (task_manager),
runs its steps (steps) and answers with the region's report (report);
the states are persisted by persistence and steer the data plane through
network.
"""
import re
import time
import uuid

from oslo_log import log as logging

from nova_fpga import catalogue
from nova_fpga.contract import agent_api as api
from nova_fpga.contract import network as net
from nova_fpga.contract import states
from nova_fpga_agent.backends import base
from nova_fpga_agent.regions import deployments
from nova_fpga_agent.regions import network as nw
from nova_fpga_agent.regions import persistence
from nova_fpga_agent.regions import report as rp
from nova_fpga_agent.regions import steps
from nova_fpga_agent.regions import task_manager as tm
from nova_fpga_agent import trust

LOG = logging.getLogger(__name__)

# fullmatch: '$' would take a trailing newline
SHA256 = re.compile(r'[0-9a-f]{64}')
IMAGE_ID = re.compile(r'[A-Za-z0-9-]{1,64}')
HARDWARE_ERRORS = (base.PortError, base.RegisterError, ValueError)


class RegionManager:
    """A board's regions, as the RPC endpoint, the service and the
    watchdog drive them; the work is done by the modules beside this one.
    """

    def __init__(self, manifest, backend, store, board_name,
                 max_bitstream_bytes=api.DEFAULT_MAX_BITSTREAM_BYTES,
                 cache=None, module_catalogue=None, dataplane=None,
                 verifier=None):
        self.manifest = manifest
        #: what the modules' registers and counters are (nova_fpga.catalogue)
        self.catalogue = module_catalogue or catalogue.load()
        #: BitstreamCache of loaded bitstreams (None: no cache)
        self.cache = cache
        #: trust.Verifier: whether a load's bitstream may be programmed
        #: (None: signatures not required, no CA trusted)
        self.verifier = verifier or trust.Verifier(
            trust.TrustStore(None), False, board_name)
        self.backend = backend
        self.board_name = board_name
        self.max_bitstream_bytes = max_bitstream_bytes
        self.boot_id = str(uuid.uuid4())
        self.started_at = time.time()
        self.locks = tm.RegionLocks(manifest)
        self._locks = self.locks.by_region  # by name (tests hold one)
        self.records = persistence.RegionRecords(
            store, [r.name for r in manifest.regions], board_name,
            on_save=lambda: self.network.program())
        self.network = nw.Network(manifest, self.records, board_name,
                                  dataplane)
        self.report = rp.Report(self)
        #: called after every operation that may have changed a region
        self.changed = lambda: None
        #: why the board holds every region off the shell (the watchdog's
        #: hold); None: fit
        self.unfit = None
        #: degrees Celsius the watchdog last read (None: no watchdog)
        self.temperature = None

    store = property(lambda self: self.records.store)
    states = property(lambda self: self.records.states)
    #: why the state file is behind the regions; None: it is current
    unsaved = property(lambda self: self.records.unsaved)
    #: the board's datapath.DataPath (None: no data interface)
    dataplane = property(lambda self: self.network.dataplane)
    log = property(lambda self: self.report.log)

    # -- start-up ----------------------------------------------------------

    def check_device(self):
        found = self.backend.idcode() & 0x0FFFFFFF
        if found != self.manifest.device.idcode:
            raise RuntimeError(
                'shell manifest is for %s (IDCODE 0x%08X) but the board has '
                'IDCODE 0x%08X' % (self.manifest.device.name,
                                   self.manifest.device.idcode, found))

    def start(self):
        """Load the saved state and reconcile it with the hardware."""
        for rs in self.records.load().values():
            steps.reconcile(self, rs)
        self.records.save()

    def save_pending(self):
        """Write the state file again if it is behind (the agent's periodic
        report calls this).
        """
        if self.records.save_pending():
            self.changed()

    def check_fit(self, what):
        if self.unfit is not None:
            raise api.HardwareError('board %s cannot %s now: %s'
                                    % (self.board_name, what, self.unfit))

    def _answer(self, task):
        return self.report.region(task.spec).to_dict()

    # -- operations --------------------------------------------------------

    def load(self, region, instance_uuid, image_id, sha256, data,
             network=None, settings=None, signature=None):
        """Load data into the region for the instance; data None means
        the bitstream this board cached under sha256.  network: the
        RegionNetwork (dict) of its ports; None: the manifest's VLAN.
        settings: {server property: number} of the module's tenant
        settings; None: its registers keep their reset values.
        signature: the image's contract BitstreamSignature (None:
        unsigned), verified (self.verifier) over the bytes to be written,
        from the cache too, before the region is touched.
        """
        tm.region_spec(self.manifest, self.board_name, region)
        instance = tm.instance(instance_uuid)
        network = nw.check_network(network)
        settings = nw.check_settings(settings)
        if not isinstance(image_id, str) or not IMAGE_ID.fullmatch(image_id):
            raise api.InvalidRequest('image %r is not an image ID'
                                     % (image_id,))
        if not isinstance(sha256, str) or not SHA256.fullmatch(sha256):
            raise api.InvalidRequest('sha256 %r is not a hex SHA-256 digest'
                                     % (sha256,))
        # the cache's bytes are checked against sha256 as it reads them
        verified = data is None
        if data is None:
            data = self.cache.get(sha256) if self.cache else None
            if data is None:
                raise api.NotCached('board %s has no cached bitstream %s'
                                    % (self.board_name, sha256))
        if len(data) > self.max_bitstream_bytes:
            raise api.InvalidRequest('bitstream of %d bytes exceeds the '
                                     '%d-byte limit' % (
                                         len(data), self.max_bitstream_bytes))
        try:
            checked = self.verifier.verify(data, signature, image_id)
        except trust.SignatureRefused as exc:
            LOG.warning('board %s refused to load image %s into region %s '
                        'for instance %s: %s', self.board_name, image_id,
                        region, instance, exc)
            # the caller says which board refused
            raise api.SignatureRefused(str(exc))
        LOG.info('image %s for region %s: %s', image_id, region, checked)
        with tm.acquire(self, region) as task:
            return deployments.load(self, task, instance, image_id, sha256,
                                    data, network, settings, verified)

    def unload(self, region, instance_uuid):
        tm.region_spec(self.manifest, self.board_name, region)
        instance = tm.instance(instance_uuid)
        with tm.acquire(self, region) as task:
            deployments.unload(self, task, instance)
            return self._answer(task)

    def detach_port(self, region, instance_uuid, port_id):
        """Forget a port of the region: frames of its VLAN no longer
        enter (or leave) it.  Nothing to do when the region does not have
        the port (already forgotten, or freed).
        """
        tm.region_spec(self.manifest, self.board_name, region)
        instance = tm.instance(instance_uuid)
        try:
            port_id = tm.canonical_uuid(port_id)
        except ValueError:
            raise api.InvalidRequest('port %r is not a UUID' % (port_id,))
        with tm.acquire(self, region) as task:
            rs = task.rs
            if rs.network is not None:
                tm.held(rs, instance, lost_ok=False)
                network = net.RegionNetwork.from_dict(rs.network)
                if port_id in network.port_ids():
                    self.records.set(
                        rs, network=network.without(port_id).to_dict())
                    self.report.record(region, instance, 'port %s detached: '
                                       'its VLAN no longer reaches the region'
                                       % port_id)
            return self._answer(task)

    def power(self, region, instance_uuid, state):
        tm.region_spec(self.manifest, self.board_name, region)
        instance = tm.instance(instance_uuid)
        if state not in states.POWER_STATES:
            raise api.InvalidRequest('power state must be one of %s'
                                     % ', '.join(states.POWER_STATES))
        with tm.acquire(self, region) as task:
            rs = task.rs
            tm.held(rs, instance)
            if rs.state not in states.HOLDING_MODULE:
                raise api.RegionBusy('region %s is %s: only an ACTIVE or '
                                     'STOPPED region changes power'
                                     % (region, rs.state))
            try:
                if state == states.POWER_OFF:
                    steps.make_safe(self.backend, region)
                    self.records.set(rs, state=states.STOPPED)
                else:
                    self.check_fit('power a region on')
                    steps.run_module(self, region, rs, couple=True)
                    self.records.set(rs, state=states.ACTIVE)
            except HARDWARE_ERRORS as exc:
                self._fail(rs, 'power %s: %s' % (state, exc))
                raise api.HardwareError('region %s: power %s failed: %s'
                                        % (region, state, exc))
            self.report.record(region, instance, 'power %s' % state)
            return self._answer(task)

    def reset(self, region, instance_uuid):
        tm.region_spec(self.manifest, self.board_name, region)
        instance = tm.instance(instance_uuid)
        with tm.acquire(self, region) as task:
            rs = task.rs
            tm.held(rs, instance)
            if rs.state != states.ACTIVE:
                raise api.RegionBusy('region %s is %s: only an ACTIVE region '
                                     'is reset' % (region, rs.state))
            self.check_fit('reset a module')
            try:
                steps.run_module(self, region, rs, couple=False)
            except HARDWARE_ERRORS as exc:
                self._fail(rs, 'reset: %s' % exc)
                raise api.HardwareError('region %s: reset failed: %s'
                                        % (region, exc))
            self.report.record(region, instance, 'module reset')
            return self._answer(task)

    def _fail(self, rs, error):
        steps.make_safe(self.backend, rs.region)
        self.records.set(rs, state=states.FAILED, error=error)

    # -- the watchdog's hold -----------------------------------------------

    def hold(self, reason):
        """Take every region off the shell while the board is unfit: refuse
        loads, power-ons and resets and decouple each region, which holds
        its module in reset (the shell's decoupler, region_decoupler.v).
        Regions keep their states, so release() knows which ran.  Waits for
        an operation in progress to finish.
        """
        self.unfit = reason
        try:
            for spec in self.manifest.regions:
                with tm.wait(self, spec.name):
                    steps.make_safe(self.backend, spec.name)
                    self.report.record_holder(
                        spec.name, 'board unfit (%s): region decoupled, '
                        'module held in reset' % reason)
        finally:
            self.changed()

    def release(self, why):
        """End the hold: couple the regions that ran, reset their modules
        and start their data paths, as a power-on does (one that fails is
        FAILED), then take work again.
        """
        try:
            for spec in self.manifest.regions:
                with tm.wait(self, spec.name) as task:
                    self._restart(task.rs, why)
            self.unfit = None
        finally:
            self.changed()

    def _restart(self, rs, why):
        if rs.state == states.ACTIVE:
            try:
                steps.run_module(self, rs.region, rs, couple=True)
            except HARDWARE_ERRORS as exc:
                self._fail(rs, 'restart after the board %s: %s' % (why, exc))
                self.report.record_holder(rs.region, rs.error)
        if rs.state == states.ACTIVE:
            self.report.record_holder(rs.region, 'board %s: region running '
                                      'again' % why)

    # -- reports -----------------------------------------------------------

    def describe(self):
        return self.report.board()

    def health(self):
        return self.report.health()

    def stats(self, region, instance_uuid):
        spec = tm.region_spec(self.manifest, self.board_name, region)
        return self.report.stats(spec, tm.instance(instance_uuid))
