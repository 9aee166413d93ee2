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

"""Network settings: a region's VLANs and its module's tenant settings.

A region's VLANs (its ports' or its manifest's) are part of its persisted
state, and the data plane is programmed from that state at every save: a
region steers frames only while it holds a module, a VLAN enters at most
one region, and an agent restarting programs what its state file says.

So are the tenant's settings of its module's registers (the catalogue's
tenant settings, checked against the module the bitstream declares): they
are written, and read back, after every reset of the module (load, power
on, reset, the end of the watchdog's hold) and before its data path
starts, so no frame passes the module with its reset values.  Before them
goes what the module's catalogue entry says to do after its reset
([after_reset]: the vTC's application table, which a reset empties).
"""
import threading
import time

from oslo_log import log as logging

from nova_fpga.bitstream import container
from nova_fpga.contract import agent_api as api
from nova_fpga.contract import network as net
from nova_fpga.contract import states
from nova_fpga_agent.backends import base
from nova_fpga_agent import datapath as dp

LOG = logging.getLogger(__name__)

#: more settings than any module has registers are refused unread
MAX_SETTINGS = 256
#: seconds a module may take to be ready after its reset (the vTC clears its
#: tables in 1,024 cycles: microseconds)
READY_TIMEOUT = 1.0


def check_network(network):
    """A load's RegionNetwork argument, checked (None: none).

    Only in the form the contract writes it (RegionNetwork.to_dict):
    from_dict alone would take a VLAN '100' or 100.7 as 100.
    """
    if network is None:
        return None
    try:
        checked = net.RegionNetwork.from_dict(network)
    except ValueError as exc:
        raise api.InvalidRequest('network: %s' % exc)
    if checked.to_dict() != network or any(
            type(p['vlan']) is not int
            for p in network.values() if p is not None):
        raise api.InvalidRequest(
            'network %r is not in its RPC form %r'
            % (network, checked.to_dict()))
    if checked.ingress is None:
        # a port gone is a state a region reaches, not one it loads in
        raise api.InvalidRequest('network %r has no ingress port: '
                                 'frames could not enter the region'
                                 % (network,))
    return checked


def check_settings(settings):
    """A load's settings argument in its RPC form ({name: int}), or
    None; whether the module takes them is checked once the bitstream
    says which module it is (steps.Load.validate).
    """
    if settings is None or settings == {}:
        return None
    if (not isinstance(settings, dict) or len(settings) > MAX_SETTINGS
            or not all(isinstance(k, str) and type(v) is int
                       for k, v in settings.items())):
        raise api.InvalidRequest('settings must map at most %d '
                                 'property names to integers'
                                 % MAX_SETTINGS)
    return settings


class Network:
    """The regions' VLANs, from their states, and the data plane steered
    by them.
    """

    def __init__(self, manifest, records, board_name, dataplane=None):
        self.manifest = manifest
        self.records = records
        self.board_name = board_name
        #: the board's datapath.DataPath (None: no data interface)
        self.dataplane = dataplane
        #: held from a load's VLAN check until its region is LOADING
        self.lock = threading.Lock()

    def vlans(self, name):
        """(ingress VLAN, egress VLAN) of a region by its state: its
        ports' (None where a port is gone), or its manifest's when it has
        no ports.
        """
        rs = self.records.states[name]
        if rs.network is None:
            vlan = self.manifest.region(name).vlan
            return vlan, vlan
        network = net.RegionNetwork.from_dict(rs.network)
        return tuple(p.vlan if p else None
                     for p in (network.ingress, network.egress))

    def routes(self):
        """The data plane's routes: the regions holding a module, by the
        VLAN their frames enter by.
        """
        routes = {}
        for spec in self.manifest.regions:
            if self.records.states[spec.name].state \
                    not in states.HOLDING_MODULE:
                continue
            ingress, egress = self.vlans(spec.name)
            if ingress is None:
                continue
            if ingress in routes:
                LOG.error('regions %s and %s both have ingress VLAN %d: '
                          'only %s is steered', routes[ingress].region,
                          spec.name, ingress, routes[ingress].region)
                continue
            routes[ingress] = dp.Route(spec.name, egress)
        return routes

    def program(self):
        """Steer frames as the states say (after every save)."""
        if self.dataplane is not None:
            self.dataplane.program(self.routes())

    def reset(self, name):
        """The region's data-plane counters start again (a load)."""
        if self.dataplane is not None:
            self.dataplane.reset(name)

    def check_vlan_free(self, name, network):
        """Refuse a load whose ingress VLAN enters another region (call
        with ``lock`` held, until the region is LOADING).
        """
        vlan = (network.ingress.vlan if network is not None
                else self.manifest.region(name).vlan)
        for other, rs in self.records.states.items():
            if other != name and rs.state in (
                    (states.LOADING,) + states.HOLDING_MODULE) \
                    and self.vlans(other)[0] == vlan:
                raise api.RegionBusy(
                    'VLAN %d already enters region %s of board %s'
                    % (vlan, other, self.board_name))


def writes(module_catalogue, rs):
    """[(Setting, value)] of the tenant's settings of the region's
    module (checked again: a state file is not trusted either).
    """
    module_id = (None if rs.module_id == container.NO_USER_ID
                 else rs.module_id)
    return module_catalogue.register_writes(module_id, rs.settings or {})


def after_reset(backend, name, module):
    """What the module's catalogue entry (a catalogue Module; None: one the
    catalogue does not know) says to do after its reset: wait until it is
    ready, write its words (the vTC's application table), read the last
    one back.

    :raises base.RegisterError: not ready in READY_TIMEOUT seconds, or the
        last word did not read back.
    """
    steps = module.after_reset if module is not None else None
    if steps is None:
        return
    started = time.monotonic()
    while backend.read_register(name, steps.wait_offset) & steps.wait_mask:
        if time.monotonic() - started > READY_TIMEOUT:
            raise base.RegisterError(
                'module %s: register 0x%X still has 0x%X set %g s after '
                'its reset' % (module.name, steps.wait_offset,
                               steps.wait_mask, READY_TIMEOUT))
    for offset, value in steps.writes:
        backend.write_register(name, offset, value)
    offset, value = steps.writes[-1]
    found = backend.read_register(name, offset)
    if found != value:
        raise base.RegisterError(
            'module %s: register 0x%X reads 0x%X after 0x%X was written (%s)'
            % (module.name, offset, found, value, steps.what))
    LOG.info('region %s: module %s reset; wrote %s in %.3f s', name,
             module.name, steps.what, time.monotonic() - started)


def write_settings(backend, name, register_writes):
    """Write each setting and read it back.

    :raises base.RegisterError: a setting did not read back.
    """
    for setting, value in register_writes:
        backend.write_register(name, setting.offset, value)
        found = backend.read_register(name, setting.offset)
        if found & setting.mask != value:
            raise base.RegisterError(
                'setting %s: register 0x%X reads 0x%X after 0x%X was '
                'written' % (setting.name, setting.offset, found, value))
