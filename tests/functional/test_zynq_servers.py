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

"""Servers in regions through nova's real API, scheduler, placement and
compute with the Zynq driver, against real agents."""
import hashlib
import io
import threading
from unittest import mock

from nova.compute import resource_tracker
from nova.compute import task_states
from nova.compute import vm_states
from nova import context as nova_context
from nova import objects

from nova_fpga import catalogue
from nova_fpga.contract import placement
from nova_fpga.contract import states
from tests.functional import base


class TwoBoardsTest(base.ZynqTestBase):

    def test_four_regions_then_no_valid_host_then_reuse(self):
        images = {r: self.region_image(r) for r in ('rp0', 'rp1')}
        servers = [self.boot(images[r]) for r in ('rp0', 'rp0', 'rp1', 'rp1')]
        loads = self.loads()
        self.assertEqual(sorted(s['id'] for s in servers),
                         sorted(loads.values()))
        self.assertEqual({('board0', 'rp0'), ('board0', 'rp1'),
                          ('board1', 'rp0'), ('board1', 'rp1')},
                         set(loads))
        for server in servers:
            board, _ = self.region_of(server)
            self.assertEqual(board,
                             server['OS-EXT-SRV-ATTR:hypervisor_hostname'])

        fifth = self.boot(images['rp0'], expected_state='ERROR')
        self.assertIn('No valid host', fifth['fault']['message'])
        self.assertEqual(loads, self.loads())

        freed = self.region_of(servers[0])
        self._delete_server(servers[0])
        self.assertNotIn(freed, self.loads())
        again = self.boot(images['rp0'])
        self.assertEqual(freed, self.region_of(again))
        self.assertEqual(4, len(self.loads()))

    def test_power_console_and_restarts(self):
        server = self.boot(self.region_image('rp1'))
        board, region = self.region_of(server)

        self.api.post_server_action(server['id'], {'os-stop': None})
        server = self._wait_for_state_change(server, 'SHUTOFF')
        state = self.cloud.client.describe({}, board)['regions']
        self.assertEqual(
            states.STOPPED, {r['name']: r['state'] for r in state}[region]
        )
        self.api.post_server_action(server['id'], {'os-start': None})
        server = self._wait_for_state_change(server, 'ACTIVE')

        output = self.api.post_server_action(
            server['id'], {'os-getConsoleOutput': {}})['output']
        self.assertIn('board %s region %s: ACTIVE' % (board, region), output)
        self.assertIn('loaded image', output)
        self.assertIn('power off', output)
        self.assertIn('module counters:', output)

        # nova-compute restarts twice with a new driver: same nodes, same
        # providers, the server still there and still running
        nodes = self.admin_api.api_get(
            '/os-hypervisors').body['hypervisors']
        for _ in range(2):
            self.compute = self.restart_compute_service(
                self.compute, keep_hypervisor_state=False)
        self.assertEqual(nodes, self.admin_api.api_get(
            '/os-hypervisors').body['hypervisors'])
        server = self._wait_for_state_change(server, 'ACTIVE')
        self.assertEqual(1, server['OS-EXT-STS:power_state'])
        self.assertEqual({(board, region): server['id']}, self.loads())
        self._delete_server(server)
        self.assertEqual({}, self.loads())


