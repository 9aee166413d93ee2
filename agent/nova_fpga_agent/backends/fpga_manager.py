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

"""The fpga_manager backend: a Xilinx kernel's FPGA manager (PetaLinux,
PYNQ).

The partial goes as the byte-swapped .bin zynq-fpga wants into the
firmware path, named by its digest (removed after the load), and is loaded
one of two ways (``[fpga_manager] load_mode``):

* ``overlay``: a device-tree overlay through configfs whose fragment gives
  the region's fpga-region node ``firmware-name`` and
  ``partial-fpga-config``; the kernel turns the region's pr-decoupler
  bridge off, programs, turns it on.  A failed ``path`` write may still
  return success, so the overlay's ``status`` must read ``applied``.
* ``flags``: ``flags`` = 1 (partial) then ``firmware`` = the name, as PYNQ
  and fpgautil do; the agent's load sequence decouples around it.

Either way ``state`` must reach ``operating``; any error state the kernel
reports (or none within ``[board] load_timeout``) fails the load with the
kernel's words.  Root writes go through the privileged helper.
"""
import glob
import os
import time

from oslo_config import cfg
from oslo_log import log as logging

from nova_fpga.contract import devicetree as dt
from nova_fpga import optgroups
from nova_fpga_agent.backends import base
from nova_fpga_agent.backends import dtbo
from nova_fpga_agent.backends import zynq
from nova_fpga_agent.privsep import fpga as priv

LOG = logging.getLogger(__name__)

OPERATING = 'operating'
#: the states zynq-fpga passes through a load; any other is an error
#: (firmware request error, write init error, write error, write complete
#: error) or not a load at all (unknown, power off, reset)
IN_PROGRESS = ('firmware request', 'write init', 'write', 'write complete')
OVERLAY = 'overlay'
FLAGS = 'flags'
AUTO = 'auto'
PARTIAL = '1'
APPLIED = 'applied'
#: an overlay's attributes appear with its directory on configfs; give a
#: slower tree a moment
ATTRIBUTE_SECONDS = 1.0

fpga_manager_group = cfg.OptGroup('fpga_manager', title='fpga_manager backend')
FPGA_MANAGER_OPTS = [
    cfg.StrOpt('load_mode', default=AUTO, choices=[
        (AUTO, 'overlay when the kernel has configfs overlays, else flags'),
        (OVERLAY, 'a device-tree overlay through configfs per load'),
        (FLAGS, 'flags and firmware under the FPGA manager')],
        help='How a partial reaches the FPGA manager.'),
    cfg.StrOpt('manager',
               help='The FPGA manager (a name under '
                    '/sys/class/fpga_manager); unset: the first.'),
]


def register_opts(conf):
    optgroups.register(conf, fpga_manager_group, FPGA_MANAGER_OPTS)


def list_opts():
    """For oslo-config-generator: the board backends' options."""
    return [(zynq.board_group, zynq.BOARD_OPTS),
            (fpga_manager_group, FPGA_MANAGER_OPTS)]


def _managers(sysfs_root):
    return sorted(glob.glob(os.path.join(sysfs_root, 'class', 'fpga_manager',
                                         '*')))


def _overlays(conf):
    return os.path.join(conf.agent.configfs_root, priv.OVERLAYS)


