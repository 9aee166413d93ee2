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

"""What the two board backends share: registers, decoupler, DMA, records.

fpga_manager and xdevcfg differ only in how a partial reaches the
configuration port (``program``).  The decoupler of every region is driven
through its UIO window (the AXI GPIO in front of the DFX decoupler), not
through the kernel's pr-decoupler bridge: the bridge's state is read-only
in sysfs and toggles only around an overlay's load, while the agent must
isolate a region outside any load too (unload, power off, the watchdog),
and xdevcfg has no bridges at all.  Decoupling also holds the module in
reset (region_decoupler.v), so a module reset is a decouple pulse.

The fabric keeps what was loaded while the agent restarts, not across a
reboot: what each region holds is recorded beside the agent's state with
the kernel's boot ID, and a record from another boot counts as empty.
"""
import abc
import json
import os
import stat

from oslo_config import cfg
from oslo_log import log as logging

from nova_fpga.bitstream import convert
from nova_fpga.bitstream import devices
from nova_fpga.contract import devicetree as dt
from nova_fpga import optgroups
from nova_fpga_agent.backends import base
from nova_fpga_agent.backends import uio

LOG = logging.getLogger(__name__)

board_group = cfg.OptGroup('board', title='Board backends (fpga_manager, '
                                          'xdevcfg)')
BOARD_OPTS = [
    cfg.StrOpt('boot_id_path', default='/proc/sys/kernel/random/boot_id',
               help='File whose content changes at every boot: what the '
                    'backend recorded as loaded counts only within the '
                    'boot that loaded it (the fabric is empty after a '
                    'reboot).'),
    cfg.FloatOpt('load_timeout', default=10.0, min=0.1,
                 help='Seconds a load may take before the FPGA manager is '
                      'considered hung (zynq-fpga\'s own DMA timeout is '
                      '5 s).'),
]
RECORD = 'fabric.json'


def register_opts(conf):
    optgroups.register(conf, board_group, BOARD_OPTS)


def read_attribute(path):
    """A sysfs attribute's value (the kernel's words)."""
    with open(path, encoding='ascii') as f:
        return f.read().strip()


def soc_idcode(sysfs_root):
    """The IDCODE of the Zynq-7000 the kernel runs on: its soc0 device
    reports the PSS_IDCODE device field (arch/arm/mach-zynq/common.c).
    """
    soc = os.path.join(sysfs_root, 'devices', 'soc0')
    try:
        family = read_attribute(os.path.join(soc, 'family'))
        code = int(read_attribute(os.path.join(soc, 'soc_id')), 16)
    except (OSError, ValueError) as exc:
        raise base.BackendUnavailable('cannot identify the SoC from %s: %s'
                                      % (soc, exc))
    for device in devices.DEVICES:
        if device.family == devices.ZYNQ7 and \
                (device.idcode >> 12) & 0x1F == code:
            return device.idcode
    raise base.BackendUnavailable('%s device code 0x%X is no known Zynq-7000'
                                  % (family, code))


class _Region:
    def __init__(self, conf, spec):
        if spec.dma_base is None:
            raise base.BackendUnavailable(
                'region %s: the shell manifest gives no "dma" address, which '
                'a board backend needs' % spec.name)
        self.name = spec.name
        self.module = uio.open_window(conf, dt.uio_module(spec.name),
                                      spec.module_base)
        self.decoupler = uio.open_window(conf, dt.uio_decoupler(spec.name),
                                         spec.decoupler_base)
        # the AXI DMA is the data mover's (datapath.py): found here, by
        # the same discovery, and handed to it by path
        node = uio.find_node(conf, dt.uio_dma(spec.name), spec.dma_base)
        buf = uio.DmaBuffer(conf, dt.dma_buffer(spec.name))
        irq = node
        if not stat.S_ISCHR(os.stat(node).st_mode):
            # the emulator's fake kernel: the window is the emulated
            # engine's register file, its interrupt a socket beside it
            irq = node + '-irq'
        self.dma = base.DmaRegion(spec.name, node, irq, buf.path,
                                  buf.phys_addr, buf.size)
        buf.map.close()


class ZynqBackend(base.Backend):
    """A board's regions; subclasses say how the port is written."""

    def __init__(self, conf, manifest):
        register_opts(conf)
        self.conf = conf
        self.manifest = manifest
        self._idcode = soc_idcode(conf.agent.sysfs_root)
        self._regions = {r.name: _Region(conf, r) for r in manifest.regions}
        self._record_path = os.path.join(conf.agent.state_dir, RECORD)
        self._boot_id = read_attribute(conf.board.boot_id_path)
        self._held = self._load_record()

    # -- what the fabric holds -------------------------------------------

    def _load_record(self):
        try:
            with open(self._record_path, encoding='utf-8') as f:
                saved = json.load(f)
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            LOG.warning('record of the loaded fabric %s unreadable (%s): '
                        'every region counts as empty', self._record_path, exc)
            return {}
        if saved.get('boot_id') != self._boot_id:
            LOG.info('the board rebooted since the last load: every region '
                     'counts as empty')
            return {}
        return {name: held for name, held in saved['regions'].items()
                if name in self._regions}

    def _record(self, region, module_id):
        self._held[region] = module_id
        tmp = self._record_path + '.tmp'
        with open(tmp, 'w', encoding='utf-8') as f:
            json.dump({'boot_id': self._boot_id, 'regions': self._held}, f)
        os.replace(tmp, self._record_path)

    def loaded_module(self, region):
        return self._held.get(region)

    # -- configuration port ----------------------------------------------

    def idcode(self):
        return self._idcode

    def write_partial(self, region, data, info):
        self._record(region, None)   # whatever happens, not what it held
        seconds = self.program(region, info, convert.to_bin(data, info=info))
        self._record(region, info.module_id)
        return seconds

    @abc.abstractmethod
    def program(self, region, info, pcap_bin):
        """Write the partial (``info``: what the agent's validate() said
        of it, ``pcap_bin``: its byte-swapped .bin) into the region; the
        seconds the kernel took (from the write that starts it to its
        answer).
        :raises PortError: with the kernel's words.
        """

    # -- decoupler and module reset ----------------------------------------

    def set_decoupled(self, region, decoupled):
        try:
            self._regions[region].decoupler.write32(
                dt.DECOUPLER_CONTROL, dt.DECOUPLE if decoupled else 0)
        except base.RegisterError as exc:
            raise base.PortError('decoupler of region %s: %s'
                                 % (region, exc))

    def is_decoupled(self, region):
        return bool(self._regions[region].decoupler.read32(
            dt.DECOUPLER_STATUS) & dt.DECOUPLE)

    def module_reset(self, region):
        if not self.is_decoupled(region):
            self.set_decoupled(region, True)
            self.set_decoupled(region, False)

    # -- module registers and DMA ------------------------------------------

    def _reachable(self, region, what):
        """Refuse what would fault on the bus (a SIGBUS on a board)."""
        if self.is_decoupled(region):
            raise base.RegisterError('DECERR: %s of decoupled region %s'
                                     % (what, region))
        if self._held.get(region) is None:
            raise base.RegisterError('no answer: no module in region %s '
                                     'takes %s' % (region, what))

    def read_register(self, region, offset):
        self._reachable(region, 'a read')
        return self._regions[region].module.read32(offset)

    def write_register(self, region, offset, value):
        self._reachable(region, 'a write')
        self._regions[region].module.write32(offset, value)

    def dma_start(self, region):
        self._reachable(region, 'the DMA stream')

    def dma_stop(self, region):
        pass

    def datapath_regions(self):
        return [r.dma for r in self._regions.values()]
