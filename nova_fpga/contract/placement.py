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

"""How boards appear to nova and placement: resource classes, the
hypervisor type and the compute-node stats the scheduler plugins read.

Each region is a nested provider with one ``CUSTOM_FPGA_REGION`` (a class of
its own, so it lives beside Cyborg's whole-device ``FPGA``); each board's
root provider offers one ``CUSTOM_FPGA_BOARD_SLOT`` per region, because
nova keeps only allocation candidates that take something from the compute
node's own provider.  nova drops image properties it does not know from the
request spec, so what the scheduler must know of a board travels as the
node's stats.
"""
REGION_RESOURCE_CLASS = 'CUSTOM_FPGA_REGION'
BOARD_SLOT_RESOURCE_CLASS = 'CUSTOM_FPGA_BOARD_SLOT'

#: the name keystone's unified limits (nova's UnifiedLimitsDriver) give the
#: regions: a limit on it is a limit of region servers per project
REGION_LIMIT = 'class:%s' % REGION_RESOURCE_CLASS

#: a flavor's extra spec asking placement for an amount of a resource class
RESOURCES_EXTRA_SPEC = 'resources:%s'
REGION_EXTRA_SPEC = RESOURCES_EXTRA_SPEC % REGION_RESOURCE_CLASS
BOARD_SLOT_EXTRA_SPEC = RESOURCES_EXTRA_SPEC % BOARD_SLOT_RESOURCE_CLASS


def region_provider_name(board, region):
    """The name of a region's provider under its board's."""
    return '%s:%s' % (board, region)


#: the hypervisor type of every board node (what ZynqFilter recognises)
HYPERVISOR_TYPE = 'zynq'

# Node stats (compute node ``stats``), all strings as nova stores them.
#: the board's name
STAT_BOARD = 'zynq_board'
#: AGENT_UP or AGENT_DOWN
STAT_AGENT = 'zynq_agent'
AGENT_UP = 'up'
AGENT_DOWN = 'down'
#: why the board's agent takes no new server ('' when it does: its
#: watchdog's hold, or a state file it cannot write): ZynqFilter sends new
#: servers elsewhere
STAT_UNFIT = 'zynq_unfit'
#: the shell ID the board runs
STAT_SHELL_ID = 'zynq_shell_id'
#: regions placement may give out now
STAT_FREE_REGIONS = 'zynq_free_regions'
#: comma-separated image IDs whose bitstreams the board caches
STAT_CACHED_IMAGES = 'zynq_cached_images'
#: SIGNED_ONLY when the board loads only signed bitstreams ([agent]
#: require_signed_bitstreams), '' otherwise: ZynqFilter keeps unsigned
#: images off it
STAT_SIGNED_ONLY = 'zynq_signed_only'
SIGNED_ONLY = 'signed-only'
