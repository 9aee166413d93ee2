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

"""The driver's board cache: what nova asks costs no agent call, and the
agents' state reports keep it fresh, newest first."""
import collections
import time
from unittest import mock

from nova.compute import power_state
from nova import context as nova_context
from nova import objects

from nova_fpga.contract import agent_api
from nova_fpga.contract import states
from tests.functional import base


class BoardCacheTest(base.ZynqTestBase):

    def agent_calls(self):
        """{method: calls} the agents served, their health calls aside."""
        total = collections.Counter()
        for board in self.BOARDS:
            calls = self.cloud.client.health({}, board)['calls']
            for methods in calls.values():
                total.update({m: n for m, n in methods.items()
                              if m != 'health'})
        return total

    def calls_during(self, action):
        before = self.agent_calls()
        result = action()
        calls = self.agent_calls()
        calls.subtract(before)
        return result, {m: n for m, n in calls.items() if n}

    def instance(self, server):
        return objects.Instance.get_by_uuid(
            nova_context.get_admin_context(), server['id'])

    def wait_for_power_state(self, instance, expected, timeout=5):
        deadline = time.monotonic() + timeout
        while True:
            state = self.compute.driver.get_info(instance).state
            if state == expected or time.monotonic() > deadline:
                return state
            time.sleep(0.05)

    def test_create_and_delete_agent_rpcs(self):
        """A create makes 1 agent RPC (before the cache: 2, the load and
        the describe of nova's get_info(use_cache=False) right after
        spawn, which the load's own answer now serves).  A delete makes 1
        (before: 3, describe, unload, describe).
        """
        image = self.region_image('rp0')
        server, calls = self.calls_during(lambda: self.boot(image))
        self.assertEqual({'load': 1}, calls)
        _, calls = self.calls_during(lambda: self._delete_server(server))
        self.assertEqual({'unload': 1}, calls)

    def test_get_info_from_the_cache_makes_no_rpc(self):
        server = self.boot(self.region_image('rp1'))
        instance = self.instance(server)
        driver = self.compute.driver
        info, calls = self.calls_during(lambda: driver.get_info(instance))
        self.assertEqual(power_state.RUNNING, info.state)
        self.assertEqual({}, calls)
        # the load's answer is fresh for ANSWER_FRESH_SECONDS; after that,
        # use_cache=False asks the agent
        self.stub_out('nova_fpga.virt.boards.ANSWER_FRESH_SECONDS', 0)
        info, calls = self.calls_during(
            lambda: driver.get_info(instance, use_cache=False))
        self.assertEqual(power_state.RUNNING, info.state)
        self.assertEqual({'describe': 1}, calls)

    def test_state_report_updates_the_cache(self):
        server = self.boot(self.region_image('rp0'))
        board, region = self.region_of(server)
        instance = self.instance(server)
        # powered off behind nova's back: the agent reports it at once
        state, calls = self.calls_during(lambda: (
            self.cloud.agents[board].manager.power(
                region, server['id'], states.POWER_OFF),
            self.wait_for_power_state(instance, power_state.SHUTDOWN))[1])
        self.assertEqual(power_state.SHUTDOWN, state)
        self.assertEqual({}, calls)

    def test_stale_reports_are_ignored(self):
        server = self.boot(self.region_image('rp0'))
        board, region = self.region_of(server)
        instance = self.instance(server)
        agent = self.cloud.agents[board]
        running = agent.manager.describe()
        agent.manager.power(region, server['id'], states.POWER_OFF)
        self.assertEqual(power_state.SHUTDOWN,
                         self.wait_for_power_state(instance,
                                                   power_state.SHUTDOWN))
        # the report taken before the power off, and one of an earlier
        # boot of the agent, arrive late: both still say RUNNING
        earlier_boot = dict(running, boot_id='an-earlier-boot',
                            booted_at=running['booted_at'] - 60,
                            sequence=running['sequence'] + 1000)
        cached = self.compute.driver._boards[board]
        taken = []

        def take(report, answered):
            kept = real_take(report, answered)
            taken.append((report.boot_id, report.sequence, kept))
            return kept

        real_take = cached.take
        stale = [(r['boot_id'], r['sequence'], False)
                 for r in (running, earlier_boot)]
        with mock.patch.object(cached, 'take', side_effect=take):
            for report in (running, earlier_boot):
                agent.notifier.info({}, agent_api.REPORT_EVENT, report)
            deadline = time.monotonic() + 5
            while (not set(stale) <= set(taken)
                   and time.monotonic() < deadline):
                time.sleep(0.05)
        self.assertLessEqual(set(stale), set(taken))
        self.assertEqual(power_state.SHUTDOWN,
                         self.compute.driver.get_info(instance).state)