class PlacementOfImagesTest(base.ZynqTestBase):
    """Bitstreams only on boards, ordinary images never on boards."""

    def setUp(self):
        super().setUp()
        # an ordinary compute beside the boards' proxy
        self.flags(compute_driver='fake.SmallFakeDriver')
        self._start_compute('ordinary')

    def test_ordinary_image_on_fpga_flavor_goes_nowhere(self):
        ordinary = self.glance.auto_disk_config_enabled_image['id']
        server = self.boot(ordinary, expected_state='ERROR')
        self.assertIn('No valid host', server['fault']['message'])
        self.assertEqual({}, self.loads())

    def test_bitstream_uploaded_without_import_is_refused_with_a_reason(self):
        # a plain upload: the data is a bitstream, no derived properties
        data = base.agent_fixtures.module_for('rp0')
        image = self.glance.create(None, {
            'name': 'plain-upload', 'status': 'active',
            'visibility': 'public', 'container_format': 'bare',
            'disk_format': 'raw', 'size': len(data), 'properties': {}},
            data=io.BytesIO(data))
        server = self.boot(image['id'], expected_state='ERROR')
        self.assertIn('No valid host', server['fault']['message'])
        self.assertIn('image %s has no FPGA traits' % image['id'],
                      self.stdlog.logger.output)
        self.assertIn('uploaded without the import flow',
                      self.stdlog.logger.output)
        self.assertEqual({}, self.loads())

    def test_bitstream_on_ordinary_flavor_goes_nowhere(self):
        flavor = self._create_flavor(name='ordinary', memory_mb=512, vcpu=1,
                                     disk=1, ephemeral=0)
        server = self.boot(self.region_image('rp0'), flavor=flavor,
                           expected_state='ERROR')
        self.assertIn('No valid host', server['fault']['message'])
        self.assertEqual({}, self.loads())

    def test_bitstream_for_another_shell_never_lands(self):
        data = base.agent_fixtures.module_for('rp0')
        props = base.traits.image_properties(
            base.bitstream.validate(data),
            '0b9a5a3e-0000-4000-8000-000000000001')
        image = self.glance.create(None, {
            'name': 'other-shell', 'status': 'active',
            'visibility': 'public', 'container_format': 'bare',
            'disk_format': 'raw', 'size': len(data), 'properties': props},
            data=io.BytesIO(data))
        server = self.boot(image['id'], expected_state='ERROR')
        self.assertIn('No valid host', server['fault']['message'])
        self.assertEqual({}, self.loads())
        # the scheduler's log: placement had no region with the image's
        # shell trait to offer
        shell_trait = base.traits.shell_trait(
            '0b9a5a3e-0000-4000-8000-000000000001')
        self.assertIn('Got no allocation candidates from the Placement API',
                      self.stdlog.logger.output)
        self.assertIn(shell_trait, self.stdlog.logger.output)

    def test_ordinary_server_still_lands_on_ordinary_host(self):
        flavor = self._create_flavor(name='ordinary', memory_mb=512, vcpu=1,
                                     disk=1, ephemeral=0)
        ordinary = self.glance.auto_disk_config_enabled_image['id']
        server = self.boot(ordinary, flavor=flavor)
        self.assertEqual('ordinary', server['OS-EXT-SRV-ATTR:host'])


class WhatRunsTest(base.ZynqTestBase):

    def test_properties_cannot_make_a_region_run_other_data(self):
        """An image with the vTC image's properties (its fpga_sha256
        included, as an admin could set them) but the loopback's data runs
        the loopback, though both boards cache the vTC: the board loads by
        Glance's hash of the stored data, which no API user can change.
        """
        vtc_data = base.agent_fixtures.module_for(
            'rp1', catalogue.module_id('vtc'))
        vtc = self.create_bitstream_image(vtc_data, 'vtc')
        for server in [self.boot(vtc) for _ in self.BOARDS]:
            self._delete_server(server)
        for board in self.BOARDS:
            cached = self.cloud.client.describe({}, board)['cached']
            self.assertIn(hashlib.sha256(vtc_data).hexdigest(),
                          [entry['sha256'] for entry in cached])
        vtc_properties = self.glance.show(None, vtc)['properties']
        disguised = self.create_bitstream_image(
            base.agent_fixtures.module_for('rp1'), 'loopback-as-vtc',
            properties=vtc_properties)
        server = self.boot(disguised)
        board, region = self.region_of(server)
        loaded = {r['name']: r for r in self.cloud.client.describe(
            {}, board)['regions']}[region]
        self.assertEqual('0x%08X' % catalogue.module_id('loopback'),
                         loaded['module_id'])


class FailingLoadsTest(base.ZynqTestBase):

    def fail_writes(self, board):
        self.cloud.agents[board].manager.backend.board.port_fail_after = 4096

    def test_failed_load_is_rescheduled_to_the_other_board(self):
        self.fail_writes('board0')
        server = self.boot(self.region_image('rp0'))
        self.assertEqual('board1',
                         server['OS-EXT-SRV-ATTR:hypervisor_hostname'])
        self.assertEqual({('board1', 'rp0'): server['id']}, self.loads())

    def test_load_failing_everywhere_ends_in_error_without_leaks(self):
        for board in self.BOARDS:
            self.fail_writes(board)
        server = self.boot(self.region_image('rp0'), expected_state='ERROR')
        # every board was tried; nova's fault says the retries ran out (the
        # cause is in the compute log: see the max_attempts=1 test below)
        self.assertIn('Exceeded maximum number of retries',
                      server['fault']['message'])
        # nothing leaks: no region held, no allocation left
        self.assertEqual({}, self.loads())
        self.assertEqual({}, self._get_allocations_by_server_uuid(
            server['id']))

    def test_without_reschedules_the_fault_names_the_cause(self):
        self.flags(max_attempts=1, group='scheduler')
        for board in self.BOARDS:
            self.fail_writes(board)
        server = self.boot(self.region_image('rp1'), expected_state='ERROR')
        self.assertIn('load failed at step write', server['fault']['message'])
        self.assertEqual({}, self.loads())


