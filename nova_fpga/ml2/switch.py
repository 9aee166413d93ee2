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

"""The hook a top-of-rack switch driver plugs into.

The mechanism driver tells the switch driver when a board gains a VLAN (the
first port bound to the board on that VLAN) and when it loses one (the last
such port unbound or deleted), so the switch port facing the board can
carry exactly the VLANs its regions were given.  Switch drivers are
stevedore plugins in the ``nova_fpga.ml2.switch_drivers`` group, chosen by
``[ml2_zynq] switch_driver``; they are called after Neutron's transaction
(postcommit), may block, and should not raise: a failure is logged.
"""
import abc

from oslo_log import log as logging
import stevedore

LOG = logging.getLogger(__name__)

NAMESPACE = 'nova_fpga.ml2.switch_drivers'


class SwitchDriver(metaclass=abc.ABCMeta):
    """Configures the switch port facing a board."""

    @abc.abstractmethod
    def bind(self, board, vlan):
        """Let VLAN vlan through to the board's data interface (tagged)."""

    @abc.abstractmethod
    def unbind(self, board, vlan):
        """Stop letting VLAN vlan through to the board."""


class NoopSwitch(SwitchDriver):
    """No switch to configure: the switch port carries the boards' VLAN
    ranges by static configuration.  Logs what a switch driver would do.
    """

    def bind(self, board, vlan):
        LOG.info('board %s gains VLAN %d (switch driver noop: no switch '
                 'port configured)', board, vlan)

    def unbind(self, board, vlan):
        LOG.info('board %s loses VLAN %d (switch driver noop: no switch '
                 'port configured)', board, vlan)


def load(name):
    """The switch driver registered under name."""
    return stevedore.DriverManager(NAMESPACE, name,
                                   invoke_on_load=True).driver
