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

"""Options of the boards' mechanism driver: the [ml2_zynq] group of
neutron-server's ML2 configuration, registered for oslo-config-generator
through the ``oslo.config.opts`` entry point ``nova_fpga.ml2``.
"""
from oslo_config import cfg

from nova_fpga import optgroups

ml2_zynq_group = cfg.OptGroup(
    'ml2_zynq', title='Zynq FPGA boards in ML2',
    help='Which binding hosts are Zynq boards, the physical network each '
         'board\'s data interface is cabled to, and the switch driver that '
         'configures the switch port facing a board.')

ML2_ZYNQ_OPTS = [
    cfg.DictOpt('boards', default={},
                help='Boards as "<board>:<physical network>" pairs. A '
                     'board is the node name nova-compute reports for it '
                     '([zynq] boards of nova-compute), which nova sets as '
                     'the binding host of a region server\'s ports; the '
                     'physical network is the one its data interface is '
                     'cabled to, whose VLAN segments its ports are bound '
                     'on (give it VLAN ranges in [ml2_type_vlan] '
                     'network_vlan_ranges, apart from the VLANs of the '
                     'boards\' shell manifest). Ports of other hosts are '
                     'left to the other mechanism drivers.'),
    cfg.StrOpt('switch_driver', default='noop',
               help='Switch driver (entry point in the '
                    '"nova_fpga.ml2.switch_drivers" group) told of each '
                    'VLAN a board gains or loses, to configure the '
                    'top-of-rack switch port facing the board. "noop" '
                    'configures nothing and logs what it is told: the '
                    'switch port then carries the boards\' VLAN ranges by '
                    'static configuration.'),
]


def register_opts(conf):
    optgroups.register(conf, ml2_zynq_group, ML2_ZYNQ_OPTS)


def list_opts():
    """For oslo-config-generator (entry point oslo.config.opts)."""
    return [(ml2_zynq_group, ML2_ZYNQ_OPTS)]
