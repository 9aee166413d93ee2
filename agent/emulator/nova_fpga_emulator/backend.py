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

"""The sim backends: the agent's hardware layer over the board emulator.

Plugins of the agent (entry points ``nova_fpga_agent.backends``: ``sim``,
the modules' Verilog; ``behavioural``, their models, for boards by the
hundred); never auto-detected: a board must not think it is an emulator.
"""
from oslo_config import cfg

from nova_fpga import catalogue
from nova_fpga_agent.backends import base
from nova_fpga_emulator import behaviour
from nova_fpga_emulator import board
from nova_fpga_emulator import conf as emulator_conf
from nova_fpga_emulator import engine


class SimBackend(base.Backend):
    name = 'sim'
    board_class = board.EmulatedBoard

    def __init__(self, conf, manifest):
        emulator_conf.register_opts(conf)
        self.engines = None
        try:
            interface = conf.dataplane.interface
        except cfg.NoSuchOptError:
            interface = None
        if interface and self.board_class is board.EmulatedBoard:
            # the data mover's path: each region's DMA and module is an
            # emulated engine that outlives the agent (engine.py)
            self.engines = {
                spec.name: engine.Engine(conf.agent.state_dir, index,
                                         spec.name)
                for index, spec in enumerate(manifest.regions)}
            for each in self.engines.values():
                each.ensure()
        self.board = self.board_class(
            manifest, conf.emulator.part, conf.agent.state_dir,
            pcap_rate=conf.emulator.pcap_rate,
            crash_at=conf.emulator.crash_at,
            module_catalogue=catalogue.load(
                conf.agent.module_catalogue_dirs),
            hdl_dir=conf.emulator.hdl_dir, **(
                {'engines': self.engines} if self.engines else {}))

    def datapath_regions(self):
        if not self.engines:
            return super().datapath_regions()
        return [base.DmaRegion(e.region, e.regs, e.irq, e.buf, e.phys,
                               e.size) for e in self.engines.values()]

    def idcode(self):
        return self.board.device.idcode

    def write_partial(self, region, data, info):
        try:
            return self.board.pcap_write(data, info=info)
        except board.PcapError as exc:
            raise base.PortError(str(exc))

    def set_decoupled(self, region, decoupled):
        self.board.set_decoupled(region, decoupled)

    def is_decoupled(self, region):
        return self.board.decoupled(region)

    def module_reset(self, region):
        self.board.reset(region)

    def read_register(self, region, offset):
        try:
            return self.board.axil_read(region, offset)
        except board.AxiError as exc:
            raise base.RegisterError(str(exc))

    def write_register(self, region, offset, value):
        try:
            self.board.axil_write(region, offset, value)
        except board.AxiError as exc:
            raise base.RegisterError(str(exc))

    def dma_start(self, region):
        try:
            self.board.dma_start(region)
        except board.AxiError as exc:
            raise base.RegisterError(str(exc))

    def dma_stop(self, region):
        self.board.dma_stop(region)

    def transfer(self, region, frame):
        """One frame through the in-process module (emulator tests)."""
        try:
            return self.board.dma_transfer(region, frame)
        except board.AxiError as exc:
            raise base.RegisterError(str(exc))

    def loaded_module(self, region):
        return self.board.module_in(region)


class BehaviouralBackend(SimBackend):
    """The emulator with behavioural modules (behaviour.py): no Verilog,
    no [emulator] hdl_dir.
    """

    name = 'behavioural'
    board_class = behaviour.BehaviouralBoard
