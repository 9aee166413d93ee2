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

"""A board too hot, as nova shows it: its servers' power state Paused and
the reason in their console log, new servers sent elsewhere, and all back
once it cools."""
import fixtures
from nova.compute import power_state
from nova import context as nova_context
from nova import objects

from nova_fpga.contract import placement
from nova_fpga_emulator.fakekernel import iio
from tests.functional import base


class WatchdogTest(base.ZynqTestBase):
    BOARDS = ('board0',)

    def setUp(self):
        sysfs = self.useFixture(fixtures.TempDir()).path
        self.xadc = iio.FakeXadc(sysfs).install()
        self.AGENT_OPTIONS = {'board0': {('agent', 'sysfs_root'): sysfs}}
        super().setUp()
        self.agent = self.cloud.agents['board0']

    def set_temperature(self, celsius):
        self.xadc.set_temperature(celsius)
        self.agent.watchdog.check()
        # nova-compute's periodic resource update (the scheduler's stats
        # and placement), then its power-state sync
        self._run_periodics()
        ctxt = nova_context.get_admin_context()
        for instance in objects.InstanceList.get_by_host(ctxt, 'compute'):
            self.compute.manager._query_driver_power_state_and_sync(
                ctxt, instance)

    def console(self, server):
        return self.api.post_server_action(
            server['id'], {'os-getConsoleOutput': {}})['output']

    def reserved(self, region):
        """What placement holds back of the region provider."""
        provider = self._get_provider_uuid_by_name('board0:%s' % region)
        return self._get_provider_inventory(provider)[
            placement.REGION_RESOURCE_CLASS]['reserved']

    def loads_served(self):
        return self.cloud.client.health({}, 'board0')['calls'][
            'request'].get('load', 0)

    def test_hot_board_pauses_its_servers_and_takes_no_new_ones(self):
        running = self.boot(self.region_image('rp0'))
        self.set_temperature(iio.OVERHEAT_CELSIUS)

        server = self._show_server(running)
        self.assertEqual('ACTIVE', server['status'])
        self.assertEqual(power_state.PAUSED,
                         server['OS-EXT-STS:power_state'])
        text = self.console(running)
        self.assertIn('held off the shell (decoupled, module in reset) while '
                      'the board is unfit: overheated: 95.', text)
        self.assertIn('module held in reset', text)

        # the free rp1 takes no server: the scheduler finds no board
        refused = self.boot(self.region_image('rp1'), expected_state='ERROR')
        self.assertIn('No valid host', refused['fault']['message'])
        self.assertEqual(1, self.loads_served())
        self.assertEqual(1, self.reserved('rp1'))

        self.set_temperature(iio.ROOM_CELSIUS)
        server = self._show_server(running)
        self.assertEqual(power_state.RUNNING,
                         server['OS-EXT-STS:power_state'])
        self.assertIn('region running again', self.console(running))
        self.assertNotIn('held off the shell', self.console(running))
        self.assertEqual(0, self.reserved('rp1'))
        self.boot(self.region_image('rp1'))
