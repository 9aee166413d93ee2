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

"""Boards as nova nodes: names, stable UUIDs and what their agents last said.

A board is a node from configuration, not from its agent's answers: a board
whose agent falls silent stays a node (dropping it would delete providers
that still hold allocations); its regions are then reserved and its servers
keep the state the agent last reported.

What the agents last said is a cache, as nova's ironic driver keeps of its
nodes: refreshed by nova's periodic resource update (describe), by the
agents' state reports and by the answers to the driver's own calls, and
always the newest of these: reports carry their agent's boot and a
sequence number, so one that waited on the bus cannot undo a newer state.
Whether a board is up is decided by describe alone: a board whose agent
stops answering goes down at the next periodic update.
"""
import dataclasses
import threading
import time
import uuid

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_fpga.contract import agent_api
from nova_fpga.contract import placement
from nova_fpga.contract import reports
from nova_fpga.contract import states

LOG = logging.getLogger(__name__)

#: Seconds for which the agent's own answer about a region (the end of a
#: load) is as current as a describe would be: nova asks for the power
#: state (get_info without the cache) the moment spawn returns, and any
#: later change arrives as a report anyway.
ANSWER_FRESH_SECONDS = 1.0

#: Errors that mean "the agent did not answer", as opposed to a refusal.
UNREACHABLE = (messaging.MessagingTimeout, messaging.MessageDeliveryFailure)


class Board:
    """One board: its node name, UUIDs and the agent's last description."""

    def __init__(self, name, namespace, manifest):
        self.name = name
        self.manifest = manifest
        self.uuid = str(uuid.uuid5(namespace, name))
        self.region_uuids = {r.name: str(uuid.uuid5(namespace,
                                                    '%s/%s' % (name, r.name)))
                             for r in manifest.regions}
        #: the agent's newest BoardReport (None: never heard of)
        self.last = None
        self.up = False
        self.problem = 'the agent has not answered yet'
        #: the operator drained the board (its root provider's trait in
        #: placement, as nova-compute last read it)
        self.drained = False
        # reports arrive on the listener's threads
        self._lock = threading.Lock()
        #: region name -> when the agent last answered an operation on it
        self._answered = {}
        #: when the agent was last heard (a report kept, or an answer)
        self._heard = None

    def take(self, report, answered):
        """Keep a BoardReport when it is newer than the cache's.

        answered: the agent's answer to a call made now (so from its
        running boot), not a published report that may have waited.
        """
        with self._lock:
            if not _newer(self.last, report.boot_id, report.booted_at,
                          report.sequence, answered):
                LOG.debug('board %s: report %s of boot %s is older than '
                          'the cached one: ignored', self.name,
                          report.sequence, report.boot_id)
                return False
            self.last = report
            self._heard = time.monotonic()
            return True

    def take_region(self, region):
        """Keep an operation's answer (a RegionReport) in the cache."""
        with self._lock:
            if self.last is None or not _newer(
                    self.last, region.boot_id, None, region.sequence, True):
                return False
            self.last = dataclasses.replace(
                self.last, boot_id=region.boot_id, sequence=region.sequence,
                regions=[region if r.name == region.name else r
                         for r in self.last.regions])
            self._answered[region.name] = self._heard = time.monotonic()
            return True

    def silent_for(self):
        """Seconds since the agent was last heard (a state report kept or
        an answer); None when it never was.
        """
        with self._lock:
            heard = self._heard
        return None if heard is None else time.monotonic() - heard

    def silence(self, timeout):
        """Why the board counts as silent (its agent unheard for more than
        timeout seconds), or None (heard lately, never heard of, or
        timeout 0: not watched).
        """
        silent = self.silent_for()
        if not timeout or silent is None or silent <= timeout:
            return None
        return ('board %s does not answer: no state report from its agent '
                'for %d s' % (self.name, silent))

    def answered_now(self, region):
        """Whether the agent answered an operation on the region within
        ANSWER_FRESH_SECONDS (so a describe would tell nothing newer).
        """
        with self._lock:
            answered = self._answered.get(region)
        return (answered is not None
                and time.monotonic() - answered < ANSWER_FRESH_SECONDS)

    def api_version(self):
        """The agent API version the board's agent last said it serves
        (None: it has not said).
        """
        return self.last.api_version if self.last else None

    def speaks(self, version):
        """Whether the board's agent serves agent API version (or a
        later minor one).
        """
        return agent_api.version_at_least(self.api_version(), version)

    def provider_name(self, region):
        return placement.region_provider_name(self.name, region)

    def regions(self):
        """Region name -> the agent's last RegionReport of it."""
        return {r.name: r for r in (self.last.regions if self.last else [])}

    def cached(self):
        """SHA-256 -> image ID of the bitstreams the board caches."""
        return {c.sha256: c.image_id
                for c in (self.last.cached if self.last else [])}

    def region_of(self, instance_uuid):
        for name, region in self.regions().items():
            if region.instance_uuid == instance_uuid:
                return name, region
        return None, None

    def unfit(self):
        """Why the agent last said the board takes no servers (its
        watchdog holds the regions), or None.
        """
        return self.last.unfit if self.last else None

    def signed_only(self):
        """Whether the agent last said the board loads only signed
        bitstreams.
        """
        return bool(self.last and self.last.signed_only)

    def refusal(self):
        """Why the board takes no new server now (its watchdog holds the
        regions, or it cannot write its state file), or None.
        """
        return self.last and (self.last.unfit or self.last.state_unsaved)

    def usable(self, region):
        """Whether placement may give this region to a new server."""
        if self.drained or not self.up or self.refusal():
            return False
        report = self.regions().get(region)
        # a FAILED region nobody holds needs an operator; held ones are
        # freed by nova's cleanup of the instance that holds them
        return not (report is not None and report.state == states.FAILED
                    and not report.instance_uuid)


