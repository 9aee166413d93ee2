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

"""CachedBitstreamWeigher: prefer boards that already hold the image.

A board caches the bitstreams it has loaded (the agent's bitstream cache);
a server whose image is cached there loads by digest, without the image
transfer.  The Zynq driver lists the cached image IDs in its node's stats
(``zynq_cached_images``), which is what this weigher reads.

Enable it in ``[filter_scheduler] weight_classes`` by its dotted path
``nova_fpga.scheduler.weights.CachedBitstreamWeigher`` (beside
``nova.scheduler.weights.all_weighers``); its multiplier is
``[zynq] cached_bitstream_weight_multiplier``.
"""
from nova.scheduler import weights

import nova_fpga.conf
from nova_fpga.contract import placement

CONF = nova_fpga.conf.CONF


class CachedBitstreamWeigher(weights.BaseHostWeigher):

    def weight_multiplier(self, host_state):
        return CONF.zynq.cached_bitstream_weight_multiplier

    def _weigh_object(self, host_state, spec_obj):
        image = spec_obj.image
        if image is None or 'id' not in image:
            return 0.0
        cached = (host_state.stats or {}).get(placement.STAT_CACHED_IMAGES, '')
        return 1.0 if image.id in cached.split(',') else 0.0
