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

"""CachedBitstreamWeigher through nova's scheduler: a board that caches the
image wins over the one nova would otherwise pick, and the load goes by
digest without an image transfer."""
import hashlib
import uuid

from nova import objects
from nova.tests.unit.scheduler import fakes

from nova_fpga.contract import placement
from nova_fpga.scheduler import weights
from tests.agent import conftest as agent_fixtures
from tests.functional import base

WEIGHER = 'nova_fpga.scheduler.weights.CachedBitstreamWeigher'


class CachedBitstreamTest(base.ZynqTestBase):

    def setUp(self):
        self.flags(weight_classes=['nova.scheduler.weights.all_weighers',
                                   WEIGHER], group='filter_scheduler')
        super().setUp()

    def test_board_caching_the_image_is_preferred(self):
        # where nova puts a server when no board caches its image
        first = self.boot(self.region_image('rp0'))
        default = first['OS-EXT-SRV-ATTR:hypervisor_hostname']
        self._delete_server(first)
        other = [b for b in self.BOARDS if b != default][0]

        # the other board has run the image before (it is in its cache)
        image = self.region_image('rp1')
        data = agent_fixtures.module_for('rp1')
        holder = str(uuid.uuid4())
        self.cloud.client.load({}, other, 'rp1', holder, image,
                               hashlib.sha256(data).hexdigest(), data)
        self.cloud.client.unload({}, other, 'rp1', holder)
        self._run_periodics()  # the node's stats list the cached image

        downloads = []
        real_download = self.glance.download
        self.stub_out('nova.tests.fixtures.GlanceFixture.download',
                      lambda *a, **k: downloads.append(a) or
                      real_download(*a[1:], **k))
        server = self.boot(image)
        self.assertEqual(other,
                         server['OS-EXT-SRV-ATTR:hypervisor_hostname'])
        self.assertEqual([], downloads)
        self.assertIn('board %s loaded image %s from its cache'
                      % (other, image), self.stdlog.logger.output)
        self.assertEqual({(other, 'rp1'): server['id']}, self.loads())


def test_weigher_reads_the_cached_images_stat():
    objects.register_all()
    spec = objects.RequestSpec(image=objects.ImageMeta.from_dict(
        {'id': 'c0ffee00-0000-4000-8000-000000000001', 'properties': {}}))
    weigher = weights.CachedBitstreamWeigher()

    def host(cached):
        return fakes.FakeHostState('compute', 'node', {
            'stats': {placement.STAT_CACHED_IMAGES: cached}})

    assert weigher._weigh_object(host(
        'aaaa,c0ffee00-0000-4000-8000-000000000001'), spec) == 1.0
    assert weigher._weigh_object(host('aaaa'), spec) == 0.0
    assert weigher._weigh_object(host(''), spec) == 0.0
