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

"""The boards' ML2 mechanism driver on ML2's driver API: which ports and
segments it binds, what it tells nova, and what the switch hook hears.
Contexts are stand-ins with the attributes ML2's PortContext gives a
mechanism driver; the core plugin is registered in neutron-lib's plugin
directory, as ML2 registers itself.
"""
import types
import uuid

from neutron_lib.api.definitions import portbindings
from neutron_lib import constants as n_const
from neutron_lib.plugins import constants as plugin_constants
from neutron_lib.plugins import directory
from neutron_lib.plugins.ml2 import api
from oslo_config import cfg
import pytest

from nova_fpga.contract import network as net
from nova_fpga.ml2 import mech_driver

PORT = str(uuid.uuid4())


def segment(kind, physnet, vlan=None):
    return {api.ID: str(uuid.uuid4()), api.NETWORK_TYPE: kind,
            api.PHYSICAL_NETWORK: physnet, api.SEGMENTATION_ID: vlan}


class PortContext:
    """What bind_port and the postcommits read of ML2's PortContext."""

    def __init__(self, host, segments=(), vnic_type=portbindings.VNIC_NORMAL):
        self.host = host
        self.current = {'id': PORT, portbindings.VNIC_TYPE: vnic_type}
        self.segments_to_bind = list(segments)
        self.network = types.SimpleNamespace(current={'id': 'net'})
        self._plugin_context = RequestContext(admin=False)
        self.binding = None
        self.vif_type = self.original_vif_type = None
        self.original_host = None
        self.bottom_bound_segment = self.original_bottom_bound_segment = None

    def set_binding(self, segment_id, vif_type, vif_details, status=None):
        self.binding = (segment_id, vif_type, vif_details, status)


class RequestContext:
    """What the driver asks of neutron-lib's request context."""

    def __init__(self, admin):
        self.is_admin = admin

    def elevated(self):
        return RequestContext(admin=True)


class Switch:
    def __init__(self):
        self.calls = []

    def bind(self, board, vlan):
        self.calls.append(('bind', board, vlan))

    def unbind(self, board, vlan):
        self.calls.append(('unbind', board, vlan))


class CorePlugin:
    """The ports ML2 would list: other ports bound to boards."""

    def __init__(self):
        self.ports = []

    def get_ports(self, context, filters=None, fields=None):
        # a tenant would see neither others' ports nor binding fields
        assert context.is_admin
        hosts = filters[portbindings.HOST_ID]
        return [p for p in self.ports if p['host'] in hosts]


@pytest.fixture
def driver():
    cfg.CONF.set_override('boards', {'board0': 'fpga', 'board1': 'fpga'},
                          group='ml2_zynq')
    plugin = CorePlugin()
    directory.add_plugin(plugin_constants.CORE, plugin)
    try:
        found = mech_driver.ZynqBoardMechanismDriver()
        found.initialize()
        found.switch = Switch()
        found.plugin = plugin
        yield found
    finally:
        directory.add_plugin(plugin_constants.CORE, None)
        cfg.CONF.clear_override('boards', group='ml2_zynq')


def test_binds_the_vlan_segment_of_the_boards_physical_network(driver):
    chosen = segment(n_const.TYPE_VLAN, 'fpga', 231)
    context = PortContext('board0', [
        segment(n_const.TYPE_FLAT, 'fpga'),
        segment(n_const.TYPE_VLAN, 'elsewhere', 230),
        chosen])
    driver.bind_port(context)
    assert context.binding == (
        chosen[api.ID], net.VIF_TYPE,
        {portbindings.VIF_DETAILS_VLAN: '231',
         net.VIF_DETAILS_PHYSICAL_NETWORK: 'fpga'},
        n_const.PORT_STATUS_ACTIVE)


@pytest.mark.parametrize('context', [
    PortContext('compute1', [segment(n_const.TYPE_VLAN, 'fpga', 231)]),
    PortContext('board0', [segment(n_const.TYPE_VLAN, 'fpga', 231)],
                vnic_type=portbindings.VNIC_DIRECT),
    PortContext('board0', [segment(n_const.TYPE_FLAT, 'fpga'),
                           segment(n_const.TYPE_VLAN, 'other', 5)]),
    PortContext('board0', []),
], ids=['not a board', 'vnic direct', 'no vlan segment on fpga',
        'no segment'])
def test_leaves_other_ports_to_other_drivers(driver, context):
    driver.bind_port(context)
    assert context.binding is None


def bound(context, host, vlan, before=False):
    seg = segment(n_const.TYPE_VLAN, 'fpga', vlan)
    if before:
        context.original_vif_type, context.original_host = net.VIF_TYPE, host
        context.original_bottom_bound_segment = seg
    else:
        context.vif_type, context.host = net.VIF_TYPE, host
        context.bottom_bound_segment = seg
    return context


def test_the_switch_hears_of_a_boards_first_and_last_port_on_a_vlan(driver):
    driver.update_port_postcommit(bound(PortContext(None), 'board0', 231))
    assert driver.switch.calls == [('bind', 'board0', 231)]
    # moved to another board: the first loses the VLAN, the other gains it
    moved = bound(bound(PortContext(None), 'board0', 231, before=True),
                  'board1', 231)
    driver.update_port_postcommit(moved)
    assert driver.switch.calls[1:] == [('unbind', 'board0', 231),
                                       ('bind', 'board1', 231)]
    # another port of board1 on the VLAN keeps it there
    driver.plugin.ports.append({
        'id': str(uuid.uuid4()), 'host': 'board1',
        portbindings.VIF_TYPE: net.VIF_TYPE,
        portbindings.VIF_DETAILS: {portbindings.VIF_DETAILS_VLAN: '231'}})
    driver.delete_port_postcommit(bound(PortContext(None), 'board1', 231))
    assert len(driver.switch.calls) == 3
    driver.plugin.ports.clear()
    driver.delete_port_postcommit(bound(PortContext(None), 'board1', 231))
    assert driver.switch.calls[3:] == [('unbind', 'board1', 231)]
    # an update that changes nothing of the binding says nothing
    same = bound(bound(PortContext(None), 'board0', 232, before=True),
                 'board0', 232)
    same.original_bottom_bound_segment = same.bottom_bound_segment
    driver.update_port_postcommit(same)
    assert len(driver.switch.calls) == 4


def test_a_failing_switch_driver_does_not_fail_the_port(driver):
    def broken(board, vlan):
        raise RuntimeError('switch unreachable')
    driver.switch.bind = broken
    driver.update_port_postcommit(bound(PortContext(None), 'board0', 231))
