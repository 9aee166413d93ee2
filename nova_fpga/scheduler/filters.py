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

"""ZynqFilter: bitstreams only on boards, boards only for bitstreams.

Enable it in ``[filter_scheduler]``: its dotted path
``nova_fpga.scheduler.filters.ZynqFilter`` in ``available_filters`` (beside
``nova.scheduler.filters.all_filters``), its class name ``ZynqFilter`` in
``enabled_filters``.  nova drops image properties it does not know from the
request spec, so the filter sees a bitstream image by the
``trait:CUSTOM_FPGA_…=required`` properties Glance's import derived (kept as
``traits_required``) and a region request by the flavor's
``resources:CUSTOM_FPGA_REGION``; it sees a board by the hypervisor type and
stats the Zynq driver reports for its nodes: its agent's health, whether
the board is fit (its watchdog holds the regions of a board too hot), and
its shell (placement's traits keep a bitstream for another shell off the
board already; the filter checks again and logs why).
"""
from nova.scheduler import filters
from oslo_log import log as logging

from nova_fpga.contract import placement
from nova_fpga.contract import signature
from nova_fpga.contract import traits

LOG = logging.getLogger(__name__)


def image_fpga_traits(spec_obj):
    image = spec_obj.image
    if image is None or 'properties' not in image:
        return []
    required = image.properties.get('traits_required', []) or []
    return [t for t in required if t.startswith(traits.TRAIT_PREFIX)]


def requests_region(spec_obj):
    flavor = spec_obj.flavor
    amount = (flavor.extra_specs or {}).get(placement.REGION_EXTRA_SPEC,
                                            '0')
    try:
        return int(amount) > 0
    except ValueError:
        return False


def image_signed(spec_obj):
    """Whether the request's image declares a signature (Glance's
    img_signature properties, as nova's image metadata carries them).
    """
    image = spec_obj.image
    if image is None or 'properties' not in image:
        return False
    props = image.properties
    return all(props.get(name) for name in signature.PROPERTIES)


def image_id(spec_obj):
    image = spec_obj.image
    return image.id if image is not None and 'id' in image else None


class ZynqFilter(filters.BaseHostFilter):
    """Keeps bitstreams and boards together and unhealthy boards out."""

    # the answer depends on the request and the host, not on earlier hosts
    run_filter_once_per_request = False

    def host_passes(self, host_state, spec_obj):
        is_board = host_state.hypervisor_type == placement.HYPERVISOR_TYPE
        bitstream = image_fpga_traits(spec_obj)
        region = requests_region(spec_obj)
        if not is_board:
            if bitstream or region:
                LOG.debug('%s is not a Zynq board: no place for image %s '
                          '(FPGA traits %s, region requested: %s)',
                          host_state, image_id(spec_obj), bitstream, region)
                return False
            return True
        if not region:
            LOG.info('%s is a Zynq board: the flavor %s does not request a '
                     'region (%s=1)', host_state, spec_obj.flavor.name,
                     placement.REGION_EXTRA_SPEC)
            return False
        if not bitstream:
            LOG.info('image %s has no FPGA traits: an ordinary image, or a '
                     'bitstream uploaded without the import flow (no '
                     'derived fpga_* properties); it cannot go to board %s',
                     image_id(spec_obj), host_state.nodename)
            return False
        stats = host_state.stats or {}
        if stats.get(placement.STAT_AGENT) != placement.AGENT_UP:
            LOG.info('board %s: its agent is not answering',
                     host_state.nodename)
            return False
        if stats.get(placement.STAT_UNFIT):
            LOG.info('board %s is unfit: %s', host_state.nodename,
                     stats[placement.STAT_UNFIT])
            return False
        if stats.get(placement.STAT_SIGNED_ONLY) == placement.SIGNED_ONLY \
                and not image_signed(spec_obj):
            LOG.info('board %s loads only signed bitstreams and image %s has '
                     'no signature (img_signature properties)',
                     host_state.nodename, image_id(spec_obj))
            return False
        wanted = [t for t in bitstream
                  if t.startswith(traits.TRAIT_PREFIX + 'SHELL_')]
        board_shell = traits.shell_trait(stats[placement.STAT_SHELL_ID])
        if wanted and board_shell not in wanted:
            # placement's traits already keep it out; say why if not
            LOG.info('image %s is built for another shell (%s) than board '
                     '%s runs (%s)', image_id(spec_obj), ', '.join(wanted),
                     host_state.nodename, stats[placement.STAT_SHELL_ID])
            return False
        return True
