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

"""The device-tree names contract: names the kernel and the agent's
privileged helper accept, distinct per region and per device."""
import re

from nova_fpga.contract import devicetree as dt
from nova_fpga.contract import shell as mf
from nova_fpga_agent.privsep import fpga

#: a device-tree node name (DTSpec 2.2.1), which generic-uio makes the UIO
#: name and u-dma-buf the /dev node
NODE_NAME = re.compile(r'^[A-Za-z0-9,._+-]{1,31}$')
REFERENCE = mf.load(mf.REFERENCE)


def test_names_are_node_names_and_distinct():
    names = []
    for region in REFERENCE.regions:
        for make in (dt.region_node, dt.decoupler_bridge, dt.uio_module,
                     dt.uio_decoupler, dt.uio_dma, dt.dma_buffer):
            name = make(region.name)
            assert NODE_NAME.match(name), name
            names.append(name)
        assert fpga._OVERLAY_NAME.match(dt.overlay(region.name))
        assert dt.region_path(region.name).startswith(dt.BASE_REGION_PATH)
    assert len(set(names)) == len(names)


def test_firmware_names_sit_in_the_agents_subdirectory():
    digest = 'ab' * 32
    assert dt.firmware(digest) == 'nova-fpga/%s.bin' % digest
    assert dt.overlay_blob('rp0', digest).startswith(dt.FIRMWARE_SUBDIR + '/')
    assert dt.overlay_blob('rp0', digest) != dt.overlay_blob('rp1', digest)
