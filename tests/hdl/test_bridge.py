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

"""The Verilator bridge: real captures through the compiled loopback, registers
over AXI4-Lite.
"""
import dataclasses

import dpkt
import pytest
from scapy.utils import RawPcapReader

from nova_fpga.bitstream import container
from nova_fpga import catalogue
from nova_fpga_emulator import hdl_bridge
from nova_fpga_emulator import modules
from tests.conftest import HDL
from tests.conftest import realdata_path

pytestmark = pytest.mark.hdl

ENTRY = catalogue.load().by_name('loopback')
LOOPBACK = modules.HdlModule.of(ENTRY)
REGS = ENTRY.registers

CAPTURES = [
    'NTPv4.pcap',
    'bittorrent.pcap',
    'dns.pcap',
    'exe_download.pcap',
    'google_ssl.pcap',
    'quic.pcap',
    'sip.pcap',
    'smtp.pcap',
    'ssh.pcap',
]
ETHERNET = 1


def read_capture(path):
    """Frames of a pcap or pcapng capture, read by scapy and cross-checked with
    dpkt.
    """
    frames = [bytes(data) for data, _ in RawPcapReader(str(path))]
    with open(path, 'rb') as stream:
        magic = stream.read(4)
        stream.seek(0)
        reader = (
            dpkt.pcapng.Reader
            if magic == b'\x0a\x0d\x0d\x0a'
            else dpkt.pcap.Reader
        )(stream)
        assert reader.datalink() == ETHERNET
        assert [bytes(data) for _, data in reader] == frames
    return frames


def read_u64(bridge, lo_offset):
    lo = bridge.axil_read(lo_offset)
    return bridge.axil_read(lo_offset + 4) << 32 | lo


@pytest.fixture(scope='module')
def loopback():
    with hdl_bridge.HdlBridge.for_module_id(ENTRY.module_id,
                                            HDL) as bridge:
        yield bridge


def test_module_id_reads_back_over_axi_lite(loopback):
    """Register 0 of the running HDL is the ID the registry gave it, as a
    bitstream's UserID.
    """
    assert loopback.axil_read(REGS.MODULE_ID) == ENTRY.module_id
    assert loopback.axil_read(REGS.VERSION) == ENTRY.version


def test_register_errors_raise(loopback):
    with pytest.raises(hdl_bridge.AxiLiteError) as error:
        loopback.axil_read(0x100)
    assert error.value.resp == hdl_bridge.SLVERR
    with pytest.raises(hdl_bridge.AxiLiteError) as error:
        loopback.axil_write(0x100, 1)
    assert error.value.resp == hdl_bridge.SLVERR


@pytest.mark.parametrize('capture', CAPTURES)
def test_real_capture_comes_back_unchanged(loopback, capture, report):
    """Every frame of a real capture returns byte for byte, in order, at one
    beat per cycle.
    """
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
        assert got == sent, '%s frame %d (%d bytes) changed' % (
            capture,
            index,
            len(sent),
        )
    assert read_u64(loopback, REGS.FRAMES_LO) == len(frames)
    assert read_u64(loopback, REGS.BYTES_LO) == sum(map(len, frames))
    beat_bytes = ENTRY.data_width // 8
    beats = sum(-(-len(frame) // beat_bytes) for frame in frames)
    # one beat per cycle: only the register slice's latency on top
    assert cycles - quiet <= beats + 4
    report(
        'bridge %s: %d frames (%d bytes, largest %d) unchanged in %d cycles'
        % (
            capture,
            len(frames),
            sum(map(len, frames)),
            max(map(len, frames)),
            cycles,
        )
    )


def test_counters_clear(loopback):
    loopback.reset()
    loopback.push_frame(b'\x01' * 60)
    loopback.clock_until_idle()
    assert loopback.pull_frames() == [b'\x01' * 60]
    assert read_u64(loopback, REGS.BYTES_LO) == 60
    loopback.axil_write(REGS.CONTROL, REGS.bit('CONTROL', 'CLEAR_COUNTERS'))
    assert read_u64(loopback, REGS.FRAMES_LO) == 0
    assert read_u64(loopback, REGS.BYTES_LO) == 0


def test_unknown_module_id_is_refused():
    with pytest.raises(catalogue.UnknownModule, match='0xFFFFFFFF'):
        hdl_bridge.HdlBridge.for_module_id(container.NO_USER_ID, HDL)
    assert catalogue.load().by_id(0x4E460002).top == 'region_vtc'


def test_build_is_cached_and_keyed_on_what_changes_it():
    library = hdl_bridge.build(LOOPBACK, HDL)
    built_at = library.stat().st_mtime_ns
    assert hdl_bridge.build(LOOPBACK, HDL) == library
    assert library.stat().st_mtime_ns == built_at
    other_id = dataclasses.replace(LOOPBACK, parameters=dict(
        LOOPBACK.parameters, MODULE_ID=0x4E46FFFF))
    assert (hdl_bridge.build_key(other_id, HDL)
            != hdl_bridge.build_key(LOOPBACK, HDL))


def test_fresh_machine_builds_on_first_use(tmp_path, monkeypatch):
    """With an empty build directory the first bridge builds the library
    itself.
    """
    monkeypatch.setattr(hdl_bridge, 'BUILD_DIR', tmp_path / 'hdl_bridge')
    with hdl_bridge.HdlBridge(LOOPBACK, HDL) as bridge:
        assert bridge.axil_read(REGS.MODULE_ID) == ENTRY.module_id
    built = list(
        (tmp_path / 'hdl_bridge').glob('loopback-*/' + hdl_bridge.LIBRARY)
    )
    assert len(built) == 1


def test_registered_modules_are_built_once(tmp_path, monkeypatch):
    """What `nova-fpga-demo up` runs before boards serve: builds what is
    missing, then nothing (so no first load waits for Verilator).
    """
    monkeypatch.setattr(hdl_bridge, 'BUILD_DIR', tmp_path / 'hdl_bridge')
    only_loopback = catalogue.Catalogue(catalogue.load().common, [ENTRY])
    assert not hdl_bridge.library_path(LOOPBACK.in_slot, HDL).exists()
    assert hdl_bridge.build_registered(HDL, only_loopback) == ['loopback']
    assert hdl_bridge.library_path(LOOPBACK.in_slot, HDL).exists()
    assert hdl_bridge.build_registered(HDL, only_loopback) == []