class FpgaManagerBackend(zynq.ZynqBackend):
    name = 'fpga_manager'

    @classmethod
    def detect(cls, conf):
        managers = _managers(conf.agent.sysfs_root)
        for mgr in managers:
            flags = all(os.path.exists(os.path.join(mgr, attr))
                        for attr in ('flags', 'firmware'))
            overlays = os.path.isdir(_overlays(conf))
            LOG.info('fpga_manager %s (%s), configfs overlays: %s, '
                     'flags/firmware: %s', os.path.basename(mgr),
                     zynq.read_attribute(os.path.join(mgr, 'name')),
                     'yes' if overlays else 'no', 'yes' if flags else 'no')
            if flags or overlays:
                return True
        return False

    def __init__(self, conf, manifest):
        register_opts(conf)
        super().__init__(conf, manifest)
        managers = _managers(conf.agent.sysfs_root)
        if conf.fpga_manager.manager:
            managers = [m for m in managers if os.path.basename(m)
                        == conf.fpga_manager.manager]
        if not managers:
            raise base.BackendUnavailable('no FPGA manager %sunder %s'
                                          % (conf.fpga_manager.manager or '',
                                             conf.agent.sysfs_root))
        self.manager = managers[0]
        mode = conf.fpga_manager.load_mode
        if mode == AUTO:
            mode = OVERLAY if os.path.isdir(_overlays(conf)) else FLAGS
        if mode == FLAGS and not os.path.exists(
                os.path.join(self.manager, 'firmware')):
            raise base.BackendUnavailable(
                '%s has no firmware attribute: not a Xilinx kernel; use '
                'load_mode = overlay' % self.manager)
        self.mode = mode
        LOG.info('fpga_manager backend: %s, loads by %s',
                 os.path.basename(self.manager), mode)

    def _state(self):
        return zynq.read_attribute(os.path.join(self.manager, 'state'))

    def _wait_operating(self, region):
        deadline = time.monotonic() + self.conf.board.load_timeout
        state = self._state()
        while state in IN_PROGRESS:
            if time.monotonic() > deadline:
                raise base.PortError(
                    'FPGA manager %s still in state "%s" after %g s: the '
                    'load into region %s timed out' % (
                        os.path.basename(self.manager), state,
                        self.conf.board.load_timeout, region))
            time.sleep(0.005)
            state = self._state()
        if state != OPERATING:
            raise base.PortError('FPGA manager %s: state "%s" loading region '
                                 '%s' % (os.path.basename(self.manager),
                                         state, region))

    def program(self, region, info, pcap_bin):
        sha = info.sha256
        firmware = dt.firmware(sha)
        path = os.path.join(self.conf.agent.firmware_dir, firmware)
        priv.write_firmware(path, pcap_bin)
        try:
            if self.mode == OVERLAY:
                started = self._apply_overlay(region, sha, firmware)
            else:
                priv.write_attribute(os.path.join(self.manager, 'flags'),
                                     PARTIAL)
                started = time.monotonic()
                try:
                    priv.write_attribute(
                        os.path.join(self.manager, 'firmware'), firmware)
                except OSError as exc:
                    # the kernel's state names the cause better than errno
                    self._wait_operating(region)
                    raise base.PortError('FPGA manager refused %s: %s'
                                         % (firmware, exc))
            self._wait_operating(region)
            return time.monotonic() - started
        finally:
            priv.remove_firmware(path)

    def _apply_overlay(self, region, sha, firmware):
        """Load by the region's overlay; when the kernel was asked."""
        overlay = os.path.join(_overlays(self.conf), dt.overlay(region))
        if os.path.isdir(overlay):
            # the region's previous load: an fpga-region takes one at a time
            priv.remove_overlay(overlay)
        blob = dt.overlay_blob(region, sha)
        blob_path = os.path.join(self.conf.agent.firmware_dir, blob)
        priv.write_firmware(blob_path, dtbo.region_overlay(
            dt.region_path(region), firmware))
        try:
            priv.make_overlay(overlay)
            deadline = time.monotonic() + ATTRIBUTE_SECONDS
            while not os.path.exists(os.path.join(overlay, 'path')) and \
                    time.monotonic() < deadline:
                time.sleep(0.001)
            started = time.monotonic()
            priv.write_attribute(os.path.join(overlay, 'path'), blob)
            status = zynq.read_attribute(os.path.join(overlay, 'status'))
            if status != APPLIED:
                raise base.PortError(
                    'overlay %s for region %s is %s after its path was '
                    'written (FPGA manager state "%s"): the kernel refused '
                    'it; see its log'
                    % (dt.overlay(region), region, status, self._state()))
            return started
        finally:
            priv.remove_firmware(blob_path)