class InterruptedBuildTest(base.ZynqTestBase):

    def interrupt(self, server):
        """The server's record as nova-compute leaves it when it dies
        mid-spawn.
        """
        instance = objects.Instance.get_by_uuid(
            nova_context.get_admin_context(), server['id'])
        instance.vm_state = vm_states.BUILDING
        instance.task_state = task_states.SPAWNING
        instance.save()

    def test_restart_mid_spawn_gives_error_with_a_fault_saying_how_far(self):
        loaded = self.boot(self.region_image('rp0'))
        board, region = self.region_of(loaded)
        unloaded = self.boot(self.region_image('rp1'))
        other = self.region_of(unloaded)
        # the second build died before its load reached the board
        self.cloud.client.unload({}, other[0], other[1], unloaded['id'])
        for server in (loaded, unloaded):
            self.interrupt(server)
        self.compute = self.restart_compute_service(self.compute)

        loaded = self._wait_for_state_change(loaded, 'ERROR')
        self.assertIn('nova-compute stopped while building this server on '
                      'board %s' % board, loaded['fault']['message'])
        self.assertIn('region %s holds its bitstream (ACTIVE)' % region,
                      loaded['fault']['message'])
        unloaded = self._wait_for_state_change(unloaded, 'ERROR')
        self.assertIn('no region of the board holds it',
                      unloaded['fault']['message'])
        # deleting them frees what they held
        for server in (loaded, unloaded):
            self._delete_server(server)
        self.assertEqual({}, self.loads())
        self.assertEqual({}, self._get_allocations_by_server_uuid(
            loaded['id']))

    def test_restart_with_a_build_request_lost_gives_a_fault_too(self):
        """The scheduler claimed a region for the server, but nova-compute
        died before the build reached its claim (nova's own test holds
        the claim the same way): nova errors the server out at the restart
        with no fault unless the driver says why.
        """
        image = self.region_image('rp0')
        released = threading.Event()
        self.addCleanup(released.set)
        claim = resource_tracker.ResourceTracker.instance_claim

        def held(*args, **kwargs):
            released.wait(1000000)
            return claim(*args, **kwargs)

        with mock.patch('nova.compute.resource_tracker.ResourceTracker.'
                        'instance_claim', new=held):
            server = self.boot(image, expected_state='BUILD')
            self.notifier.wait_for_versioned_notifications(
                'instance.create.start')
            self.compute = self.restart_compute_service(self.compute)

        server = self._wait_for_state_change(server, 'ERROR')
        # the server never reached a host: the board is the claim's
        self.assertRegex(server['fault']['message'],
                         'nova-compute stopped while building this server '
                         'on board (%s) ' % '|'.join(self.BOARDS))
        self.assertIn('the build request was lost before it reached the '
                      'board', server['fault']['message'])
        self.assertEqual({}, self.loads())
        self._delete_server(server)
        self.assertEqual({}, self._get_allocations_by_server_uuid(
            server['id']))


class SilentAgentTest(base.ZynqTestBase):

    def test_silent_board_keeps_its_server_and_offers_nothing(self):
        first = self.boot(self.region_image('rp0'))
        silent, _ = self.region_of(first)
        other = [b for b in self.BOARDS if b != silent][0]
        self.cloud.stop(silent)
        self._run_periodics()
        # its regions are reserved, not deleted: the allocation stays
        rp = self._get_provider_uuid_by_name('%s:rp1' % silent)
        inventory = self._get_provider_inventory(rp)[
            placement.REGION_RESOURCE_CLASS]
        self.assertEqual(1, inventory['reserved'])
        self.assertIn(self._get_provider_uuid_by_name('%s:rp0' % silent),
                      self._get_allocations_by_server_uuid(first['id']))
        # the silent board's free rp1 is not offered
        second = self.boot(self.region_image('rp1'))
        self.assertEqual(other, second['OS-EXT-SRV-ATTR:hypervisor_hostname'])
        self.assertEqual('ACTIVE', self._show_server(first)['status'])

        # the agent comes back with its region state: the board returns
        self.cloud.start(silent)
        # stopped before nova's check for leaked RPC servers runs
        self.addCleanup(self.cloud.stop, silent)
        self._run_periodics()
        rp = self._get_provider_uuid_by_name('%s:rp1' % silent)
        self.assertEqual(0, self._get_provider_inventory(rp)[
            placement.REGION_RESOURCE_CLASS]['reserved'])
        self.assertEqual({(silent, 'rp0'): first['id'],
                          (other, 'rp1'): second['id']}, self.loads())
