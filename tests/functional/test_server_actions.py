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

"""Server actions on region servers through nova's real API and compute:
what a region cannot do is refused with the reason in the action's event
and the server keeps running; reboot resets or reloads; nova-compute's
start reconciles the boards with nova's records; agents restart under
running servers."""
import hashlib
import time
import uuid

from nova import context as nova_context
from nova import objects
from nova.tests import fixtures as nova_fixtures


from tests.agent import conftest as agent_fixtures
from tests.functional import base


def held(test, server):
    """Resources the server holds, by provider."""
    return {rp: alloc['resources'] for rp, alloc in
            test._get_allocations_by_server_uuid(server['id']).items()}


class ServerActionsTest(base.ZynqTestBase):
    # RPC casts stay casts, as in a real cloud: the API accepts the action
    # and the compute's refusal lands in the action's event
    CAST_AS_CALL = False

    def setUp(self):
        super().setUp()
        self.server = self.boot(self.region_image('rp0'))
        self.where = self.region_of(self.server)

    def act(self, body):
        """Post a server action: accepted, the refusal comes later."""
        self.api.post_server_action(self.server['id'], body)

    def refused(self, action, event, text):
        """The failed event's details (what the user sees) name the cause."""
        found = self._wait_for_action_fail_completion(self.server, action,
                                                      event)
        self.assertIn(text, found['details'])
        return found

    def region_state(self):
        board, region = self.where
        answer = self.cloud.client.describe({}, board)
        return {r['name']: r for r in answer['regions']}[region]

    def assert_still_running(self, status='ACTIVE'):
        # nova clears the task state last (after a refused snapshot, after
        # deleting its image): wait for it, not only for the status
        server = self._wait_for_server_parameter(
            self.server, {'status': status, 'OS-EXT-STS:task_state': None})
        self.assertEqual(1, server['OS-EXT-STS:power_state'])
        self.assertEqual(self.where, self.region_of(self.server))
        region = self.region_state()
        self.assertEqual(('ACTIVE', False),
                         (region['state'], region['decoupled']))
        return server

    def test_snapshot_is_refused_and_its_image_removed(self):
        # nova 34 snapshots in a background task after the action's event
        # has ended, so the reason is in the instance fault and the log
        self.act({'createImage': {'name': 'region-snapshot'}})
        deadline = time.monotonic() + 30
        while 'region-snapshot' in self.image_names():
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.2)
        self.assert_still_running()
        ctxt = nova_context.get_admin_context()
        fault = objects.InstanceFault.get_latest_for_instance(
            ctxt, self.server['id'])
        self.assertIn('Cannot snapshot a server in an FPGA region',
                      fault.message)

    def image_names(self):
        return [i['name'] for i in self.glance.images.values()]

    def test_suspend_is_refused(self):
        self.act({'suspend': {}})
        self.refused('suspend', 'compute_suspend_instance',
                     'Cannot suspend a server in an FPGA region')
        self.assert_still_running()

    def test_migrate_within_one_proxy_is_refused_in_words(self):
        # the driver's supports_migrate_to_same_host makes nova offer the
        # proxy's other boards: the move reaches the driver, which refuses
        # it, instead of ending in the scheduler's "No valid host"
        allocations = held(self, self.server)
        self.act({'migrate': None})
        self.refused('migrate', 'compute_resize_instance',
                     'Cannot migrate or resize a server in an FPGA region')
        self.assert_still_running()
        self.assertEqual(allocations, held(self, self.server))

    def test_pause_is_refused(self):
        self.act({'pause': None})
        self.refused('pause', 'compute_pause_instance',
                     'Cannot pause a server in an FPGA region')
        self.assert_still_running()

    def test_shelve_is_refused_before_the_region_is_stopped(self):
        # nova powers a server off before it snapshots it for shelving:
        # the refusal comes first, so the server keeps running
        self.act({'shelve': None})
        self.refused('shelve', 'compute_shelve_instance',
                     'Cannot shelve a server in an FPGA region')
        self.assert_still_running()
        self.assertEqual('ACTIVE', self.region_state()['state'])

    def test_volume_attach_is_refused(self):
        volume = nova_fixtures.CinderFixture.IMAGE_BACKED_VOL
        self.api.post_server_volume(
            self.server['id'], {'volumeAttachment': {'volumeId': volume}})
        self.refused('attach_volume', 'compute_attach_volume',
                     'Cannot attach volumes to a server in an FPGA region')
        self.assert_still_running()
        self.assertEqual([], self.api.get_server_volumes(self.server['id']))

    def test_rescue_is_refused_before_the_region_is_touched(self):
        # nova errors a server whose rescue the driver refuses (it has no
        # capability flag for it); the region must not even be stopped
        self.act({'rescue': {'adminPass': 'x'}})
        server = self._wait_for_state_change(self.server, 'ERROR')
        self.assertIn('Cannot rescue a server in an FPGA region',
                      server['fault']['message'])
        region = self.region_state()
        self.assertEqual(('ACTIVE', False),
                         (region['state'], region['decoupled']))
        # an admin's reset-state brings it back as it was
        self.admin_api.post_server_action(
            self.server['id'], {'os-resetState': {'state': 'active'}})
        self.assert_still_running()

    def test_soft_reboot_resets_and_hard_reboot_reloads(self):
        board, region = self.where

        def log():
            return self.cloud.client.stats({}, board, region,
                                           self.server['id'])['log']

        loads_before = sum('loaded image' in line for line in log())
        self._reboot_server(self.server)
        self.assertTrue(any('module reset' in line for line in log()))
        self.assertEqual(loads_before,
                         sum('loaded image' in line for line in log()))
        self.assert_still_running()

        self._reboot_server(self.server, hard=True)
        self.assertEqual(loads_before + 1,
                         sum('loaded image' in line for line in log()))
        self.assert_still_running()

    def test_hard_reboot_recovers_a_stopped_region(self):
        self.api.post_server_action(self.server['id'], {'os-stop': None})
        self._wait_for_state_change(self.server, 'SHUTOFF')
        self._reboot_server(self.server, hard=True)
        self.assert_still_running()


