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

"""The flavor and image conventions of an FPGA cloud, in one place.

A region server's flavor asks placement for one region and one board slot
and for no VCPU, memory or disk (a region has none): nova's API insists on
vcpus, ram and disk of at least 1, and the ``resources:`` overrides set the
amounts placement sees to 0.  The board slot is on the board's root
provider (see nova_fpga/virt/providers.py): nova's scheduler keeps only
allocation candidates that take something from the compute node's own
provider.

A bitstream image is raw/bare data uploaded through Glance's import flow
(only the import flow runs the inspection plugin that derives its
``fpga_*`` properties and placement traits), with ``fpga_shell_id`` naming
the static shell it was built against.
"""
from nova_fpga.contract import placement
from nova_fpga.contract import traits

FLAVOR_NAME = 'fpga.region'
#: nova's API minimums; the extra specs below zero them for placement
FLAVOR_VCPUS, FLAVOR_RAM_MB, FLAVOR_DISK_GB = 1, 1, 1
FLAVOR_EXTRA_SPECS = {
    placement.RESOURCES_EXTRA_SPEC % 'VCPU': '0',
    placement.RESOURCES_EXTRA_SPEC % 'MEMORY_MB': '0',
    placement.RESOURCES_EXTRA_SPEC % 'DISK_GB': '0',
    placement.REGION_EXTRA_SPEC: '1',
    placement.BOARD_SLOT_EXTRA_SPEC: '1',
}

IMAGE_DISK_FORMAT = 'raw'
IMAGE_CONTAINER_FORMAT = 'bare'
#: the one property an uploader sets; Glance derives the others
IMAGE_SHELL_PROPERTY = traits.SHELL_ID_PROPERTY
