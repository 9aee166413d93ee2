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

"""nova-fpga-manage's flavor creation through openstacksdk against nova's
real API (the functional harness), and servers landing with that flavor."""
from keystoneauth1 import session as ks_session
from keystoneauth1 import token_endpoint
import openstack

from nova_fpga.cmd import manage
from nova_fpga.contract import placement
from nova_fpga import conventions
from tests.functional import base


class ManageFlavorTest(base.ZynqTestBase):

    def sdk(self):
        """An openstacksdk connection to the harness's nova API as admin
        (the harness trusts identity headers instead of keystone tokens).
        """
        sess = ks_session.Session(
            auth=token_endpoint.Token(self.api.base_url, 'admin'),
            additional_headers={'X-Auth-User': 'admin', 'X-User-Id': 'admin',
                                'X-Auth-Project-Id': self.api.project_id,
                                'X-Roles': 'reader,member,admin'})
        return openstack.connection.Connection(
            session=sess, compute_endpoint_override=self.api.base_url)

    def test_flavor_create_follows_the_conventions_and_schedules(self):
        conn = self.sdk()
        flavor, outcome = manage.create_flavor(conn, 'fpga.managed')
        self.assertEqual('created', outcome)
        shown = self.api.api_get('/flavors/%s' % flavor.id).body['flavor']
        self.assertEqual((1, 1, 1), (shown['vcpus'], shown['ram'],
                                     shown['disk']))
        self.assertEqual(conventions.FLAVOR_EXTRA_SPECS, shown['extra_specs'])
        # idempotent
        again, outcome = manage.create_flavor(conn, 'fpga.managed')
        self.assertEqual(('exists', flavor.id), (outcome, again.id))
        # a server with it lands in a region
        server = self.boot(self.region_image('rp1'), flavor=flavor.id)
        self.assertEqual(server['id'], self.loads()[self.region_of(server)])

    def test_an_existing_different_flavor_is_left_alone(self):
        conn = self.sdk()
        self._create_flavor(name='fpga.taken', memory_mb=512, vcpu=2, disk=1,
                            ephemeral=0,
                            extra_spec={placement.REGION_EXTRA_SPEC: '1'})
        with self.assertRaises(manage.ConventionError) as caught:
            manage.create_flavor(conn, 'fpga.taken')
        message = str(caught.exception)
        self.assertIn('resources:VCPU=None (expected 0)', message)
        self.assertIn('vcpus=2 (expected 1)', message)
        self.assertIn('left alone', message)