class ReconcileTest(base.ZynqTestBase):

    def sync_power_states(self):
        """nova's power-state sync for each server, run now (the periodic
        task hands each server to a thread pool).
        """
        ctxt = nova_context.get_admin_context()
        for instance in objects.InstanceList.get_by_host(ctxt, 'compute'):
            self.compute.manager._query_driver_power_state_and_sync(
                ctxt, instance)

    def test_compute_start_frees_regions_nova_does_not_know(self):
        server = self.boot(self.region_image('rp0'))
        board, held = self.region_of(server)
        free = 'rp1' if held == 'rp0' else 'rp0'
        # a load nova never recorded (e.g. nova-compute died between the
        # load and its database update, and the build was given up)
        orphan = str(uuid.uuid4())
        data = agent_fixtures.module_for(free)
        self.cloud.client.load({}, board, free, orphan, str(uuid.uuid4()),
                               hashlib.sha256(data).hexdigest(), data)
        self.assertIn((board, free), self.loads())

        self.compute = self.restart_compute_service(
            self.compute, keep_hypervisor_state=False)
        self.assertEqual({(board, held): server['id']}, self.loads())
        self.assertIn('region %s holds instance %s but nova has no such '
                      'instance: unloading it' % (free, orphan),
                      self.stdlog.logger.output)
        self.assertEqual('ACTIVE', self._show_server(server)['status'])

    def test_agent_restart_under_running_servers(self):
        images = {r: self.region_image(r) for r in ('rp0', 'rp1')}
        servers = [self.boot(images['rp0']), self.boot(images['rp1'])]
        before = self.loads()
        board = self.region_of(servers[0])[0]
        # the agent process goes away and comes back (state file kept)
        self.cloud.stop(board)
        self.cloud.start(board)
        self.addCleanup(lambda: board in self.cloud.agents
                        and self.cloud.stop(board))
        self._run_periodics()
        self.assertEqual(before, self.loads())
        for server in servers:
            server = self._wait_for_state_change(server, 'ACTIVE')
            self.assertEqual(1, server['OS-EXT-STS:power_state'])

        # and nova-compute restarting while an agent is away keeps the
        # server, reports it NOSTATE, and all is consistent once it is back
        self.cloud.stop(board)
        self.compute = self.restart_compute_service(
            self.compute, keep_hypervisor_state=False)
        self.sync_power_states()
        away = self._show_server(servers[0])
        self.assertEqual('ACTIVE', away['status'])
        self.assertEqual(0, away['OS-EXT-STS:power_state'])
        self.cloud.start(board)
        self._run_periodics()
        self.sync_power_states()
        self.assertEqual(1, self._show_server(servers[0])[
            'OS-EXT-STS:power_state'])
        self.assertEqual(before, self.loads())
        # the board takes new work and gives regions back
        for server in servers:
            self._delete_server(server)
        self.assertEqual({}, self.loads())


class TwoProxiesTest(base.ZynqTestBase):
    """Boards behind two nova-compute proxies, each its own board group:
    nova finds a target board on the other host, and the source driver
    refuses to move the logic.
    """

    BOARDS = ('board0',)
    CAST_AS_CALL = False

    def setUp(self):
        self.flags(board_group='rack0', peer_list=['compute'], group='zynq')
        super().setUp()
        self.cloud.start('board2')
        self.addCleanup(self.cloud.stop, 'board2')
        self.flags(boards=['board2'], board_group='rack2',
                   peer_list=['compute2'], group='zynq')
        self.compute2 = self._start_compute('compute2')

    def test_migrate_and_resize_are_refused_and_allocations_restored(self):
        server = self.boot(self.region_image('rp0'))
        where = (server['OS-EXT-SRV-ATTR:host'],
                 server['OS-EXT-SRV-ATTR:hypervisor_hostname'])
        allocations = held(self, server)
        bigger = self._create_flavor(
            name='fpga.region.b', memory_mb=2, vcpu=1, disk=1, ephemeral=0,
            extra_spec=base.FPGA_FLAVOR_SPECS)
        for action, body in (('migrate', {'migrate': None}),
                             ('resize', {'resize': {'flavorRef': bigger}})):
            self.api.post_server_action(server['id'], body)
            event = self._wait_for_action_fail_completion(
                server, action, 'compute_resize_instance')
            self.assertIn('Cannot migrate or resize a server in an FPGA '
                          'region', event['details'])
            server = self._wait_for_state_change(server, 'ACTIVE')
            self.assertEqual(where, (
                server['OS-EXT-SRV-ATTR:host'],
                server['OS-EXT-SRV-ATTR:hypervisor_hostname']))
            self.assertEqual(1, server['OS-EXT-STS:power_state'])
            self.assertEqual({(where[1], 'rp0'): server['id']}, self.loads())
            # the region allocation is the server's again, nothing is left
            # held on the target board
            self.assertEqual(allocations, held(self, server))
        migrations = self.api.get_migrations()
        self.assertEqual(['error', 'error'],
                         [m['status'] for m in migrations])
        for migration in migrations:
            self.assertEqual({}, self._get_allocations_by_server_uuid(
                migration['uuid']))

    def loads(self):
        found = super().loads()
        answer = self.cloud.client.describe({}, 'board2')
        for region in answer['regions']:
            if region['instance_uuid']:
                found[('board2', region['name'])] = region['instance_uuid']
        return found
