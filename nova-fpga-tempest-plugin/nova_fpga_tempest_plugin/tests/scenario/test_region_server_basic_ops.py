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

"""A region server's life: boot from the bitstream image, what its console
and placement say while it runs, and nothing of it left once deleted.
"""
from tempest.common import waiters
from tempest import config
from tempest.lib.common.utils import test_utils
from tempest.lib import decorators

from nova_fpga_tempest_plugin.tests import base

CONF = config.CONF


class RegionServerBasicOpsTest(base.FpgaBaseTest):
    """``openstack server create --image vtc-bitstream --flavor
    fpga.region --nic none``, seen from the API, the console and placement.
    """

    def setUp(self):
        super(RegionServerBasicOpsTest, self).setUp()
        self.take_regions_lock()

    def console_headline(self, server_id):
        """The console log and its first line's parts (board, region,
        state, module), once the line is there.
        """
        found = {}

        def headline():
            output = self.servers_client.get_console_output(
                server_id)['output']
            found['output'] = output
            match = base.CONSOLE_HEADLINE.search(output)
            found['match'] = match
            return match is not None

        test_utils.call_until_true(headline, 60, 2)
        self.assertIsNotNone(
            found['match'],
            'no "board B region R: STATE, module ID" line in the console '
            'log of server %s: %r' % (server_id, found['output']))
        return found['output'], found['match'].groupdict()

    @decorators.idempotent_id('5cd61f78-1901-49ff-9145-111b7fd160ed')
    def test_bitstream_server_loads_into_one_region_and_frees_it(self):
        server = self.create_region_server()
        server_id = server['id']
        self.assertEqual('ACTIVE', server['status'])
        board = self.board_of(server_id)
        self.assertTrue(board, 'server %s has no hypervisor host name'
                        % server_id)

        # placement: exactly one unit of the region class, from a region
        # provider of that board
        regions = self.region_allocation(server_id)
        self.assertEqual(1, len(regions),
                         'server %s holds %s from %d providers: %s' % (
                             server_id, self.region_class, len(regions),
                             self.allocations_of(server_id)))
        provider, units = regions[0]
        self.assertEqual(1, units)
        provider_name = self.provider_name(provider)

        # the console: the board and region it runs in, and the module
        # the bitstream declares
        output, headline = self.console_headline(server_id)
        self.assertEqual(board, headline['board'], output)
        self.assertEqual('ACTIVE', headline['state'], output)
        self.assertEqual(base.REGION_PROVIDER_NAME % (board,
                                                      headline['region']),
                         provider_name, output)
        module_id = self.fpga_image.get(base.MODULE_ID_PROPERTY)
        if module_id:
            self.assertEqual(module_id.lower(), headline['module'].lower(),
                             output)

        # delete: the server goes, and so does its allocation
        self.servers_client.delete_server(server_id)
        waiters.wait_for_server_termination(self.servers_client, server_id)
        self.wait_for_no_allocation(server_id)
