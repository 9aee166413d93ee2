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

"""Draining a board (nova-fpga-manage board drain/undrain, through
openstacksdk against placement) in nova's functional harness: the scheduler
stops placing on it at once, running servers keep running and can be
deleted, a region freed while drained stays reserved, the drain outlives
nova-compute's and the agent's restarts, and undrain gives the regions out
again at nova-compute's next resource update.  board show's status comes
from the same agents and placement.
"""
import time

from keystoneauth1 import session as ks_session
from keystoneauth1 import token_endpoint
import openstack

from nova_fpga.boardops import drain
from nova_fpga.boardops import status
from nova_fpga.contract import agent_api
from nova_fpga.contract import placement
from nova_fpga.contract import states
from nova_fpga.contract import traits
from tests.functional import base

#: seconds after which nova-compute re-reads a provider's traits (nova's
#: default is 300; the test waits this long before a resource update)
REFRESH = 1


class BoardDrainTest(base.ZynqTestBase):

    def setUp(self):
        self.flags(resource_provider_association_refresh=REFRESH,
                   group='compute')
        super().setUp()
        endpoint = self.placement.fixture.endpoint
        sess = ks_session.Session(auth=token_endpoint.Token(endpoint,
                                                            'admin'))
        conn = openstack.connection.Connection(
            session=sess, placement_endpoint_override=endpoint)
        self.rp_api = drain.Placement(conn.placement)
        self.images = {r: self.region_image(r) for r in ('rp0', 'rp1')}

    def periodic_update(self):
        """nova-compute's resource update once its trait cache is stale."""
        time.sleep(REFRESH + 0.2)
        self._run_periodics()

    def reserved(self, board):
        """{provider name: reserved} of the board's held classes."""
        found = {}
        for region in ('rp0', 'rp1'):
            name = placement.region_provider_name(board, region)
            found[name] = self._get_provider_inventory(
                self._get_provider_uuid_by_name(name))[
                    placement.REGION_RESOURCE_CLASS]['reserved']
        found[board] = self._get_provider_inventory(
            self._get_provider_uuid_by_name(board))[
                placement.BOARD_SLOT_RESOURCE_CLASS]['reserved']
        return found

    def drained_mark(self, board):
        return traits.BOARD_DRAINED_TRAIT in self._get_provider_traits(
            self._get_provider_uuid_by_name(board))

    def test_drain_with_a_server_running_restarts_and_undrain(self):
        running = self.boot(self.images['rp1'])
        drained, region = self.region_of(running)
        other = [b for b in self.BOARDS if b != drained][0]
        every = {placement.region_provider_name(drained, 'rp0'): 1,
                 placement.region_provider_name(drained, 'rp1'): 1,
                 drained: 2}

        self.assertEqual((False, 4), drain.drain(self.rp_api, drained))
        self.assertTrue(self.drained_mark(drained))
        self.assertEqual(every, self.reserved(drained))
        self.assertEqual((True, 0), drain.drain(self.rp_api, drained))

        # nothing new lands there, free rp0 included
        elsewhere = self.boot(self.images['rp0'])
        self.assertEqual(other,
                         elsewhere['OS-EXT-SRV-ATTR:hypervisor_hostname'])
        refused = self.boot(self.images['rp0'], expected_state='ERROR')
        self.assertIn('No valid host', refused['fault']['message'])

        # the driver keeps the trait and the reservation; the running
        # server works (a reboot reaches its module)
        self.periodic_update()
        self.assertTrue(self.drained_mark(drained))
        self.assertEqual(every, self.reserved(drained))
        self._reboot_server(running)
        self.assertEqual(running['id'], self.loads()[(drained, region)])

        # board show: the agent's regions beside placement's drain
        (shown,) = [s.to_dict() for s in status.collect(
            [drained], self.cloud.client, self.rp_api)]
        self.assertTrue(shown['drained'])
        self.assertEqual('up', shown['agent'])
        rp1 = {r['name']: r for r in shown['regions']}[region]
        self.assertEqual((states.ACTIVE, running['id'], 1, 1),
                         (rp1['state'], rp1['instance_uuid'],
                          rp1['reserved'], rp1['used']))

        # restarts of nova-compute and of the board's agent keep the drain
        self.compute = self.restart_compute_service(
            self.compute, keep_hypervisor_state=False)
        self.cloud.stop(drained)
        self.cloud.start(drained)
        # stopped before nova's check for leaked RPC servers runs
        self.addCleanup(self.cloud.stop, drained)
        self.periodic_update()
        self.assertEqual(every, self.reserved(drained))
        self.assertEqual('ACTIVE', self._show_server(running)['status'])

        # the running server can be deleted; its region stays reserved
        self._delete_server(running)
        self.assertNotIn((drained, region), self.loads())
        self.periodic_update()
        self.assertEqual(every, self.reserved(drained))
        self.assertEqual(
            0, self.rp_api.usages(self._get_provider_uuid_by_name(
                placement.region_provider_name(drained, region)))[
                    placement.REGION_RESOURCE_CLASS])
        # the other board's rp1 takes the next, and none is left
        elsewhere = self.boot(self.images['rp1'])
        self.assertEqual(other,
                         elsewhere['OS-EXT-SRV-ATTR:hypervisor_hostname'])
        refused = self.boot(self.images['rp1'], expected_state='ERROR')
        self.assertIn('No valid host', refused['fault']['message'])

        # undrain: the next resource update gives the regions out again
        self.assertTrue(drain.undrain(self.rp_api, drained))
        self.assertFalse(drain.undrain(self.rp_api, drained))
        self.assertFalse(self.drained_mark(drained))
        self.periodic_update()
        self.assertEqual({name: 0 for name in every},
                         self.reserved(drained))
        again = self.boot(self.images['rp1'])
        self.assertEqual(drained, again['OS-EXT-SRV-ATTR:hypervisor_hostname'])

    def test_silent_and_unknown_boards_are_named(self):
        self.cloud.stop('board1')
        client = agent_api.AgentAPI(self.cloud.transport, timeout=1)
        (shown,) = [s.to_dict() for s in status.collect(
            ['board1'], client, self.rp_api)]
        self.assertEqual('no answer (MessagingTimeout)', shown['agent'])
        self.assertFalse(shown['drained'])
        self.assertEqual(['rp0', 'rp1'],
                         [r['name'] for r in shown['regions']])
        with self.assertRaises(drain.PlacementError) as caught:
            drain.drain(self.rp_api, 'board9')
        self.assertIn('board board9 has no resource provider',
                      str(caught.exception))
