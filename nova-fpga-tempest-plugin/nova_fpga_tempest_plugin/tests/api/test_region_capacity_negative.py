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

"""Every free region taken: one server more finds no valid host.

It boots as many servers as placement has free regions the image fits, so
it runs only when ``[fpga] max_regions_test`` allows that many, and
serially: no other test may take or free a region meanwhile.
"""
from tempest import config
from tempest.lib import decorators

from nova_fpga_tempest_plugin.tests import base

CONF = config.CONF


@decorators.serial
class RegionCapacityNegativeTest(base.FpgaBaseTest):
    """A full cloud refuses the next region server in nova's words."""

    # GET /resource_providers?required=: placement 1.18
    placement_min_microversion = '1.18'

    @classmethod
    def skip_checks(cls):
        super(RegionCapacityNegativeTest, cls).skip_checks()
        if CONF.fpga.max_regions_test <= 0:
            raise cls.skipException(
                'filling every free region is off ([fpga] '
                'max_regions_test = 0)')

    @decorators.attr(type=['negative', 'slow'])
    @decorators.idempotent_id('612a35ba-e72a-4744-bb51-401ac9bbcd35')
    def test_server_beyond_the_free_regions_finds_no_valid_host(self):
        free = self.free_regions_for(self.fpga_image)
        if len(free) > CONF.fpga.max_regions_test:
            raise self.skipException(
                '%d free regions fit image %s, more than [fpga] '
                'max_regions_test = %d' % (len(free), self.fpga_image['id'],
                                           CONF.fpga.max_regions_test))
        created = [self.create_region_server(wait_until=None)['id']
                   for _ in free]
        for server_id in created:
            self.wait_for_active(server_id)
        left = self.free_regions_for(self.fpga_image)
        self.assertEqual([], left, 'regions still free after %d servers '
                         'took the %d that were' % (len(created), len(free)))

        server = self.create_region_server(wait_until='ERROR')
        self.assertIn(base.NO_VALID_HOST, server['fault']['message'],
                      server)
