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
"""
import uuid

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_fpga.contract import agent_api
from nova_fpga.contract import reports
from nova_fpga.contract import states

LOG = logging.getLogger(__name__)

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
        #: the agent's last BoardReport (None: never answered)
        self.last = None
        self.up = False
        self.problem = 'the agent has not answered yet'

    def provider_name(self, region):
        return '%s:%s' % (self.name, region)

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

    def usable(self, region):
        """Whether placement may give this region to a new server."""
        if not self.up:
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
            if board.up or board.last is None:
                LOG.warning('board %s: agent does not answer (%s); its '
                            'regions are reserved', board.name,
                            type(exc).__name__)
            board.up = False
            board.problem = 'the agent does not answer'
            return board
        board.last = answer = reports.BoardReport.from_dict(answer)
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
