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

"""The switch driver of the demo cloud's emulated top-of-rack switch
(``[ml2_zynq] switch_driver = demo_tor``).

The boards' mechanism driver calls it in neutron-server's processes when a
board gains its first port on a VLAN and loses its last
(nova_fpga.ml2.switch); it adds the VLAN to, or removes it from, the
allowed VLANs (tagged) of the switch port facing the board, as a vendor's
driver would on a real switch port's allowed-VLAN list.  The switch
(localcloud.tor) is another process in its own namespace: the driver
reaches it through the switch's configuration directory (its control
interface), where each board is cabled to the port named after it, and
returns once the switch runs the change (a switch that does not within
10 s is an error, which the mechanism driver logs).  Lives with the demo
cloud, not in the product: it configures an emulated switch.
"""
from oslo_config import cfg
from oslo_log import log as logging

from nova_fpga.ml2 import switch
from nova_fpga import optgroups
from nova_fpga_devtools.localcloud import tor

LOG = logging.getLogger(__name__)

demo_tor_group = cfg.OptGroup(
    'demo_tor', title='The demo cloud\'s emulated top-of-rack switch',
    help='Where the switch driver demo_tor reaches the emulated switch '
         'the demo cloud\'s boards are cabled to.')

DEMO_TOR_OPTS = [
    cfg.StrOpt('directory',
               help='The emulated switch\'s configuration directory (its '
                    'ports.json, status.json and lock; '
                    'state_dir/tor of a demo cloud). Each board is cabled '
                    'to the switch port named after the board (its nova '
                    'node name).'),
]


def register_opts(conf):
    optgroups.register(conf, demo_tor_group, DEMO_TOR_OPTS)


def list_opts():
    """For oslo-config-generator (entry point oslo.config.opts)."""
    return [(demo_tor_group, DEMO_TOR_OPTS)]


class DemoTorSwitch(switch.SwitchDriver):
    """Allows and removes boards' VLANs on the emulated switch's ports."""

    def __init__(self, conf=cfg.CONF):
        register_opts(conf)
        self.conf = conf.demo_tor
        if not self.conf.directory:
            raise ValueError('[demo_tor] directory is not set')
        self.tor = tor.Tor('', self.conf.directory)

    def bind(self, board, vlan):
        self.tor.allow_vlan(board, vlan)
        LOG.info('switch port %s: VLAN %d allowed (tagged), switch at '
                 'configuration generation %d', board, vlan,
                 self.tor.status().get('generation', -1))

    def unbind(self, board, vlan):
        self.tor.remove_vlan(board, vlan)
        LOG.info('switch port %s: VLAN %d removed, switch at '
                 'configuration generation %d', board, vlan,
                 self.tor.status().get('generation', -1))
