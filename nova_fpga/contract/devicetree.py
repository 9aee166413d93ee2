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

"""The names a board's device tree gives a shell's regions.

Written once: the shell's device-tree overlay (what the board boots with)
names its nodes from here, the board backends find the kernel's devices by
these names (UIO ``name``, u-dma-buf device, configfs overlay directory,
firmware files), and the fake kernel of the emulator makes them.  A node
named here becomes the UIO device of the same name (``generic-uio`` takes
the node name), u-dma-buf's ``device-name`` is its /dev node.

Every function takes a region name of the shell manifest (``rp0``).
"""

#: prefix of every name below: nothing of another driver collides
PREFIX = 'nova-fpga'

# -- compatible strings ------------------------------------------------------

#: the fpga-region binding (Documentation/devicetree/bindings/fpga)
COMPATIBLE_REGION = 'fpga-region'
#: the Xilinx DFX (PR) decoupler bridge driver (drivers/fpga/xilinx-pr-
#: decoupler.c): off = decoupled while the kernel programs the region
COMPATIBLE_DECOUPLER = 'xlnx,pr-decoupler-1.00'
#: uio_pdrv_genirq bound with ``of_id=generic-uio`` (bootargs or modprobe)
COMPATIBLE_UIO = 'generic-uio'
#: u-dma-buf (github.com/ikwzm/udmabuf): a DMA-able buffer userspace maps
COMPATIBLE_UDMABUF = 'ikwzm,u-dma-buf'
#: the Zynq-7000 configuration port's FPGA manager (zynq-fpga)
COMPATIBLE_FPGA_MANAGER = 'xlnx,zynq-devcfg-1.0'

#: path of the shell's base region: the full bitstream's region, parent of
#: the reconfigurable regions (the layout of Xilinx's DFX examples)
BASE_REGION_PATH = '/fpga-full'

# -- registers the agent drives through UIO ----------------------------------

#: the decoupler is an AXI GPIO (hdl/vivado/shell_bd.tcl): channel 1 data
#: bit 0 drives decouple (1 = decoupled, its power-up value); the pr-
#: decoupler bridge driver writes the same register at the same offset
DECOUPLER_CONTROL = 0x0
#: channel 2 data bit 0 reads the decoupler's decouple_status
DECOUPLER_STATUS = 0x8
DECOUPLE = 0x1

#: descriptors a direction the data mover keeps for a region
#: (agent/datamover/src/sgdma.h: a ring is a power of two of them)
DMA_RING_DESCRIPTORS = 128
#: bytes of one scatter-gather descriptor (PG021: 16 words, 64-byte aligned)
DMA_DESCRIPTOR_BYTES = 64
#: bytes of one frame slot (sgdma.h SG_DEFAULT_SLOT: a 9,018-byte frame fits)
DMA_SLOT_BYTES = 9216
#: bytes of each region's u-dma-buf: both rings' descriptors and frame slots
#: (sgdma.h's layout; 2 x 128 x (64 + 9,216) = 2,375,680 B), rounded up to a
#: power of two.  The mover sizes its rings from the buffer it finds: a
#: smaller one gives fewer frames in flight (64 KiB gave 2 descriptors)
DMA_BUFFER_BYTES = 0x400000


def region_node(region):
    """Node name of the region's fpga-region (under BASE_REGION_PATH)."""
    return '%s-region-%s' % (PREFIX, region)


def region_path(region):
    """Full path of the region's fpga-region node: an overlay's target."""
    return '%s/%s' % (BASE_REGION_PATH, region_node(region))


def decoupler_bridge(region):
    """Node name of the region's pr-decoupler fpga-bridge (the region's
    ``fpga-bridges`` phandle points at it).
    """
    return '%s-decoupler-%s' % (PREFIX, region)


def uio_module(region):
    """UIO name of the region's module register window (manifest
    ``module``, ``window`` bytes).
    """
    return '%s-%s-module' % (PREFIX, region)


def uio_decoupler(region):
    """UIO name of the decoupler's AXI GPIO (manifest ``decoupler``): the
    agent decouples outside a load (unload, power off, the watchdog)
    through it.
    """
    return '%s-%s-decoupler' % (PREFIX, region)


def uio_dma(region):
    """UIO name of the region's AXI DMA register block (manifest ``dma``)."""
    return '%s-%s-dma' % (PREFIX, region)


def dma_buffer(region):
    """u-dma-buf ``device-name``: /dev/<it> and /sys/class/u-dma-buf/<it>."""
    return '%s-%s-buf' % (PREFIX, region)


def overlay(region):
    """Directory of a load's overlay under configfs
    device-tree/overlays/.
    """
    return '%s-%s' % (PREFIX, region)


#: subdirectory of the firmware path the agent writes into
FIRMWARE_SUBDIR = PREFIX


def firmware(sha256):
    """The partial's byte-swapped .bin, relative to the firmware path
    (what ``firmware`` and an overlay's ``firmware-name`` name).
    """
    return '%s/%s.bin' % (FIRMWARE_SUBDIR, sha256)


def overlay_blob(region, sha256):
    """A load's overlay (.dtbo), relative to the firmware path (what the
    overlay's ``path`` names).
    """
    return '%s/%s-%s.dtbo' % (FIRMWARE_SUBDIR, sha256, region)
