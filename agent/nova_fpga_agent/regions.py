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

"""What the agent does to regions: load, unload, power, reset, report.

Every operation on a region holds that region's lock (a second one is
refused as busy, not queued behind a load that may take seconds), and every
state change is persisted before the hardware is touched further, so an
agent killed at any step restarts knowing where it was.  A load that fails
at any step leaves the region decoupled and FAILED with the step and the
cause; other regions and the static shell are never touched.

A region's VLANs (its ports' or its manifest's) are part of its persisted
state, and the data plane is programmed from that state at every save: a
region steers frames only while it holds a module, a VLAN enters at most
one region, and an agent restarting programs what its state file says.

So are the tenant's settings of its module's registers (the catalogue's
tenant settings, checked against the module the bitstream declares): they
are written, and read back, after every reset of the module (load, power
on, reset, the end of the watchdog's hold) and before its data path
starts, so no frame passes the module with its reset values.
"""
import dataclasses
import hashlib
import re
import threading
import time
import uuid

from oslo_log import log as logging

from nova_fpga import bitstream
from nova_fpga.bitstream import container
from nova_fpga import catalogue
from nova_fpga.contract import agent_api as api
from nova_fpga.contract import network as net
from nova_fpga.contract import reports
from nova_fpga.contract import states
import nova_fpga_agent
from nova_fpga_agent.backends import base
from nova_fpga_agent import dataplane
from nova_fpga_agent import state as st

LOG = logging.getLogger(__name__)

# fullmatch: '$' would take a trailing newline
SHA256 = re.compile(r'[0-9a-f]{64}')
IMAGE_ID = re.compile(r'[A-Za-z0-9-]{1,64}')
#: more settings than any module has registers are refused unread
MAX_SETTINGS = 256


class _StepFailed(Exception):
    def __init__(self, step, cause):
        super().__init__('%s: %s' % (step, cause))
        self.step = step


