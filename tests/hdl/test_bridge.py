"""The Verilator bridge: real captures through the compiled loopback, registers over AXI4-Lite."""
import dpkt
import pytest
from scapy.utils import RawPcapReader

from nova_fpga_emulator import hdl_bridge, modules
from nova_fpga_emulator.modules import Registers
from tests.conftest import HDL, realdata_path

pytestmark = pytest.mark.hdl

CAPTURES = ['NTPv4.pcap', 'bittorrent.pcap', 'dns.pcap', 'exe_download.pcap', 'google_ssl.pcap',
            'quic.pcap', 'sip.pcap', 'smtp.pcap', 'ssh.pcap']
ETHERNET = 1


def read_capture(path):
    """Frames of a pcap or pcapng capture, read by scapy and cross-checked with dpkt."""
    frames = [bytes(data) for data, _ in RawPcapReader(str(path))]
    with open(path, 'rb') as stream:
        magic = stream.read(4)
        stream.seek(0)
        reader = (dpkt.pcapng.Reader if magic == b'\x0a\x0d\x0d\x0a' else dpkt.pcap.Reader)(stream)
        assert reader.datalink() == ETHERNET
        assert [bytes(data) for _, data in reader] == frames
    return frames


def read_u64(bridge, lo_offset):
    lo = bridge.axil_read(lo_offset)
    return bridge.axil_read(lo_offset + 4) << 32 | lo


@pytest.fixture(scope='module')
def loopback():
    with hdl_bridge.HdlBridge.for_module_id(modules.LOOPBACK_MODULE_ID, HDL) as bridge:
        yield bridge


def test_module_id_reads_back_over_axi_lite(loopback):
    """Register 0 of the running HDL is the ID the registry gave it, as a bitstream's UserID."""
    assert loopback.axil_read(Registers.MODULE_ID) == modules.LOOPBACK_MODULE_ID
    assert loopback.axil_read(Registers.VERSION) == modules.LOOPBACK.version


def test_register_errors_raise(loopback):
    with pytest.raises(hdl_bridge.AxiLiteError) as error:
        loopback.axil_read(0x100)
    assert error.value.resp == hdl_bridge.SLVERR
    with pytest.raises(hdl_bridge.AxiLiteError) as error:
        loopback.axil_write(0x100, 1)
    assert error.value.resp == hdl_bridge.SLVERR


@pytest.mark.parametrize('capture', CAPTURES)
def test_real_capture_comes_back_unchanged(loopback, capture, report):
    """Every frame of a real capture returns byte for byte, in order, at one beat per cycle."""
    frames = read_capture(realdata_path('pcaps', 'ndpi', capture))
    loopback.reset()
    for frame in frames:
        loopback.push_frame(frame)
    quiet = 32
    cycles = loopback.clock_until_idle(quiet_cycles=quiet)
    assert loopback.pending_input == 0
    returned = loopback.pull_frames()

    assert len(returned) == len(frames)
    for index, (sent, got) in enumerate(zip(frames, returned)):
        assert got == sent, '%s frame %d (%d bytes) changed' % (capture, index, len(sent))
    assert read_u64(loopback, Registers.FRAMES_LO) == len(frames)
    assert read_u64(loopback, Registers.BYTES_LO) == sum(map(len, frames))
    beat_bytes = modules.LOOPBACK.data_width // 8
    beats = sum(-(-len(frame) // beat_bytes) for frame in frames)
    # one beat per cycle: only the register slice's latency on top
    assert cycles - quiet <= beats + 4
    report('bridge %s: %d frames (%d bytes, largest %d) unchanged in %d cycles'
           % (capture, len(frames), sum(map(len, frames)), max(map(len, frames)), cycles))


def test_counters_clear(loopback):
    loopback.reset()
    loopback.push_frame(b'\x01' * 60)
    loopback.clock_until_idle()
    assert loopback.pull_frames() == [b'\x01' * 60]
    assert read_u64(loopback, Registers.BYTES_LO) == 60
    loopback.axil_write(Registers.CONTROL, Registers.CONTROL_CLEAR_COUNTERS)
    assert read_u64(loopback, Registers.FRAMES_LO) == 0
    assert read_u64(loopback, Registers.BYTES_LO) == 0


def test_unknown_module_id_is_refused():
    with pytest.raises(modules.UnknownModule):
        hdl_bridge.HdlBridge.for_module_id(modules.UNDECLARED_MODULE_ID, HDL)
    assert modules.lookup(modules.VTC_MODULE_ID).top == 'region_vtc'


def test_build_is_cached_and_keyed_on_what_changes_it():
    library = hdl_bridge.build(modules.LOOPBACK, HDL)
    built_at = library.stat().st_mtime_ns
    assert hdl_bridge.build(modules.LOOPBACK, HDL) == library
    assert library.stat().st_mtime_ns == built_at
    other_id = modules.HdlModule(**dict(vars(modules.LOOPBACK), module_id=0x4E46FFFF))
    assert hdl_bridge.build_key(other_id, HDL) != hdl_bridge.build_key(modules.LOOPBACK, HDL)


def test_fresh_machine_builds_on_first_use(tmp_path, monkeypatch):
    """With an empty build directory the first bridge builds the library itself."""
    monkeypatch.setattr(hdl_bridge, 'BUILD_DIR', tmp_path / 'hdl_bridge')
    with hdl_bridge.HdlBridge(modules.LOOPBACK, HDL) as bridge:
        assert bridge.axil_read(Registers.MODULE_ID) == modules.LOOPBACK_MODULE_ID
    built = list((tmp_path / 'hdl_bridge').glob('loopback-*/' + hdl_bridge.LIBRARY))
    assert len(built) == 1


def test_registered_modules_are_built_once(tmp_path, monkeypatch):
    """What `nova-fpga-demo up` runs before boards serve: builds what is
    missing, then nothing (so no first load waits for Verilator)."""
    monkeypatch.setattr(hdl_bridge, 'BUILD_DIR', tmp_path / 'hdl_bridge')
    monkeypatch.setattr(modules, 'MODULES',
                        {modules.LOOPBACK_MODULE_ID: modules.LOOPBACK})
    assert not hdl_bridge.library_path(modules.LOOPBACK.in_slot, HDL).exists()
    assert hdl_bridge.build_registered(HDL) == ['loopback']
    assert hdl_bridge.library_path(modules.LOOPBACK.in_slot, HDL).exists()
    assert hdl_bridge.build_registered(HDL) == []
