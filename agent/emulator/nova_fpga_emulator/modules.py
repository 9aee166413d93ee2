"""Registry of the reconfigurable modules the board emulator can run.

A partial bitstream declares its module in its UserID; the emulator looks that
ID up here to find the HDL to run.  This is the one place a module ID is
written down: the IDs reach the Verilog as the MODULE_ID parameter at build
time (cocotb, the Verilator bridge and yosys all take them from here).
"""
import dataclasses
import pathlib

from nova_fpga.bitstream import container

#: UserID value meaning "no module declared" (the bitstream library's).
UNDECLARED_MODULE_ID = container.NO_USER_ID

#: The loopback "dummy VNFC" ("NF" + 0x0001).
LOOPBACK_MODULE_ID = 0x4E460001
#: The virtual traffic classifier (hdl/rtl/region_vtc.v).
VTC_MODULE_ID = 0x4E460002


class Registers:
    """Byte offsets of the registers every module has (hdl/README.md)."""

    MODULE_ID = 0x00
    VERSION = 0x04
    CONTROL = 0x08
    STATUS = 0x0C
    FRAMES_LO = 0x10
    FRAMES_HI = 0x14
    BYTES_LO = 0x18
    BYTES_HI = 0x1C

    #: CONTROL bit: write 1 to zero the frame and byte counters.
    CONTROL_CLEAR_COUNTERS = 1 << 0
    #: STATUS bits: a frame has started on the input / output and not yet ended.
    STATUS_IN_FRAME = 1 << 0
    STATUS_OUT_FRAME = 1 << 1


class VtcRegisters:
    """Byte offsets of the vTC's own registers (hdl/README.md, vTC section)."""

    FLOW_TABLE_DEPTH = 0x20
    INSPECT_PACKETS = 0x24
    FLOW_TIMEOUT = 0x28
    TIMESTAMP = 0x2C
    #: POLICY of class c (1..10) at POLICY + 4 * c: bit 7 enables marking, bits 5:0 the DSCP
    POLICY = 0x40
    #: 64-bit per-class counters (class 0 = unknown): LO at base + 8 * c, HI at base + 8 * c + 4
    CLASS_PACKETS = 0x80
    CLASS_BYTES = 0x100
    FLOWS_SEEN = 0x180
    FLOWS_CLASSIFIED = 0x184
    FLOW_OCCUPANCY = 0x188
    FLOW_INSERTIONS = 0x18C
    FLOW_EVICTIONS = 0x190
    FLOW_FAILED_INSERTIONS = 0x194
    UNPARSED_FRAMES = 0x198
    OVERSIZE_FRAMES = 0x19C
    #: flows classified as class c (1..10) at CLASS_FLOWS + 4 * c; unknown has none
    CLASS_FLOWS = 0x1C0

    #: STATUS bit: the flow table is being cleared after a reset
    STATUS_TABLE_CLEARING = 1 << 2
    POLICY_ENABLE = 1 << 7
    #: class numbers, as in the policy table and the per-class counters
    CLASSES = ('unknown', 'http', 'tls', 'dns', 'ssh', 'quic', 'sip', 'rtp', 'bittorrent',
               'smtp', 'ntp')

    @classmethod
    def policy(cls, klass):
        return cls.POLICY + 4 * cls.CLASSES.index(klass)

    @classmethod
    def class_packets(cls, klass):
        return cls.CLASS_PACKETS + 8 * cls.CLASSES.index(klass)

    @classmethod
    def class_bytes(cls, klass):
        return cls.CLASS_BYTES + 8 * cls.CLASSES.index(klass)

    @classmethod
    def class_flows(cls, klass):
        return cls.CLASS_FLOWS + 4 * cls.CLASSES.index(klass)


class UnknownModule(LookupError):
    """No HDL is registered for a module ID."""


@dataclasses.dataclass(frozen=True)
class HdlModule:
    """A reconfigurable module: its Verilog top and how to build it."""

    name: str
    module_id: int
    version: int
    top: str
    sources: tuple
    data_width: int = 64
    #: Verilog `define`s of the build (name -> value)
    defines: tuple = ()

    def source_paths(self, hdl_dir):
        """Its Verilog files in a source tree's hdl/ folder."""
        return [pathlib.Path(hdl_dir) / 'rtl' / source
                for source in self.sources]

    @property
    def in_slot(self):
        """This module behind its region's decoupler, as a board runs it:
        what the emulator builds (the top is region_slot.v)."""
        return dataclasses.replace(
            self, name='%s_slot' % self.name, top=SLOT_TOP,
            sources=self.sources + DECOUPLER_SOURCES + ('region_slot.v',),
            defines=(('REGION_MODULE', self.top),))

    @property
    def parameters(self):
        """Verilog parameters every build of this module gets."""
        return {
            'MODULE_ID': self.module_id,
            'MODULE_VERSION': self.version,
            'DATA_WIDTH': self.data_width,
        }


