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

"""What a region refuses, and says why: images that are not bitstreams for
this cloud, and a snapshot of a region server.
"""
import io

from tempest import config
from tempest.lib.common.utils import data_utils
from tempest.lib.common.utils import test_utils
from tempest.lib import decorators
from tempest.lib import exceptions as lib_exc

from nova_fpga_tempest_plugin.tests import base

CONF = config.CONF

#: data that is no Xilinx configuration stream at all
GARBAGE = b'nova-fpga tempest: this is not a bitstream\n' * 64
#: what the bitstream store answers a plain upload of such data
STORE_REFUSAL = 'not a valid bitstream'
#: what the import plugin writes into fpga_import_error for it
IMPORT_REFUSAL = 'not a valid partial bitstream'
#: Glance's refusal of a region server's snapshot, as nova answers it
SNAPSHOT_REFUSAL = 'Cannot snapshot a server in an FPGA region'


class RegionImagesNegativeTest(base.FpgaBaseTest):
    """Images that no region takes: refused by Glance, or by the
    scheduler with nova's "No valid host".
    """

    def create_admin_image(self, **properties):
        image = self.admin_images_client.create_image(
            name=data_utils.rand_name(prefix=CONF.resource_name_prefix,
                                      name='fpga-not-a-bitstream'),
            container_format='bare', disk_format='raw',
            visibility='private', **properties)
        self.addCleanup(test_utils.call_and_ignore_notfound_exc,
                        self.admin_images_client.delete_image, image['id'])
        return image

    @decorators.attr(type=['negative'])
    @decorators.idempotent_id('be27bf8c-45c7-4a19-a143-358c5990816f')
    def test_ordinary_image_on_region_flavor_finds_no_valid_host(self):
        image_ref = CONF.compute.image_ref
        if not image_ref or image_ref == self.fpga_image['id']:
            raise self.skipException('[compute] image_ref names no '
                                     'ordinary image')
        image = self.admin_images_client.show_image(image_ref)
        if self.image_traits(image):
            raise self.skipException('[compute] image_ref %s is a '
                                     'bitstream image' % image_ref)
        # nothing is loaded, so no region is taken: no regions lock
        server = self.create_region_server(image_id=image_ref,
                                           wait_until='ERROR')
        self.assertIn(base.NO_VALID_HOST, server['fault']['message'],
                      server)

    @decorators.attr(type=['negative'])
    @decorators.idempotent_id('4e10d82d-494d-4c38-9ad7-3265a218d34f')
    def test_plain_upload_of_garbage_is_refused_with_a_reason(self):
        # an image declaring a shell is a bitstream: glance-api sends its
        # data to the bitstream store, which refuses this
        image = self.create_admin_image(
            **{base.SHELL_ID_PROPERTY: self.shell_id()})
        error = self.assertRaises(lib_exc.BadRequest,
                                  self.admin_images_client.store_image_file,
                                  image['id'], io.BytesIO(GARBAGE))
        self.assertIn(STORE_REFUSAL, str(error))
        image = self.admin_images_client.show_image(image['id'])
        self.assertNotEqual('active', image['status'], image)

    @decorators.attr(type=['negative'])
    @decorators.idempotent_id('ae7cfd98-16da-42db-a809-00b3e322f6c4')
    def test_import_of_garbage_is_refused_with_a_reason(self):
        if not CONF.image_feature_enabled.import_image:
            raise self.skipException('Glance\'s image import is not enabled '
                                     '([image-feature-enabled] '
                                     'import_image)')
        image = self.create_admin_image(
            **{base.SHELL_ID_PROPERTY: self.shell_id()})
        self.admin_images_client.stage_image_file(image['id'],
                                                  io.BytesIO(GARBAGE))
        # no store named: glance-api names the bitstream store for it
        self.admin_images_client.image_import(
            image['id'], method='glance-direct', all_stores=False)
        shown = {}

        def verdict():
            shown.update(self.admin_images_client.show_image(image['id']))
            return (base.IMPORT_ERROR_PROPERTY in shown
                    or shown['status'] in ('active', 'killed', 'deleted'))

        self.assertTrue(test_utils.call_until_true(
            verdict, CONF.fpga.build_timeout, 2),
            'no verdict on the import of image %s after %d s: %s' % (
                image['id'], CONF.fpga.build_timeout, shown))
        self.assertEqual('queued', shown['status'], shown)
        self.assertIn(IMPORT_REFUSAL, shown[base.IMPORT_ERROR_PROPERTY])

    @decorators.idempotent_id('46de9088-af3d-4587-a472-827593bada51')
    def test_vm_image_upload_keeps_glances_default_store(self):
        # boards beside VMs: an image that declares no shell is a VM
        # image, and whatever its data it goes where Glance keeps them
        image = self.create_admin_image()
        self.admin_images_client.store_image_file(image['id'],
                                                  io.BytesIO(GARBAGE))
        image = self.admin_images_client.show_image(image['id'])
        self.assertEqual('active', image['status'], image)
        self.assertFalse(self.image_traits(image), image)

    def shell_id(self):
        shell_id = self.fpga_image.get(base.SHELL_ID_PROPERTY)
        self.assertTrue(shell_id, '[fpga] image %s has no %s' % (
            self.fpga_image['id'], base.SHELL_ID_PROPERTY))
        return shell_id


class RegionServerActionsNegativeTest(base.FpgaBaseTest):
    """Actions a region server refuses at the API."""

    def setUp(self):
        super(RegionServerActionsNegativeTest, self).setUp()
        self.take_regions_lock()

    @decorators.attr(type=['negative'])
    @decorators.idempotent_id('2c36ff15-fac0-44b3-8fac-5348576231dc')
    def test_snapshot_of_region_server_is_refused(self):
        server = self.create_region_server()
        name = data_utils.rand_name(prefix=CONF.resource_name_prefix,
                                    name='fpga-region-snapshot')
        try:
            # the compute API's createImage action (tempest's compute
            # images client)
            body = self.compute_images_client.create_image(server['id'],
                                                           name=name)
        except (lib_exc.BadRequest, lib_exc.Conflict) as exc:
            refusal = str(exc)
        else:
            image_id = body.get('image_id') or data_utils.parse_image_id(
                body.response['location'])
            self.addCleanup(test_utils.call_and_ignore_notfound_exc,
                            self.admin_images_client.delete_image, image_id)
            self.fail('the snapshot of region server %s was accepted '
                      '(image %s)' % (server['id'], image_id))
        self.assertIn(SNAPSHOT_REFUSAL, refusal)
        self.assertIn(self.fpga_image['id'], refusal)
        # nothing changed: the server runs, no image was left behind
        server = self.wait_for_active(server['id'])
        self.assertEqual('ACTIVE', server['status'])
        self.assertEqual([], self.admin_images_client.list_images(
            params={'name': name})['images'])
