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

"""The agents' state reports, heard by nova-compute.

Each agent publishes its BoardReport after every state change and every
report_interval seconds; nova-compute keeps the newest in its board cache,
so nova's power state sync and the driver's operations need no describe.
Every nova-compute listens in a pool of its own: each gets every report
and keeps those of its own boards.
"""
import re

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_fpga.contract import agent_api
from nova_fpga.contract import reports
from nova_fpga.virt import agents

LOG = logging.getLogger(__name__)


class ReportEndpoint:
    """Takes the state reports of this nova-compute's boards."""

    filter_rule = messaging.NotificationFilter(
        event_type='^%s$' % re.escape(agent_api.REPORT_EVENT),
        publisher_id='^%s$' % (re.escape(agent_api.REPORT_PUBLISHER)
                               % '.+'))

    def __init__(self, boards, only=None):
        """only: the one board whose reports count (the board of the vhost
        this endpoint listens on).
        """
        self._boards = boards
        self._only = only

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        if not isinstance(payload, dict):
            return
        board = self._boards.by_name.get(payload.get('board'))
        # a board speaks for itself only, on its own vhost
        if (board is None
                or publisher_id != agent_api.REPORT_PUBLISHER % board.name
                or self._only not in (None, board.name)):
            return
        try:
            report = reports.BoardReport.from_dict(payload)
        except (TypeError, ValueError, AttributeError) as exc:
            LOG.warning('board %s: unreadable state report ignored: %s',
                        board.name, exc)
            return
        board.take(report, answered=False)


def make(conf, boards):
    """The listeners (not yet started) that feed the boards' cache: on
    each vhost of the agents' bus, this nova-compute's pool and the
    notifier's own queue.

    An agent's Notifier declares the queue named after its routing key
    (``nova_fpga_reports.info``, bound so reports wait for a listener) on
    every publish; a pool consumes a queue of its own, bound to the same
    key.  The pool gives every nova-compute every report; a listener in no
    pool consumes the notifier's queue (shared: each report there reaches
    one nova-compute, a second copy the board cache ignores by its
    sequence), so nothing piles up on the bus.  The threading executor is
    the one oslo.messaging keeps; in a nova-compute monkey-patched by
    eventlet its threads are green.
    """
    target = messaging.Target(exchange=agent_api.EXCHANGE,
                              topic=agent_api.REPORT_TOPIC)
    urls = ([(None, None)] if not conf.zynq.vhost_per_board else
            [(name, agents.board_url(conf, name)) for name in boards.by_name])
    return Listeners([messaging.get_notification_listener(
        agents.get_notification_transport(conf, url), [target],
        [ReportEndpoint(boards, only=name)], executor='threading',
        pool=pool)
        for name, url in urls
        for pool in (pool_name(conf), None)])


def pool_name(conf):
    """This nova-compute's report pool: the queue of its own that gets
    every report.
    """
    return 'nova-compute.%s' % conf.host


class Listeners:
    """The report listeners (two per vhost), started and stopped
    together.
    """

    def __init__(self, listeners):
        self.listeners = listeners

    def start(self):
        for listener in self.listeners:
            listener.start()

    def stop(self):
        for listener in self.listeners:
            listener.stop()

    def wait(self):
        for listener in self.listeners:
            listener.wait()
