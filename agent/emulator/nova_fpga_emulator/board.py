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

"""The board emulator: a Zynq's programmable logic, as the agent sees it.

It does what the silicon does where it matters: the configuration port
refuses what the PCAP would refuse (another device's IDCODE, a bad CRC, a
full bitstream, frames outside the reconfigurable regions, a region that is
not decoupled) and takes the time it would take (size / rate, reported as
modelled); a loaded module is the module's real HDL compiled with Verilator
(via the HDL bridge) behind the region's decoupler HDL (region_slot.v), found
in the module catalogue by the module ID the bitstream declares; a
bitstream with no declared module is an opaque module with no data path.
What the fabric holds survives an agent restart (a file beside the agent's
state), as the programmable logic of a board outlives its agent.
"""
import json
import os
import signal
import threading
import time

from oslo_log import log as logging

from nova_fpga import bitstream
from nova_fpga.bitstream import container
from nova_fpga.bitstream import devices
from nova_fpga import catalogue
from nova_fpga_emulator import engine
from nova_fpga_emulator import hdl_bridge
from nova_fpga_emulator import modules

LOG = logging.getLogger(__name__)

PL_FILE = 'emulated-pl.json'
#: Cycles the emulated fabric runs after a module reset: about 160 us at
#: 100 MHz, less than an agent's next step takes on a board, more than any
#: module's start-up work (the vTC clears its 4096-flow table in 1024).
SETTLE_CYCLES = 16384

OPERATIONS = ('decouple', 'pcap_write', 'couple', 'reset', 'read_id',
              'dma_start')


def _module_of(info):
    """The module a configuration holds: its header's UserID, or in a
    header-less .bin (what the FPGA manager loads) the USR_ACCESS value it
    writes; a configuration with neither is opaque.
    """
    if info.module_declared or info.usr_access is None:
        return info.module_id
    return info.usr_access


class PcapError(Exception):
    """The emulated configuration port refused or failed a write."""


class AxiError(Exception):
    """An AXI4-Lite access got SLVERR/DECERR."""


class _Region:
    def __init__(self, spec):
        self.spec = spec
        self.lock = threading.RLock()
        self.decoupled = True       # regions power up isolated
        self.module_id = None       # None: nothing configured
        self.bridge = None          # HDL of the module, when it has one
        self.dma_running = False

    def clear(self):
        if self.bridge is not None:
            self.bridge.close()
        self.bridge = None
        self.module_id = None
        self.dma_running = False