LOOPBACK = HdlModule(
    name='loopback',
    module_id=LOOPBACK_MODULE_ID,
    version=0x00010000,
    top='region_loopback',
    sources=('region_loopback.v', 'region_regs.v', 'axis_register.v', 'axil_reg_if.v'),
)

VTC = HdlModule(
    name='vtc',
    module_id=VTC_MODULE_ID,
    version=0x00010000,
    top='region_vtc',
    sources=('region_vtc.v', 'vtc_parser.v', 'vtc_signatures.v', 'vtc_flow_table.v',
             'vtc_flow_ram.v', 'region_regs.v', 'axis_register.v', 'axil_reg_if.v'),
)

MODULES = {module.module_id: module for module in (LOOPBACK, VTC)}

#: The static shell's per-region decoupler: shell logic, never loaded into a region, so no ID.
DECOUPLER_TOP = 'region_decoupler'
DECOUPLER_SOURCES = ('region_decoupler.v', 'axis_frame_fifo.v')
#: A module behind its decoupler (HdlModule.in_slot).
SLOT_TOP = 'region_slot'


def lookup(module_id):
    """Return the HdlModule a bitstream's declared module ID names."""
    try:
        return MODULES[module_id]
    except KeyError:
        raise UnknownModule('no HDL module registered for module ID 0x%08X'
                            % module_id) from None


#: 64-bit counters every module has (hdl/README.md): name -> LO offset, HI offset.
COMMON_COUNTERS = {
    'frames': (Registers.FRAMES_LO, Registers.FRAMES_HI),
    'bytes': (Registers.BYTES_LO, Registers.BYTES_HI),
}


def read_counters(module_id, read):
    """A module's counters, read through ``read(offset) -> int``.

    Reading a _LO word latches its _HI word, so LO is read first.  The
    module ID is checked first: counters of some other logic mean nothing.
    """
    found = read(Registers.MODULE_ID)
    if found != module_id:
        raise ValueError('module ID register reads 0x%08X, expected 0x%08X'
                         % (found, module_id))
    counters = {name: _read64(read, lo, hi)
                for name, (lo, hi) in COMMON_COUNTERS.items()}
    own = MODULE_COUNTERS.get(module_id)
    if own is not None:
        counters.update(own(read))
    return counters


def _read64(read, lo, hi=None):
    low = read(lo)
    return (read(lo + 4 if hi is None else hi) << 32) | low


#: the vTC's 32-bit counters: counter name -> register
VTC_COUNTERS = {
    'flows_seen': VtcRegisters.FLOWS_SEEN,
    'flows_classified': VtcRegisters.FLOWS_CLASSIFIED,
    'flow_table_occupancy': VtcRegisters.FLOW_OCCUPANCY,
    'flow_insertions': VtcRegisters.FLOW_INSERTIONS,
    'flow_evictions': VtcRegisters.FLOW_EVICTIONS,
    'flow_failed_insertions': VtcRegisters.FLOW_FAILED_INSERTIONS,
    'unparsed_frames': VtcRegisters.UNPARSED_FRAMES,
    'oversize_frames': VtcRegisters.OVERSIZE_FRAMES,
}


def vtc_counters(read):
    """The vTC's flow-table counters, packets/bytes per class and flows per
    class but unknown (its flows are flows_seen - flows_classified)."""
    counters = {name: read(offset) for name, offset in VTC_COUNTERS.items()}
    for klass in VtcRegisters.CLASSES:
        counters['%s_packets' % klass] = _read64(
            read, VtcRegisters.class_packets(klass))
        counters['%s_bytes' % klass] = _read64(
            read, VtcRegisters.class_bytes(klass))
    for klass in VtcRegisters.CLASSES[1:]:
        counters['%s_flows' % klass] = read(VtcRegisters.class_flows(klass))
    return counters


#: module ID -> its own counters beyond the common ones
MODULE_COUNTERS = {VTC_MODULE_ID: vtc_counters}