class RegionManager:
    def __init__(self, manifest, backend, store, board_name,
                 max_bitstream_bytes=api.DEFAULT_MAX_BITSTREAM_BYTES,
                 cache=None, module_catalogue=None, dataplane=None):
        self.manifest = manifest
        #: what the modules' registers and counters are (nova_fpga.catalogue)
        self.catalogue = module_catalogue or catalogue.load()
        #: BitstreamCache of loaded bitstreams (None: no cache)
        self.cache = cache
        #: the board's DataPlane (None: no data interface)
        self.dataplane = dataplane
        self.backend = backend
        self.store = store
        self.board_name = board_name
        self.max_bitstream_bytes = max_bitstream_bytes
        self.boot_id = str(uuid.uuid4())
        self.started_at = time.time()
        self._locks = {r.name: threading.Lock() for r in manifest.regions}
        self._save_lock = threading.Lock()
        #: held from a load's VLAN check until its region is LOADING
        self._vlan_lock = threading.Lock()
        #: numbers reports in the order they read the regions
        self._report_lock = threading.Lock()
        self._sequence = 0
        #: called after every operation that may have changed a region
        self.changed = lambda: None
        self.states = {}
        #: region name -> [(instance UUID the line concerns, line)]
        self.log = {r.name: [] for r in manifest.regions}
        #: why the board holds every region off the shell (the watchdog's
        #: hold); None: fit
        self.unfit = None
        #: degrees Celsius the watchdog last read (None: no watchdog)
        self.temperature = None
        #: why the state file is behind the regions (its directory full or
        #: read-only); None: it is current
        self.unsaved = None

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
        names = [r.name for r in self.manifest.regions]
        try:
            self.states = self.store.load(names)
        except st.StateCorrupt as exc:
            LOG.error('%s; every region is decoupled and marked FAILED until '
                      'it is unloaded', exc)
            self.states = {n: st.RegionState(
                n, states.FAILED, error='state lost: %s' % exc) for n in names}
        for name in names:
            self._reconcile(self.states[name])
        self._save()

    def _reconcile(self, rs):
        name = rs.region
        held = self.backend.loaded_module(name)
        if rs.state in (states.LOADING, states.UNLOADING):
            self._record(name, rs.instance_uuid,
                         'agent restarted during %s at step %s'
                         % (rs.state.lower(), rs.step))
            self._make_safe(name)
            if rs.state == states.LOADING:
                rs.state, rs.error = states.FAILED, (
                    'agent restarted during the load, at step %s' % rs.step)
            else:
                self._free(rs)
        elif rs.state in states.HOLDING_MODULE and held != rs.module_id:
            self._make_safe(name)
            rs.state, rs.error = states.FAILED, (
                'the fabric no longer holds module %s (board rebooted or '
                'reconfigured behind the agent)' % _hex(rs.module_id))
        elif rs.state in (states.FREE, states.FAILED):
            self._make_safe(name)
        elif rs.state == states.ACTIVE:
            # It was running: the fabric kept the module, but the DMA path
            # is the agent's and starts again with it.
            if self.backend.is_decoupled(name):
                self.backend.set_decoupled(name, False)
            if rs.module_id != container.NO_USER_ID:
                self.backend.dma_start(name)
        LOG.info('region %s reconciled: %s%s', name, rs.state,
                 ' (%s)' % rs.error if rs.error else '')

    def _make_safe(self, name):
        try:
            self.backend.dma_stop(name)
            if not self.backend.is_decoupled(name):
                self.backend.set_decoupled(name, True)
        except Exception:
            LOG.exception('region %s: could not decouple', name)

    # -- helpers -----------------------------------------------------------

    def _save(self):
        """Write the state file and program the data plane from the
        regions.

        The regions are what the hardware now does, so a file that cannot
        be written does not undo them: the board reports it, takes no load
        (_claim) and writes the file again at every save and report
        (save_pending) until the directory takes it.
        """
        with self._save_lock:
            try:
                self.store.save(self.states)
            except OSError as exc:
                why = 'region state cannot be saved in %s: %s' % (
                    self.store.state_dir, exc)
                if why != self.unsaved:
                    LOG.error('%s; the board takes no load until it can',
                              why)
                self.unsaved = why
            else:
                if self.unsaved is not None:
                    LOG.info('region state saved again in %s',
                             self.store.state_dir)
                self.unsaved = None
            if self.dataplane is not None:
                self.dataplane.program(self._routes())

    def save_pending(self):
        """Write the state file again if it is behind (the agent's periodic
        report calls this).
        """
        if self.unsaved is not None:
            self._save()
            self.changed()

    def _vlans(self, name):
        """(ingress VLAN, egress VLAN) of a region by its state: its
        ports' (None where a port is gone), or its manifest's when it has
        no ports.
        """
        rs = self.states[name]
        if rs.network is None:
            vlan = self.manifest.region(name).vlan
            return vlan, vlan
        network = net.RegionNetwork.from_dict(rs.network)
        return tuple(p.vlan if p else None
                     for p in (network.ingress, network.egress))

    def _routes(self):
        """The data plane's routes: the regions holding a module, by the
        VLAN their frames enter by.
        """
        routes = {}
        for spec in self.manifest.regions:
            if self.states[spec.name].state not in states.HOLDING_MODULE:
                continue
            ingress, egress = self._vlans(spec.name)
            if ingress is None:
                continue
            if ingress in routes:
                LOG.error('regions %s and %s both have ingress VLAN %d: '
                          'only %s is steered', routes[ingress].region,
                          spec.name, ingress, routes[ingress].region)
                continue
            routes[ingress] = dataplane.Route(spec.name, egress)
        return routes

    def _check_vlan_free(self, name, network):
        """Refuse a load whose ingress VLAN enters another region."""
        vlan = (network.ingress.vlan if network is not None
                else self.manifest.region(name).vlan)
        for other, rs in self.states.items():
            if other != name and rs.state in (
                    (states.LOADING,) + states.HOLDING_MODULE) \
                    and self._vlans(other)[0] == vlan:
                raise api.RegionBusy(
                    'VLAN %d already enters region %s of board %s'
                    % (vlan, other, self.board_name))

    @staticmethod
    def _network(network):
        """A load's RegionNetwork argument, checked (None: none).

        Only in the form the contract writes it (RegionNetwork.to_dict):
        from_dict alone would take a VLAN '100' or 100.7 as 100.
        """
        if network is None:
            return None
        try:
            checked = net.RegionNetwork.from_dict(network)
        except ValueError as exc:
            raise api.InvalidRequest('network: %s' % exc)
        if checked.to_dict() != network or any(
                type(p['vlan']) is not int
                for p in network.values() if p is not None):
            raise api.InvalidRequest(
                'network %r is not in its RPC form %r'
                % (network, checked.to_dict()))
        if checked.ingress is None:
            # a port gone is a state a region reaches, not one it loads in
            raise api.InvalidRequest('network %r has no ingress port: '
                                     'frames could not enter the region'
                                     % (network,))
        return checked

    @staticmethod
    def _settings(settings):
        """A load's settings argument in its RPC form ({name: int}), or
        None; whether the module takes them is checked once the bitstream
        says which module it is (_load_steps).
        """
        if settings is None or settings == {}:
            return None
        if (not isinstance(settings, dict) or len(settings) > MAX_SETTINGS
                or not all(isinstance(k, str) and type(v) is int
                           for k, v in settings.items())):
            raise api.InvalidRequest('settings must map at most %d '
                                     'property names to integers'
                                     % MAX_SETTINGS)
        return settings

    def _writes(self, rs):
        """[(Setting, value)] of the tenant's settings of the region's
        module (checked again: a state file is not trusted either).
        """
        module_id = (None if rs.module_id == container.NO_USER_ID
                     else rs.module_id)
        return self.catalogue.register_writes(module_id, rs.settings or {})

    def _reset_module(self, name, writes):
        """Reset the module and write the tenant's settings (a reset
        clears them), its data path stopped meanwhile; the caller starts
        it again.

        :raises base.RegisterError: a setting did not read back.
        """
        self.backend.dma_stop(name)
        self.backend.module_reset(name)
        self._write_settings(name, writes)

    def _write_settings(self, name, writes):
        for setting, value in writes:
            self.backend.write_register(name, setting.offset, value)
            found = self.backend.read_register(name, setting.offset)
            if found & setting.mask != value:
                raise base.RegisterError(
                    'setting %s: register 0x%X reads 0x%X after 0x%X was '
                    'written' % (setting.name, setting.offset, found, value))

    def _set(self, rs, **changes):
        for key, value in changes.items():
            setattr(rs, key, value)
        rs.updated_at = time.time()
        self._save()

    def _claim(self, rs, **changes):
        """_set for a region taken for an instance: recorded before anything
        is done, or not taken at all.
        """
        before = dataclasses.replace(rs)
        self._set(rs, **changes)
        if self.unsaved is not None:
            vars(rs).update(vars(before))
            self._save()
            raise api.StateNotSaved('board %s cannot take region %s: %s'
                                    % (self.board_name, rs.region,
                                       self.unsaved))

    def _record(self, region, instance, message):
        """The region's log, each line tagged with the instance it concerns:
        a server's console output shows its own lines only.
        """
        line = '%s %s' % (time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
                          message)
        entries = self.log[region]
        entries.append((instance, line))
        del entries[:-200]
        LOG.info('region %s: %s', region, message)

    def _region(self, name):
        if not isinstance(name, str):
            raise api.InvalidRequest('region must be a name')
        try:
            return self.manifest.region(name)
        except KeyError:
            raise api.InvalidRequest('board %s has no region %r (it has %s)'
                                     % (self.board_name, name, ', '.join(
                                         r.name for r in
                                         self.manifest.regions)))

    def _acquire(self, name):
        lock = self._locks[name]
        if not lock.acquire(blocking=False):
            raise api.RegionBusy('region %s is busy: another operation is in '
                                 'progress' % name)
        return lock

    def _check_fit(self, what):
        if self.unfit is not None:
            raise api.HardwareError('board %s cannot %s now: %s'
                                    % (self.board_name, what, self.unfit))

    @staticmethod
    def _instance(instance_uuid):
        """An instance UUID as nova writes it (lower-case, hyphenated):
        uuid.UUID alone takes braces, 'urn:uuid:', blanks, underscores
        and, through str(), a 32-digit integer.
        """
        try:
            return _canonical_uuid(instance_uuid)
        except ValueError:
            raise api.InvalidRequest('instance %r is not a UUID'
                                     % (instance_uuid,))

    def _held(self, rs, instance, lost_ok=True):
        """Refuse an instance that does not hold the region.

        lost_ok: a FAILED region whose state was lost is anyone's to
        clear (not anyone's to read).
        """
        if lost_ok and rs.state == states.FAILED and rs.instance_uuid is None:
            return
        if rs.instance_uuid != instance:
            raise api.RegionNotHeld('region %s is not held by instance %s'
                                    % (rs.region, instance))

    def _free(self, rs):
        rs.state = states.FREE
        rs.instance_uuid = rs.image_id = rs.sha256 = None
        rs.module_id = rs.step = rs.error = rs.network = None
        rs.settings = None

    # -- operations --------------------------------------------------------

    def load(self, region, instance_uuid, image_id, sha256, data,
             network=None, settings=None):
        """Load data into the region for the instance; data None means
        the bitstream this board cached under sha256.  network: the
        RegionNetwork (dict) of its ports; None: the manifest's VLAN.
        settings: {server property: number} of the module's tenant
        settings; None: its registers keep their reset values.
        """
        spec = self._region(region)
        instance = self._instance(instance_uuid)
        network = self._network(network)
        settings = self._settings(settings)
        if not isinstance(image_id, str) or not IMAGE_ID.fullmatch(image_id):
            raise api.InvalidRequest('image %r is not an image ID'
                                     % (image_id,))
        if not isinstance(sha256, str) or not SHA256.fullmatch(sha256):
            raise api.InvalidRequest('sha256 %r is not a hex SHA-256 digest'
                                     % (sha256,))
        if data is None:
            data = self.cache.get(sha256) if self.cache else None
            if data is None:
                raise api.NotCached('board %s has no cached bitstream %s'
                                    % (self.board_name, sha256))
        if len(data) > self.max_bitstream_bytes:
            raise api.InvalidRequest('bitstream of %d bytes exceeds the '
                                     '%d-byte limit' % (
                                         len(data), self.max_bitstream_bytes))
        lock = self._acquire(region)
        try:
            self._check_fit('load a region')
            rs = self.states[region]
            if rs.state != states.FREE and rs.instance_uuid != instance:
                raise api.RegionBusy('region %s is held by instance %s (%s)'
                                     % (region, rs.instance_uuid, rs.state))
            reload = rs.state in states.HOLDING_MODULE  # by its instance
            with self._vlan_lock:
                self._check_vlan_free(region, network)
                self._claim(rs, state=states.LOADING,
                            instance_uuid=instance, image_id=image_id,
                            sha256=sha256, module_id=None, step='validate',
                            error=None,
                            network=network.to_dict() if network else None,
                            settings=settings)
            if reload:
                self._make_safe(region)
            if self.dataplane is not None:
                self.dataplane.reset(region)
            started = time.monotonic()
            try:
                port_seconds = self._load_steps(spec, rs, data, sha256)
            except _StepFailed as exc:
                self._make_safe(region)
                self._set(
                    rs,
                    state=states.FAILED,
                    error='load failed at step %s' % exc,
                )
                self._record(region, instance, 'load of image %s failed at '
                             'step %s' % (image_id, exc))
                raise api.LoadFailed('board %s region %s: load failed at '
                                     'step %s' % (self.board_name, region,
                                                  exc), step=exc.step)
            total = time.monotonic() - started
            if self.cache is not None:
                self.cache.put(sha256, image_id, data)
            self._record(region, instance, 'loaded image %s (module %s) for '
                         'instance %s in %.3f s, %.3f s of it the '
                         'configuration port' % (
                             image_id, _hex(rs.module_id), instance, total,
                             port_seconds))
            return reports.LoadReport(
                **self._describe_region(spec).to_dict(),
                port_seconds=port_seconds,
                agent_seconds=total - port_seconds).to_dict()
        finally:
            lock.release()
            self.changed()

    def _load_steps(self, spec, rs, data, sha256):
        step = 'validate'

        def advance(name):
            nonlocal step
            step = name
            self._set(rs, step=name)

        try:
            if hashlib.sha256(data).hexdigest() != sha256:
                raise ValueError('the bitstream does not have the SHA-256 '
                                 'digest the request names')
            info = bitstream.validate(data)
            if info.device.idcode != self.manifest.device.idcode:
                raise ValueError('bitstream is for %s, the board is %s'
                                 % (info.device.name,
                                    self.manifest.device.name))
            if not info.partial:
                raise ValueError('a full bitstream cannot go into a region')
            # SettingError (a ValueError) names a setting the module
            # declared does not take, before anything is written
            writes = self.catalogue.register_writes(
                info.module_id if info.module_declared else None,
                rs.settings or {})
            if info.footprint != spec.footprint:
                raise ValueError(
                    'bitstream footprint %s does not match region %s '
                    '(footprint %s): it was built for another region or shell'
                    % (info.footprint.signature, spec.name,
                       spec.footprint.signature))
            advance('decouple')
            self.backend.dma_stop(spec.name)
            self.backend.set_decoupled(spec.name, True)
            advance('write')
            port_seconds = self.backend.write_partial(spec.name, data)
            advance('check_port')
            held = self.backend.loaded_module(spec.name)
            if held != info.module_id:
                raise ValueError('after the write the region holds %s, not '
                                 'module %s' % (_hex(held),
                                                _hex(info.module_id)))
            advance('couple')
            self.backend.set_decoupled(spec.name, False)
            advance('reset')
            self.backend.module_reset(spec.name)
            advance('check_id')
            if info.module_declared:
                found = self.backend.read_register(
                    spec.name, self.catalogue.common.registers.MODULE_ID)
                if found != info.module_id:
                    raise ValueError('module ID register reads 0x%08X, the '
                                     'bitstream declares 0x%08X'
                                     % (found, info.module_id))
            advance('settings')
            self._write_settings(spec.name, writes)
            advance('start_datapath')
            if info.module_declared:
                self.backend.dma_start(spec.name)
            advance('persist')
            self._set(rs, state=states.ACTIVE, module_id=info.module_id,
                      step=None)
            return port_seconds
        except (bitstream.BitstreamError, base.PortError,
                base.RegisterError, ValueError) as exc:
            raise _StepFailed(step, exc)

    def unload(self, region, instance_uuid):
        self._region(region)
        instance = self._instance(instance_uuid)
        lock = self._acquire(region)
        try:
            rs = self.states[region]
            if rs.state == states.FREE:
                return self._describe_region(
                    self.manifest.region(region)).to_dict()
            self._held(rs, instance)
            self._set(rs, state=states.UNLOADING)
            self._make_safe(region)
            self._free(rs)
            self._set(rs)
            self._record(region, instance, 'unloaded for instance %s; region '
                         'free and decoupled' % instance)
            return self._describe_region(
                self.manifest.region(region)
            ).to_dict()
        finally:
            lock.release()
            self.changed()

    def detach_port(self, region, instance_uuid, port_id):
        """Forget a port of the region: frames of its VLAN no longer
        enter (or leave) it.  Nothing to do when the region does not have
        the port (already forgotten, or freed).
        """
        self._region(region)
        instance = self._instance(instance_uuid)
        try:
            port_id = _canonical_uuid(port_id)
        except ValueError:
            raise api.InvalidRequest('port %r is not a UUID' % (port_id,))
        lock = self._acquire(region)
        try:
            rs = self.states[region]
            if rs.network is not None:
                self._held(rs, instance, lost_ok=False)
                network = net.RegionNetwork.from_dict(rs.network)
                if port_id in network.port_ids():
                    self._set(rs, network=network.without(port_id).to_dict())
                    self._record(region, instance, 'port %s detached: its '
                                 'VLAN no longer reaches the region'
                                 % port_id)
            return self._describe_region(
                self.manifest.region(region)).to_dict()
        finally:
            lock.release()
            self.changed()

    def power(self, region, instance_uuid, state):
        self._region(region)
        instance = self._instance(instance_uuid)
        if state not in states.POWER_STATES:
            raise api.InvalidRequest('power state must be one of %s'
                                     % ', '.join(states.POWER_STATES))
        lock = self._acquire(region)
        try:
            rs = self.states[region]
            self._held(rs, instance)
            if rs.state not in states.HOLDING_MODULE:
                raise api.RegionBusy('region %s is %s: only an ACTIVE or '
                                     'STOPPED region changes power'
                                     % (region, rs.state))
            try:
                if state == states.POWER_OFF:
                    self._make_safe(region)
                    self._set(rs, state=states.STOPPED)
                else:
                    self._check_fit('power a region on')
                    self.backend.set_decoupled(region, False)
                    self._reset_module(region, self._writes(rs))
                    if rs.module_id != container.NO_USER_ID:
                        self.backend.dma_start(region)
                    self._set(rs, state=states.ACTIVE)
            except (base.PortError, base.RegisterError, ValueError) as exc:
                self._make_safe(region)
                self._set(rs, state=states.FAILED, error='power %s: %s'
                          % (state, exc))
                raise api.HardwareError('region %s: power %s failed: %s'
                                        % (region, state, exc))
            self._record(region, instance, 'power %s' % state)
            return self._describe_region(
                self.manifest.region(region)
            ).to_dict()
        finally:
            lock.release()
            self.changed()

    def reset(self, region, instance_uuid):
        self._region(region)
        instance = self._instance(instance_uuid)
        lock = self._acquire(region)
        try:
            rs = self.states[region]
            self._held(rs, instance)
            if rs.state != states.ACTIVE:
                raise api.RegionBusy('region %s is %s: only an ACTIVE region '
                                     'is reset' % (region, rs.state))
            self._check_fit('reset a module')
            try:
                self._reset_module(region, self._writes(rs))
                if rs.module_id != container.NO_USER_ID:
                    self.backend.dma_start(region)
            except (base.PortError, base.RegisterError, ValueError) as exc:
                self._make_safe(region)
                self._set(rs, state=states.FAILED,
                          error='reset: %s' % exc)
                raise api.HardwareError('region %s: reset failed: %s'
                                        % (region, exc))
            self._record(region, instance, 'module reset')
            return self._describe_region(
                self.manifest.region(region)
            ).to_dict()
        finally:
            lock.release()
            self.changed()

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
                with self._locks[spec.name]:
                    self._make_safe(spec.name)
                    self._record_holder(spec.name, 'board unfit (%s): region '
                                        'decoupled, module held in reset'
                                        % reason)
        finally:
            self.changed()

    def release(self, why):
        """End the hold: couple the regions that ran, reset their modules
        and start their data paths, as a power-on does (one that fails is
        FAILED), then take work again.
        """
        try:
            for spec in self.manifest.regions:
                with self._locks[spec.name]:
                    self._restart(spec.name, why)
            self.unfit = None
        finally:
            self.changed()

    def _restart(self, name, why):
        rs = self.states[name]
        try:
            if rs.state == states.ACTIVE:
                self.backend.set_decoupled(name, False)
                self._reset_module(name, self._writes(rs))
                if rs.module_id != container.NO_USER_ID:
                    self.backend.dma_start(name)
        except (base.PortError, base.RegisterError, ValueError) as exc:
            self._make_safe(name)
            self._set(rs, state=states.FAILED,
                      error='restart after the board %s: %s' % (why, exc))
            self._record_holder(name, rs.error)
        if rs.state == states.ACTIVE:
            self._record_holder(name, 'board %s: region running again' % why)

    def _record_holder(self, name, message):
        """A line in the region's log for the instance holding it."""
        instance = self.states[name].instance_uuid
        if instance is not None:
            self._record(name, instance, message)

    # -- reports -----------------------------------------------------------

    def _next_sequence(self):
        """The next report number; call with _report_lock held, then read
        the regions under it, so numbers follow the order of the reads.
        """
        self._sequence += 1
        return self._sequence

    def _describe_region(self, spec, sequence=None):
        """A region's report; an operation's answer numbered on its own
        (sequence None), a board report's regions with the board's.
        """
        if sequence is None:
            with self._report_lock:
                return self._describe_region(spec, self._next_sequence())
        rs = self.states[spec.name]
        return reports.RegionReport(
            name=spec.name,
            footprint=spec.footprint.to_dict(),
            traits=self.manifest.region_traits(spec),
            vlan=spec.vlan,
            state=rs.state,
            decoupled=self.backend.is_decoupled(spec.name),
            instance_uuid=rs.instance_uuid,
            image_id=rs.image_id,
            sha256=rs.sha256,
            module_id=_hex(rs.module_id) if rs.module_id is not None
            else None,
            error=rs.error,
            network=rs.network,
            settings=rs.settings,
            boot_id=self.boot_id,
            sequence=sequence)

    def describe(self):
        with self._report_lock:
            return self._describe(self._next_sequence())

    def _describe(self, sequence):
        return reports.BoardReport(
            board=self.board_name,
            device=self.manifest.device.name,
            idcode='0x%08X' % self.manifest.device.idcode,
            shell_id=self.manifest.shell_id,
            shell_version=self.manifest.version,
            backend=self.backend.name,
            agent_version=nova_fpga_agent.__version__,
            api_version=api.API_VERSION,
            boot_id=self.boot_id,
            booted_at=self.started_at,
            sequence=sequence,
            regions=[self._describe_region(r, sequence)
                     for r in self.manifest.regions],
            cached=[reports.CachedBitstream(e['sha256'], e['image_id'])
                    for e in (self.cache.entries() if self.cache else [])],
            unfit=self.unfit,
            state_unsaved=self.unsaved,
            temperature=self.temperature,
        ).to_dict()

    def health(self):
        return reports.HealthReport(
            board=self.board_name, status='ok', boot_id=self.boot_id,
            uptime=time.time() - self.started_at,
            regions={n: s.state for n, s in self.states.items()},
            unsteered_frames=self.dataplane.unsteered if self.dataplane
            else None).to_dict()

    def stats(self, region, instance_uuid):
        """The region's counters and log as the instance holding it may see
        them: its own log lines, the module's counters and the data-plane
        counters (both start again at its load), nothing of other holders.
        """
        spec = self._region(region)
        instance = self._instance(instance_uuid)
        rs = self.states[region]
        self._held(rs, instance, lost_ok=False)
        counters = {}
        if rs.state == states.ACTIVE and rs.module_id not in (
                None, container.NO_USER_ID):
            try:
                counters = self.catalogue.read_counters(
                    rs.module_id,
                    lambda off: self.backend.read_register(region, off))
            except (base.RegisterError, ValueError) as exc:
                counters = {'error': str(exc)}
        answer = reports.RegionStats(
            region=spec.name, state=rs.state,
            module_id=_hex(rs.module_id) if rs.module_id is not None
            else None,
            module=counters,
            dataplane=self.dataplane.counters(region) if self.dataplane
            else {},
            log=[line for owner, line in list(self.log[region])
                 if owner == instance],
            board_unfit=self.unfit).to_dict()
        # read without the region's lock (a console need not wait for a
        # load): an unload and another's load meanwhile would have given
        # the caller their counters
        self._held(rs, instance, lost_ok=False)
        return answer


def _canonical_uuid(value):
    """value when it is a UUID in its canonical text form; ValueError
    otherwise.
    """
    if not isinstance(value, str) or str(uuid.UUID(value)) != value:
        raise ValueError(value)
    return value


def _hex(value):
    if value is None:
        return 'none'
    if value == container.NO_USER_ID:
        return 'opaque'
    return '0x%08X' % value
