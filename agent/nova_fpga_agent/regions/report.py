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

"""The board's report: what each region is, numbered, and its history.

Reports are numbered in the order they read the regions (an operation's
answer on its own, a board report's regions with the board's number), so
nova keeps the newest.  Each region keeps a log whose lines are tagged
with the instance they concern: a server's console shows its own only.
"""
import threading
import time

from oslo_log import log as logging

from nova_fpga.bitstream import container
from nova_fpga.contract import agent_api as api
from nova_fpga.contract import reports
from nova_fpga.contract import states
import nova_fpga_agent
from nova_fpga_agent.backends import base
from nova_fpga_agent.regions import task_manager

LOG = logging.getLogger(__name__)
#: lines of history a region keeps
LOG_LINES = 200


def module_text(value):
    """A module ID as reports and logs write it."""
    if value is None:
        return 'none'
    if value == container.NO_USER_ID:
        return 'opaque'
    return '0x%08X' % value


class Report:
    """The reports and the history of a RegionManager's board."""

    def __init__(self, manager):
        self.manager = manager
        #: region name -> [(instance UUID the line concerns, line)]
        self.log = {r.name: [] for r in manager.manifest.regions}
        #: numbers reports in the order they read the regions
        self._lock = threading.Lock()
        self._sequence = 0

    # -- history -------------------------------------------------------

    def record(self, region, instance, message):
        """A line in the region's log, tagged with the instance it
        concerns.
        """
        line = '%s %s' % (time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
                          message)
        entries = self.log[region]
        entries.append((instance, line))
        del entries[:-LOG_LINES]
        LOG.info('region %s: %s', region, message)

    def record_holder(self, region, message):
        """A line in the region's log for the instance holding it."""
        instance = self.manager.states[region].instance_uuid
        if instance is not None:
            self.record(region, instance, message)

    # -- reports -------------------------------------------------------

    def _next_sequence(self):
        """The next report number; call with _lock held, then read the
        regions under it, so numbers follow the order of the reads.
        """
        self._sequence += 1
        return self._sequence

    def region(self, spec, sequence=None):
        """A region's RegionReport; an operation's answer numbered on its
        own (sequence None), a board report's regions with the board's.
        """
        if sequence is None:
            with self._lock:
                return self.region(spec, self._next_sequence())
        m = self.manager
        rs = m.states[spec.name]
        return reports.RegionReport(
            name=spec.name,
            footprint=spec.footprint.to_dict(),
            traits=m.manifest.region_traits(spec),
            vlan=spec.vlan,
            state=rs.state,
            decoupled=m.backend.is_decoupled(spec.name),
            instance_uuid=rs.instance_uuid,
            image_id=rs.image_id,
            sha256=rs.sha256,
            module_id=module_text(rs.module_id) if rs.module_id is not None
            else None,
            error=rs.error,
            network=rs.network,
            settings=rs.settings,
            boot_id=m.boot_id,
            sequence=sequence)

    def board(self):
        """The board's report (a dict, as the RPC API answers)."""
        with self._lock:
            sequence = self._next_sequence()
            m = self.manager
            return reports.BoardReport(
                board=m.board_name,
                device=m.manifest.device.name,
                idcode='0x%08X' % m.manifest.device.idcode,
                shell_id=m.manifest.shell_id,
                shell_version=m.manifest.version,
                backend=m.backend.name,
                agent_version=nova_fpga_agent.__version__,
                api_version=api.API_VERSION,
                boot_id=m.boot_id,
                booted_at=m.started_at,
                sequence=sequence,
                regions=[self.region(r, sequence)
                         for r in m.manifest.regions],
                cached=[reports.CachedBitstream(e['sha256'], e['image_id'])
                        for e in (m.cache.entries() if m.cache else [])],
                unfit=m.unfit,
                state_unsaved=m.unsaved,
                temperature=m.temperature,
                signed_only=m.verifier.require_signed,
            ).to_dict()

    def health(self):
        m = self.manager
        return reports.HealthReport(
            board=m.board_name, status='ok', boot_id=m.boot_id,
            uptime=time.time() - m.started_at,
            regions={n: s.state for n, s in m.states.items()},
            unsteered_frames=m.dataplane.unsteered if m.dataplane
            else None).to_dict()

    def stats(self, spec, instance):
        """The region's counters and log as the instance holding it may
        see them: its own log lines, the module's counters and the
        data-plane counters (both start again at its load), nothing of
        other holders.
        """
        m = self.manager
        region = spec.name
        rs = m.states[region]
        task_manager.held(rs, instance, lost_ok=False)
        counters = {}
        if rs.state == states.ACTIVE and rs.module_id not in (
                None, container.NO_USER_ID):
            try:
                counters = m.catalogue.read_counters(
                    rs.module_id,
                    lambda off: m.backend.read_register(region, off))
            except (base.RegisterError, ValueError) as exc:
                counters = {'error': str(exc)}
        answer = reports.RegionStats(
            region=spec.name, state=rs.state,
            module_id=module_text(rs.module_id) if rs.module_id is not None
            else None,
            module=counters,
            dataplane=m.dataplane.counters(region) if m.dataplane else {},
            log=[line for owner, line in list(self.log[region])
                 if owner == instance],
            board_unfit=m.unfit).to_dict()
        # read without the region's lock (a console need not wait for a
        # load): an unload and another's load meanwhile would have given
        # the caller their counters
        task_manager.held(rs, instance, lost_ok=False)
        return answer
