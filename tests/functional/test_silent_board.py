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

"""A board whose agent fell silent (its state reports stopped for longer
than [zynq] report_timeout) through nova's real scheduler and compute
manager: a create the scheduler still sends there is rescheduled to
another board at once, with no load call to wait [zynq] load_timeout for,
and with no other board left it ends in ERROR saying which board does not
answer (issue 33).  A create sent there before its silence shows (the agent
died since its last report) is turned away by the health call before the
load, in [zynq] rpc_timeout.
"""
import time

from tests.functional import base

WEIGHER = 'nova_fpga.scheduler.weights.CachedBitstreamWeigher'
#: seconds between the agents' reports here, and the proxy's silence limit
REPORT_INTERVAL = 1
REPORT_TIMEOUT = 3


class SilentBoardTest(base.ZynqTestBase):
    AGENT_OPTIONS = {board: {('agent', 'report_interval'): REPORT_INTERVAL}
                     for board in base.ZynqTestBase.BOARDS}

    def setUp(self):
        # the scheduler prefers the board that caches the image: the one
        # whose agent is then stopped
        self.flags(weight_classes=['nova.scheduler.weights.all_weighers',
                                   WEIGHER], group='filter_scheduler')
        super().setUp()
        # a load that waited for its call's timeout would outlast the
        # test's wait for the server by far
        self.flags(report_timeout=REPORT_TIMEOUT, load_timeout=3600,
                   group='zynq')

    def silence(self, board):
        """Stop the board's agent and let its silence show: no report for
        longer than [zynq] report_timeout (nova's periodic resource update
        has not run, so the scheduler still counts the board up).
        """
        self.cloud.stop(board)
        time.sleep(REPORT_TIMEOUT + 2 * REPORT_INTERVAL)

    def cached_on(self, image):
        """The board a first server of the image ran on (it caches the
        image now), after that server is deleted.
        """
        first = self.boot(image)
        board = first['OS-EXT-SRV-ATTR:hypervisor_hostname']
        self._delete_server(first)
        self._run_periodics()  # the node's stats list the cached image
        return board

    def test_a_create_goes_to_another_board_at_once(self):
        image = self.region_image('rp1')
        silent = self.cached_on(image)
        other = [b for b in self.BOARDS if b != silent][0]
        self.silence(silent)
        server = self.boot(image)
        self.assertEqual(other,
                         server['OS-EXT-SRV-ATTR:hypervisor_hostname'])
        held = {r['name']: r['instance_uuid'] for r in
                self.cloud.client.describe({}, other)['regions']}
        self.assertEqual(server['id'], held['rp1'])
        # it was sent to the silent board first, which turned it away
        # without a load call
        self.assertIn('board %s does not answer: no state report from its '
                      'agent for' % silent, self.stdlog.logger.output)

    def test_a_create_right_after_the_agent_died_goes_elsewhere(self):
        """No wait for the silence: the agent is stopped and the create
        follows at once, its board's last report still fresh (report
        timeout far off); the health call before the load finds it
        silent within rpc_timeout.
        """
        # a load waited for would take a minute
        self.flags(report_timeout=3600, rpc_timeout=2, load_timeout=60,
                   group='zynq')
        image = self.region_image('rp1')
        dead = self.cached_on(image)
        other = [b for b in self.BOARDS if b != dead][0]
        self.cloud.stop(dead)
        # at once: the board was heard less than a report interval ago
        started = time.monotonic()
        server = self.boot(image)
        took = time.monotonic() - started
        self.assertEqual(other,
                         server['OS-EXT-SRV-ATTR:hypervisor_hostname'])
        self.assertIn('board %s does not answer: no answer from its agent '
                      'within 2 s' % dead, self.stdlog.logger.output)
        # a load waited for would have taken load_timeout (60 s here)
        self.assertLess(took, 30)

    def test_with_every_board_silent_the_server_fails_saying_why(self):
        image = self.region_image('rp1')
        silent = self.cached_on(image)
        self.silence(silent)
        self.silence([b for b in self.BOARDS if b != silent][0])
        server = self.boot(image, expected_state='ERROR')
        self.assertIn('does not answer: no state report from its agent',
                      self.stdlog.logger.output)
        self.assertIn('fault', server)