class Boards:
    """The configured boards and the one client that reaches their agents."""

    def __init__(self, names, namespace, manifest, client):
        namespace = uuid.UUID(namespace)
        self.client = client
        self.by_name = {n: Board(n, namespace, manifest) for n in names}
        self._regions = {u: (b, r) for b in self.by_name.values()
                         for r, u in b.region_uuids.items()}

    def __getitem__(self, name):
        return self.by_name[name]

    def __iter__(self):
        return iter(self.by_name.values())

    def by_provider(self, rp_uuid):
        """(board, region name) of a region provider, or (None, None)."""
        return self._regions.get(rp_uuid, (None, None))

    def refresh(self, ctxt, board):
        """Ask the board's agent for its state; mark it down when silent or
        when it runs another shell than the one configured.
        """
        try:
            answer = self.client.describe(ctxt, board.name)
        except UNREACHABLE as exc:
            return self.lost(board, exc)
        answer = reports.BoardReport.from_dict(answer)
        board.take(answer, answered=True)
        if answer.shell_id != board.manifest.shell_id:
            board.up = False
            board.problem = ('board runs shell %s, nova-compute is '
                             'configured for shell %s'
                             % (answer.shell_id,
                                board.manifest.shell_id))
            LOG.error('board %s: %s', board.name, board.problem)
        else:
            board.up = True
            board.problem = None
        return board

    @staticmethod
    def lost(board, exc):
        """Mark a board down: its agent did not answer a call."""
        if board.up or board.last is None:
            LOG.warning('board %s: agent does not answer (%s); its '
                        'regions are reserved', board.name,
                        exc if isinstance(exc, str)
                        else type(exc).__name__)
        board.up = False
        board.problem = 'the agent does not answer'
        return board

    def instances(self):
        """Instance UUID -> (board, region) over the boards' last reports."""
        found = {}
        for board in self:
            for name, region in board.regions().items():
                if region.instance_uuid:
                    found[region.instance_uuid] = (board, name)
        return found


def agent_error_text(exc):
    """An agent error's message without oslo.messaging's remote traceback."""
    if isinstance(exc, agent_api.AgentError):
        return exc.message.split('\n')[0]
    return str(exc).split('\n')[0]


def _newer(cached, boot_id, booted_at, sequence, answered):
    """Whether a report (its boot and sequence) is newer than cached."""
    if cached is None:
        return True
    if sequence is None or cached.sequence is None:
        # an agent that does not number its reports: only its answers are
        # known to be current
        return answered
    if boot_id == cached.boot_id:
        return sequence > cached.sequence
    # another boot: the agent answering now runs it; a published report
    # is newer only when its boot is
    return answered or (booted_at or 0) > (cached.booted_at or 0)