class EmulatedBoard:
    def __init__(self, manifest, part, state_dir, pcap_rate=128.0,
                 crash_at=None, module_catalogue=None, hdl_dir=None,
                 engines=None):
        """hdl_dir: a source tree's hdl/ (None: only opaque modules);
        engines: {region: engine.Engine}, the regions' DMA and module as
        the C emulated engine (the data mover's path; None: the module
        in this process, frames through dma_transfer).
        """
        self.engines = engines
        self.manifest = manifest
        #: the modules this fabric can run (nova_fpga.catalogue)
        self.catalogue = module_catalogue or catalogue.load()
        self.hdl_dir = hdl_dir
        self.device = devices.by_part(part)
        self.pcap_rate = pcap_rate
        if crash_at is not None and crash_at not in OPERATIONS:
            raise ValueError('crash_at must be one of %s' % ', '.join(
                OPERATIONS))
        self.crash_at = crash_at
        self.port_fail_after = None  # fault: fail the next write after N bytes
        self._regions = {r.name: _Region(r) for r in manifest.regions}
        self._pl_path = os.path.join(state_dir, PL_FILE)
        #: one writer of the fabric's state file at a time: regions are
        #: loaded in parallel (each under its own lock), the file is the
        #: board's
        self._persist_lock = threading.Lock()
        self._restore()

    # -- faults --------------------------------------------------------

    def _operation(self, name):
        if self.crash_at == name:
            LOG.warning('emulated board dies at %s (crash_at)', name)
            os.kill(os.getpid(), signal.SIGKILL)

    # -- the fabric outlives the agent ---------------------------------

    def _restore(self):
        try:
            with open(self._pl_path, encoding='utf-8') as f:
                saved = json.load(f)
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            LOG.warning('emulated fabric state %s unreadable (%s): the '
                        'fabric comes up empty, as after a power cycle',
                        self._pl_path, exc)
            return
        for name, hw in saved.items():
            region = self._regions.get(name)
            if region is None:
                continue
            region.decoupled = bool(hw.get('decoupled', True))
            module_id = hw.get('module_id')
            if module_id is not None:
                try:
                    self._configure(region, module_id)
                except PcapError as exc:
                    LOG.warning('region %s: %s', name, exc)

    def _persist(self):
        """Write every region's state, read under the lock, so the last
        writer writes the newest state of all of them.
        """
        with self._persist_lock:
            data = {name: {'decoupled': r.decoupled,
                           'module_id': r.module_id}
                    for name, r in self._regions.items()}
            tmp = self._pl_path + '.tmp'
            with open(tmp, 'w', encoding='utf-8') as f:
                json.dump(data, f)
            os.replace(tmp, self._pl_path)

    def _configure(self, region, module_id):
        region.clear()
        if module_id != container.NO_USER_ID:
            try:
                module = self.catalogue.by_id(module_id)
            except catalogue.UnknownModule:
                raise PcapError('the emulator has no HDL for module 0x%08X; '
                                'it cannot run it' % module_id)
            region.bridge = self._module_logic(module, region.spec.name)
            region.bridge.set_decoupled(region.decoupled)
        region.module_id = module_id

    def _module_logic(self, module, region_name=None):
        """What runs a catalogue module in a region: its Verilog behind
        the region's decoupler HDL.
        """
        if self.hdl_dir is None:
            raise PcapError('module 0x%08X (%s) runs its Verilog, and '
                            '[emulator] hdl_dir is not set: the emulator '
                            'cannot run it' % (module.module_id, module.name))
        if self.engines:
            return engine.EngineBridge(self.engines[region_name],
                                       modules.HdlModule.of(module).in_slot,
                                       self.hdl_dir)
        return hdl_bridge.HdlBridge(modules.HdlModule.of(module).in_slot,
                                    self.hdl_dir)

    # -- configuration port ----------------------------------------------

    def pcap_write(self, data, info=None):
        """Write a partial bitstream; return the modelled seconds taken.

        ``info``: what bitstream.validate() said of ``data`` when the
        caller parsed it already (the sim backend: the agent's parse);
        None: the port reads the stream itself (a fake kernel's write).
        """
        self._operation('pcap_write')
        if info is None:
            try:
                info = bitstream.validate(data, digest=False)
            except bitstream.BitstreamError as exc:
                raise PcapError('the configuration port refused the '
                                'stream: %s' % exc)
        if info.device.idcode != self.device.idcode:
            raise PcapError('IDCODE error: the bitstream is for %s, this '
                            'device is %s' % (info.device.name,
                                              self.device.name))
        if not info.partial:
            raise PcapError('a full bitstream would reconfigure the whole '
                            'device, static shell and ARM interconnect '
                            'included')
        region = next((r for r in self._regions.values()
                       if r.spec.footprint == info.footprint), None)
        if region is None:
            raise PcapError('frames outside every reconfigurable region '
                            '(footprint %s): writing them would corrupt the '
                            'static shell' % info.footprint.signature)
        with region.lock:
            if not region.decoupled:
                raise PcapError('region %s is not decoupled: reconfiguring '
                                'it would glitch the static shell'
                                % region.spec.name)
            modelled = len(data) / (self.pcap_rate * 1e6)
            if self.port_fail_after is not None:
                done = min(self.port_fail_after, len(data))
                self.port_fail_after = None
                time.sleep(done / (self.pcap_rate * 1e6))
                region.clear()
                self._persist()
                raise PcapError('PCAP DMA error after %d of %d bytes: region '
                                '%s holds partial frames' % (
                                    done, len(data), region.spec.name))
            time.sleep(modelled)
            self._configure(region, _module_of(info))
            self._persist()
        LOG.info('PCAP: %d bytes into %s in %.3f s (modelled at %g MB/s)',
                 len(data), region.spec.name, modelled, self.pcap_rate)
        return modelled

    # -- decoupler, reset, registers, DMA -------------------------------

    def set_decoupled(self, name, decoupled):
        self._operation('decouple' if decoupled else 'couple')
        region = self._regions[name]
        with region.lock:
            region.decoupled = decoupled
            if decoupled:
                region.dma_running = False
            if region.bridge is not None:
                region.bridge.set_decoupled(decoupled)
            self._persist()

    def decoupled(self, name):
        return self._regions[name].decoupled

    def in_reset(self, name):
        """Whether the region's module is held in reset: its decoupler
        (region_decoupler.v) holds it while decoupled, as the HDL says.
        """
        region = self._regions[name]
        if region.bridge is not None:
            return region.bridge.decoupled
        return region.decoupled

    def reset(self, name):
        self._operation('reset')
        region = self._regions[name]
        with region.lock:
            if region.bridge is not None:
                region.bridge.reset()
                # the fabric's clock keeps running on a board while the
                # agent takes its next step; the emulated clock runs only
                # when driven, so give the module its start-up time here
                region.bridge.clock(SETTLE_CYCLES)

    def _answering(self, region, what):
        """The HDL behind the region's register window; where no module
        with HDL is loaded, what its decoupler would answer.
        """
        if region.bridge is not None:
            return region.bridge
        if region.decoupled:
            raise AxiError('DECERR: %s of decoupled region %s'
                           % (what, region.spec.name))
        raise AxiError('no answer: no module in region %s takes %s'
                       % (region.spec.name, what))

    def axil_read(self, name, offset):
        if offset == self.catalogue.common.registers.MODULE_ID:
            self._operation('read_id')
        region = self._regions[name]
        with region.lock:
            bridge = self._answering(region, 'a read')
            try:
                return bridge.axil_read(offset)
            except hdl_bridge.AxiLiteError as exc:
                raise AxiError(str(exc))

    def axil_write(self, name, offset, value):
        region = self._regions[name]
        with region.lock:
            bridge = self._answering(region, 'a write')
            try:
                bridge.axil_write(offset, value)
            except hdl_bridge.AxiLiteError as exc:
                raise AxiError(str(exc))

    def dma_start(self, name):
        self._operation('dma_start')
        region = self._regions[name]
        with region.lock:
            self._answering(region, 'the DMA stream')
            if region.decoupled:
                raise AxiError('DMA channel %d of region %s: the region is '
                               'decoupled' % (region.spec.dma_channel, name))
            region.dma_running = True

    def dma_stop(self, name):
        region = self._regions[name]
        with region.lock:
            region.dma_running = False

    def dma_transfer(self, name, frame):
        """One frame through the region's DMA channel, module and back
        (in this process: the emulator's tests; with engines the data
        path is the data mover's, through the engine).
        """
        region = self._regions[name]
        if self.engines:
            raise AxiError('region %s: its DMA is the emulated engine, '
                           'driven by the data mover' % name)
        with region.lock:
            if not region.dma_running:
                raise AxiError('DMA channel %d of region %s is stopped'
                               % (region.spec.dma_channel, name))
            bridge = self._answering(region, 'the DMA stream')
            bridge.push_frame(frame)
            bridge.clock_until_idle()
            return bridge.pull_frames()

    def module_in(self, name):
        return self._regions[name].module_id
