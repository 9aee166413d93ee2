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

"""The programmable logic of one board, as the agent drives it.

Everything that differs between a Zynq board and the emulator lives behind
this interface: writing a partial bitstream through the configuration port,
the region's decoupler and reset, its register window and its AXI DMA path.
Board backends (Linux FPGA manager, legacy xdevcfg) implement it with sysfs
and UIO; the sim backend with the board emulator.
"""
import abc
import collections


class PortError(Exception):
    """The configuration port refused or failed a write."""


class RegisterError(Exception):
    """A register access got an error response (SLVERR/DECERR) or none."""


#: A region's AXI DMA as the C data mover maps it: its register window
#: and interrupt (/dev/uioN, or the emulated engine's files), its DMA
#: buffer (/dev/<u-dma-buf>), the buffer's bus address and size.
DmaRegion = collections.namedtuple('DmaRegion',
                                   'name regs irq buf phys size')


class BackendUnavailable(Exception):
    """The backend cannot run on this machine."""


class Backend(abc.ABC):
    """A backend plugin: made with the agent's configuration and the shell
    manifest of the board (``Backend(conf, manifest)``).
    """

    name = None

    @classmethod
    def detect(cls, conf):
        """Whether this machine has the hardware this backend drives
        (what ``[agent] backend = auto`` asks each installed backend).
        """
        return False

    @abc.abstractmethod
    def idcode(self):
        """IDCODE of the device the board carries."""

    @abc.abstractmethod
    def write_partial(self, region, data, info):
        """Write a partial bitstream through the configuration port.

        ``info``: what nova_fpga.bitstream.validate() said of ``data``
        (its sha256 included): the agent parsed the bytes once, and checked
        them against the region; the backend does not parse them again.

        :returns: seconds the port took (modelled, in the emulator).
        :raises PortError: the port refused or failed the write.
        """

    @abc.abstractmethod
    def set_decoupled(self, region, decoupled):
        """Isolate the region from the static shell (True) or connect it."""

    @abc.abstractmethod
    def is_decoupled(self, region):
        pass

    @abc.abstractmethod
    def module_reset(self, region):
        """Pulse the module's aresetn."""

    @abc.abstractmethod
    def read_register(self, region, offset):
        """Read a 32-bit module register. :raises RegisterError:"""

    @abc.abstractmethod
    def write_register(self, region, offset, value):
        """Write a 32-bit module register. :raises RegisterError:"""

    @abc.abstractmethod
    def dma_start(self, region):
        """The region's module takes its stream (checked reachable: a
        module that answers, coupled).  The AXI DMA itself is the data
        mover's (datapath.py), which couples the region after this.
        """

    @abc.abstractmethod
    def dma_stop(self, region):
        pass

    def datapath_regions(self):
        """[DmaRegion] the data mover drives (none: no data path)."""
        return []

    @abc.abstractmethod
    def loaded_module(self, region):
        """What the hardware holds in the region, for reconciliation:
        a module ID, container.NO_USER_ID for an opaque module, or None
        when the region holds no configured module.
        """
