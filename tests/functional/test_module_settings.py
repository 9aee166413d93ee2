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

"""A tenant's settings of a module's registers (the vTC's DSCP policy,
``--property vtc:dscp:<class>=<DSCP>``) through nova's real API, scheduler
and compute: checked against the module catalogue before anything loads,
carried to the agent with the load, read again at a hard reboot."""
import time

import fixtures
from nova import context as nova_context
from nova import objects

from nova_fpga import bitstream
from nova_fpga import catalogue
from nova_fpga.contract import agent_api
from nova_fpga.contract import traits
from tests.functional import base


class SettingsBase(base.ZynqTestBase):

    def vtc_image(self, **defaults):
        """The vTC for rp1; defaults: image properties besides those
        derived from the bitstream.
        """
        data = base.agent_fixtures.module_for('rp1',
                                              catalogue.module_id('vtc'))
        props = traits.image_properties(bitstream.validate(data),
                                        base.SHELL_ID)
        props.update(defaults)
        return self.create_bitstream_image(data, 'vtc', properties=props)

    def boot_with(self, image_id, metadata, expected_state='ACTIVE'):
        body = self._build_server(image_uuid=image_id,
                                  flavor_id=self.fpga_flavor,
                                  networks='none')
        body['metadata'] = metadata
        server = self.api.post_server({'server': body})
        return self._wait_for_state_change(server, expected_state)

    def settings_of(self, server):
        board, region = self.region_of(server)
        return {r['name']: r for r in self.cloud.client.describe(
            {}, board)['regions']}[region]['settings']

    def regions(self):
        return [(board, r['name'], r['state']) for board in self.BOARDS
                for r in self.cloud.client.describe({}, board)['regions']]

    def fault_of(self, server, timeout=20):
        """The message of the server's fault, once it has one."""
        deadline = time.monotonic() + timeout
        while True:
            faults = objects.InstanceFaultList.get_latest_by_instance_uuids(
                nova_context.get_admin_context(), [server['id']])
            if faults or time.monotonic() > deadline:
                self.assertTrue(faults, 'no fault recorded')
                return faults[0].message
            time.sleep(0.1)


class SettingsTest(SettingsBase):

    def test_a_bad_property_fails_the_build_naming_it(self):
        vtc = self.vtc_image()
        loopback = self.region_image('rp0')
        free = self.regions()
        for image, metadata, message in (
                (vtc, {'vtc:dscp:sipp': '46'},
                 'property vtc:dscp:sipp is not a setting of module vtc '
                 '(it takes vtc:dscp:http, '),
                (vtc, {'vtc:dscp:sip': '64'},
                 'property vtc:dscp:sip=64: vtc:dscp:sip takes an integer '
                 '0..63'),
                (vtc, {'vtc:dscp:sip': 'EF', 'owner': 'bob'},
                 "property vtc:dscp:sip='EF': the value must be a decimal "
                 "integer"),
                (loopback, {'vtc:dscp:sip': '46'},
                 'property vtc:dscp:sip is not a setting of module '
                 'loopback (it has none)')):
            server = self.boot_with(image, metadata, expected_state='ERROR')
            self.assertIn(message, server['fault']['message'])
            # refused before any load: every region is free as before,
            # none tried and failed (no reschedule either)
            self.assertEqual({}, self.loads())
            self.assertEqual(free, self.regions())
            self._delete_server(server)

    def test_settings_reach_the_region_and_a_hard_reboot_reads_them_again(
            self):
        # the image's properties give defaults, the server's override them
        vtc = self.vtc_image(**{'vtc:dscp:smtp': '10', 'vtc:dscp:sip': '8'})
        server = self.boot_with(vtc, {'vtc:dscp:sip': '46', 'owner': 'bob'})
        self.assertEqual({'vtc:dscp:sip': 46, 'vtc:dscp:smtp': 10},
                         self.settings_of(server))
        self.api.post_server_metadata(server['id'], {'vtc:dscp:sip': '34'})
        # a soft reboot resets the module with the settings it loaded with
        self._reboot_server(server)
        self.assertEqual({'vtc:dscp:sip': 46, 'vtc:dscp:smtp': 10},
                         self.settings_of(server))
        self._reboot_server(server, hard=True)
        self.assertEqual({'vtc:dscp:sip': 34, 'vtc:dscp:smtp': 10},
                         self.settings_of(server))
        # a value the module does not take fails the reboot, in words; the
        # region keeps running what it ran
        self.api.post_server_metadata(server['id'], {'vtc:dscp:sip': '99'})
        self.api.post_server_action(server['id'],
                                    {'reboot': {'type': 'HARD'}})
        # nova records the fault and leaves a running server ACTIVE
        self.assertIn('Failed to reboot instance: property vtc:dscp:sip=99: '
                      'vtc:dscp:sip takes an integer 0..63',
                      self.fault_of(server))
        self.assertEqual('ACTIVE', self.api.get_server(server['id'])[
            'status'])
        self.assertEqual({'vtc:dscp:sip': 34, 'vtc:dscp:smtp': 10},
                         self.settings_of(server))

    def test_a_server_without_settings_runs_the_reset_values(self):
        server = self.boot_with(self.vtc_image(), {'owner': 'bob'})
        self.assertIsNone(self.settings_of(server))


class OldAgentSettingsTest(SettingsBase):
    """Boards whose agents serve agent API 1.3 (before settings)."""

    def setUp(self):
        self.useFixture(fixtures.MonkeyPatch(
            'nova_fpga.contract.agent_api.API_VERSION', '1.3'))
        super().setUp()

    def test_settings_are_refused_in_words(self):
        server = self.boot_with(self.vtc_image(), {'vtc:dscp:sip': '46'},
                                expected_state='ERROR')
        self.assertIn('runs agent API 1.3, which cannot set a module\'s '
                      'registers (%s needed): upgrade its agent, or create '
                      'the server without the properties vtc:dscp:sip'
                      % agent_api.SETTINGS_VERSION,
                      server['fault']['message'])
        self.assertEqual({}, self.loads())
        # without them it still boots there
        self.assertIsNone(self.settings_of(self.boot_with(
            self.vtc_image(), {'owner': 'bob'})))
