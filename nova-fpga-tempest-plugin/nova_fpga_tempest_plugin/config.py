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

"""The plugin's options: ``[service_available] nova_fpga`` and the
``[fpga]`` group of tempest.conf.

This module imports oslo.config only (no tempest), so the options can be
listed and registered without a tempest.conf.
"""
from oslo_config import cfg

service_available_group = cfg.OptGroup(
    name='service_available',
    title='Available OpenStack Services')

ServiceAvailableGroup = [
    cfg.BoolOpt('nova_fpga',
                default=True,
                help='Whether the cloud runs nova-fpga (Zynq boards as '
                     'compute hosts, the fpga.region flavor and bitstream '
                     'images). False skips every nova-fpga test.'),
]

fpga_group = cfg.OptGroup(
    name='fpga',
    title='nova-fpga (FPGA region servers) test options',
    help='What the nova-fpga tests boot and expect: the flavor asking '
         'placement for a region, the bitstream image, how long a region '
         'load may take, and the optional tests\' settings.')

FpgaGroup = [
    cfg.StrOpt('flavor',
               default='fpga.region',
               help='Name or ID of the flavor that asks placement for one '
                    'FPGA region (nova-fpga-manage flavor create makes '
                    'fpga.region).'),
    cfg.StrOpt('image',
               default='vtc-bitstream',
               help='Name or ID of a bitstream image, imported through '
                    'Glance\'s import flow for the shell the boards run '
                    '(the DevStack plugin imports vtc-bitstream and '
                    'loopback-bitstream). A name must match exactly one '
                    'image.'),
    cfg.IntOpt('build_timeout',
               default=600,
               min=1,
               help='Seconds a region server may take to become ACTIVE or '
                    'ERROR (download, load into the region, module ID '
                    'check; an emulated board simulates the module\'s '
                    'Verilog and is slower than a real one). Also bounds '
                    'the wait for a refused import and for an allocation '
                    'to go.'),
    cfg.StrOpt('region_resource_class',
               default='CUSTOM_FPGA_REGION',
               help='The placement resource class of one reconfigurable '
                    'region: a region server\'s allocation holds exactly '
                    'one unit of it.'),
    cfg.StrOpt('vlan_physical_network',
               default='',
               help='The Neutron physical network the boards\' data ports '
                    'are cabled to ([ml2_zynq] boards, [ml2_type_vlan] '
                    'network_vlan_ranges). Empty: the test of a vTC on two '
                    'VLAN networks is skipped.'),
    cfg.IntOpt('max_regions_test',
               default=0,
               min=0,
               help='The test that fills every free region the image fits '
                    'and expects one server more to find no valid host '
                    'runs only when this is above 0 and at most this many '
                    'such regions are free (it boots that many servers, '
                    'one at a time for the cloud, and runs serially in '
                    'tempest). 0: skipped.'),
]

#: (group, its options), as the plugin registers and lists them
GROUPS = [
    (service_available_group, ServiceAvailableGroup),
    (fpga_group, FpgaGroup),
]
