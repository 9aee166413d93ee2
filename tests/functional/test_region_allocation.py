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

"""The region a server is given: placement's allocation, and only while
the server has it (issue 20).
"""
from keystoneauth1 import exceptions as ks_exceptions
from nova.scheduler.client import report

from nova_fpga.virt import driver
from tests.functional import base


class PlacementOutageTest(base.ZynqTestBase):

    def setUp(self):
        super().setUp()
        #: set while nova-compute builds a server
        self.building = []
        real_build = self.compute.manager._build_and_run_instance

        def build(*args, **kwargs):
            self.building.append(True)
            try:
                return real_build(*args, **kwargs)
            finally:
                self.building.clear()

        self.stub_out('nova.compute.manager.ComputeManager.'
                      '_build_and_run_instance',
                      lambda manager, *a, **kw: build(*a, **kw))

    def test_unreadable_allocation_is_reported_as_such(self):
        """Placement refusing connections when nova-compute reads the
        server's allocation for spawn (nova's legacy read answers None)
        and still when the driver reads it again: the fault says the
        allocation could not be read, not that the flavor asked for no
        region.
        """
        self.flags(max_attempts=1, group='scheduler')
        legacy = report.SchedulerReportClient.get_allocations_for_consumer
        original = report.SchedulerReportClient.get_allocs_for_consumer
        spawn = driver.ZynqDriver.spawn
        spawning = []

        def unreachable(*args):
            raise ks_exceptions.ConnectFailure(
                'Unable to establish connection to placement')

        def legacy_read(client, context, consumer):
            if self.building:
                return None   # what nova's legacy read says when it fails
            return legacy(client, context, consumer)

        def get_allocs(client, context, consumer):
            if spawning:
                unreachable()
            return original(client, context, consumer)

        def spawning_spawn(zynq, *args, **kwargs):
            spawning.append(True)
            try:
                return spawn(zynq, *args, **kwargs)
            finally:
                spawning.clear()

        self.stub_out('nova.scheduler.client.report.SchedulerReportClient.'
                      'get_allocations_for_consumer', legacy_read)
        self.stub_out('nova.scheduler.client.report.SchedulerReportClient.'
                      'get_allocs_for_consumer', get_allocs)
        self.stub_out('nova_fpga.virt.driver.ZynqDriver.spawn',
                      spawning_spawn)
        server = self.boot(self.region_image('rp1'), expected_state='ERROR')
        message = server['fault']['message']
        self.assertIn('could not be read from placement', message)
        self.assertIn('ConnectFailure', message)
        self.assertNotIn('the flavor must request', message)
        self.assertEqual({}, self.loads())

    def test_allocation_read_again_after_a_blip(self):
        """nova's own read failed, placement answers again at once: the
        driver's second read finds the region and the server runs.
        """
        original = report.SchedulerReportClient.get_allocations_for_consumer
        failed = []

        def legacy(client, context, consumer):
            if self.building and not failed:
                failed.append(consumer)
                return None   # what nova's legacy read says on a failure
            return original(client, context, consumer)

        self.stub_out('nova.scheduler.client.report.SchedulerReportClient.'
                      'get_allocations_for_consumer', legacy)
        server = self.boot(self.region_image('rp1'))
        self.assertEqual([server['id']], failed)
        self.assertEqual(server['id'], self.loads()[
            (server['OS-EXT-SRV-ATTR:hypervisor_hostname'], 'rp1')])
