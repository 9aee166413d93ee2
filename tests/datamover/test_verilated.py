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

"""The C data mover with the Verilated modules behind the emulated SG DMA
(nova-fpga-sgemu --module): the real nDPI captures through the vTC come out
equal to its reference model frame for frame, and a 9,018-byte frame comes
back whole through the loopback (both in their region slot, behind the
decoupler).
"""
import contextlib
import os
import secrets
import signal
import socket
import struct
import subprocess
import sys
import time

import pytest

from nova_fpga import catalogue
from nova_fpga_agent import datamover
from nova_fpga_emulator import hdl_bridge
from nova_fpga_emulator import modules
from tests.conftest import HDL
from tests.conftest import ROOT
from tests.datamover.test_c_units import _frame
from tests.datamover.test_c_units import _retagged
from tests.datamover.test_c_units import _stop
from tests.datamover.test_c_units import _wait_for
from tests.datamover.test_c_units import BUILD
from tests.datamover.test_c_units import Capture
from tests.datamover.test_c_units import SRC

sys.path.insert(0, str(ROOT / 'hdl' / 'tests'))
import vtc_captures  # noqa: E402
from vtc_model import VtcModel  # noqa: E402

pytestmark = [
    pytest.mark.hdl,
    pytest.mark.skipif(os.geteuid() != 0,
                       reason='network namespaces need root'),
]
VTC = catalogue.load().by_name('vtc')
LOOPBACK = catalogue.load().by_name('loopback')
INGRESS, EGRESS, PRIO = 100, 200, 5


def _library(module):
    return hdl_bridge.build(modules.HdlModule.of(module).in_slot, HDL)


@contextlib.contextmanager
def _path(link, module, axil=(), stall_us=2000, rx_ring='v3',
          engines=None, size=16 << 20):
    """nova-fpga-sgemu --module behind the mover in the board namespace;
    stall_us: the mover's --stall-us (how long a frame waits for a full
    region ring before the region's frames are dropped); rx_ring: its
    --rx-ring; engines: a list the engine's process is put in; size: the
    region's DMA buffer (16 MiB: 512 descriptors a ring).
    """
    netns, board_if, peer_if = link
    subprocess.run(['make', '-C', str(SRC)], check=True, capture_output=True)
    shm = '/dev/shm/nfdv-%s' % secrets.token_hex(3)
    regs, buf, irq = shm + '-regs', shm + '-buf', shm + '-irq'
    counters, control = shm + '-counters', shm + '-control'
    phys = 0x1F000000
    engine = mover = capture = None
    try:
        engine = subprocess.Popen(
            [str(BUILD / 'nova-fpga-sgemu'), '--regs', regs, '--buf', buf,
             '--size', str(size), '--phys', hex(phys), '--irq', irq,
             '--module', module.name, '--module-lib', str(_library(module)),
             *[a for address, value in axil
               for a in ('--axil', '0x%x=0x%x' % (address, value))]],
            stderr=subprocess.PIPE, text=True)
        if engines is not None:
            engines.append(engine)
        _wait_for(lambda: os.path.exists(irq) or engine.poll() is not None,
                  'the emulated engine', 60)
        assert engine.poll() is None, engine.stderr.read()
        mover = subprocess.Popen(
            ['ip', 'netns', 'exec', netns,
             str(BUILD / 'nova-fpga-datamover'), '--interface', board_if,
             '--counters', counters, '--control', control,
             '--region', 'r0,regs=%s,buf=%s,phys=%s,size=%d,irq=%s'
             % (regs, buf, hex(phys), size, irq),
             '--route', '%d:r0:%d' % (INGRESS, EGRESS),
             '--stall-us', str(stall_us), '--rx-ring', rx_ring],
            stderr=subprocess.PIPE, text=True)
        _wait_for(lambda: os.path.exists(control) or mover.poll() is not None,
                  'the mover')
        assert mover.poll() is None, mover.stderr.read()
        capture = Capture(peer_if)
        sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        sock.bind((peer_if, 0))
        yield sock, capture, counters
        datamover.Control(control).stop()
        assert mover.wait(10) == 0
        sock.close()
    finally:
        if capture:
            capture.close()
        for proc in (mover, engine):
            if proc:
                _stop(proc)
        for path in (regs, buf, irq, counters, control):
            if os.path.exists(path):
                os.unlink(path)


def _path_state(counters, capture, engines):
    """What a path that did not settle shows: the mover's counters, the
    frames captured, and whether the engine still runs.
    """
    return {'counters': datamover.Counters(counters).read(),
            'captured': len(capture.frames),
            'engine exit': [e.poll() for e in engines]}


def _tagged(frame, vlan, prio):
    return frame[:12] + struct.pack('>HH', 0x8100, prio << 13 | vlan) + \
        frame[12:]


def _untagged(frame):
    assert frame[12:16] == struct.pack('>HH', 0x8100, PRIO << 13 | EGRESS)
    return frame[:12] + frame[16:]


def test_real_captures_through_the_verilated_vtc_equal_the_model(link,
                                                                 report):
    regs = VTC.registers
    policy = {'tls': 46, 'dns': 10, 'sip': 18}
    model = VtcModel()
    axil = []
    for klass, dscp in policy.items():
        value = regs.bit('POLICY', 'ENABLE') | dscp
        axil.append((regs.at('POLICY', klass), value))
        model.set_policy(klass, value)
    frames = [frame for path in vtc_captures.ndpi_capture_paths()
              for frame in vtc_captures.read_frames(path)]
    expected = [model.process(frame) for frame in frames]
    marked = sum(e != f for e, f in zip(expected, frames))
    assert marked > 0   # the policy does mark classified flows

    # one burst, as a replay sends it: the simulated vTC is thousands of
    # times slower than the wire, so its ring fills at once and the frames
    # behind wait in the interface's receive ring (the emulated board's
    # ring_full_wait_us); every frame arrives, in order, equal to the model
    with _path(link, VTC, axil, stall_us=1000000) as (sock, capture,
                                                      counters):
        for frame in frames:
            sock.send(_tagged(frame, INGRESS, PRIO))
        got = capture.wait(len(frames), timeout=120)
        assert len(got) == len(frames), datamover.Counters(counters).read()
        got = [_untagged(f) for f in capture.frames]
        for number, (out, want) in enumerate(zip(got, expected)):
            assert out == want, 'frame %d differs from the model' % number
        state = datamover.Counters(counters).read()
        r0 = state['regions']['r0']
        assert r0['frames_in'] == r0['frames_out'] == len(frames)
        assert r0['drop_ring_full'] == 0
        assert state['global']['kernel_drops'] == 0
    report('C mover + emulated SG DMA + Verilated vTC: %d real frames of '
           'the nDPI captures equal to the model (%d DSCP-marked)'
           % (len(frames), marked))


def test_a_full_ring_without_waiting_drops_and_counts_every_frame(link):
    """--stall-us 0 (drop at once): the burst overruns the simulated vTC's
    ring; what is dropped is counted as drop_ring_full, what is taken comes
    out, and nothing is lost without a count.
    """
    frames = [frame for path in vtc_captures.ndpi_capture_paths()
              for frame in vtc_captures.read_frames(path)]
    with _path(link, VTC, stall_us=0) as (sock, capture, counters):
        for frame in frames:
            sock.send(_tagged(frame, INGRESS, PRIO))

        def settled():
            r0 = datamover.Counters(counters).read()['regions']['r0']
            return (r0['frames_in'] + r0['drop_ring_full'] == len(frames)
                    and len(capture.frames) == r0['frames_in'])
        _wait_for(settled, 'the burst to settle', 120,
                  state=lambda: _path_state(counters, capture, ()))
        r0 = datamover.Counters(counters).read()['regions']['r0']
        assert r0['drop_ring_full'] > 0
        assert r0['frames_out'] == r0['frames_in'] == len(capture.frames)


@pytest.mark.parametrize('rx_ring', ['v2', 'v3'])
def test_a_slow_burst_into_a_stalled_region_waits_in_a_v2_ring(link,
                                                               rx_ring):
    """The receive ring that holds a burst while the region's ring is
    full ([dataplane] rx_ring; the emulated boards take v2): frames at a
    replay's pace (one every 1.5 ms), the engine stopped.  A V2 ring's
    2,048 slots hold all 600; a V3 block is handed over after 1 ms with
    the one or two frames it got, so its 128 blocks fill and the kernel
    drops the rest (counted: kernel_drops), the demo's 50 lost frames.
    """
    frames = [_frame(INGRESS, PRIO, 200, seed) for seed in range(600)]
    engines = []
    # a 1 MiB buffer: 32 descriptors a ring, so the region takes 31
    with _path(link, LOOPBACK, stall_us=60000000, rx_ring=rx_ring,
               engines=engines, size=1 << 20) as (sock, capture, counters):
        engines[0].send_signal(signal.SIGSTOP)
        try:
            for frame in frames:
                sock.send(frame)
                time.sleep(0.0015)
        finally:
            engines[0].send_signal(signal.SIGCONT)

        def settled():
            state = datamover.Counters(counters).read()
            r0 = state['regions']['r0']
            return (r0['frames_in'] + state['global']['kernel_drops']
                    == len(frames) and len(capture.frames) == r0['frames_in']
                    == r0['frames_out'])
        _wait_for(settled, 'the burst to settle', 120,
                  state=lambda: _path_state(counters, capture, engines))
        state = datamover.Counters(counters).read()
        assert state['regions']['r0']['drop_ring_full'] == 0
        drops = state['global']['kernel_drops']
        if rx_ring == 'v2':
            assert drops == 0
            assert capture.frames == [_retagged(f, EGRESS, PRIO)
                                      for f in frames]
        else:
            assert drops > 0


def test_jumbo_frame_through_the_verilated_loopback(link):
    frames = [_frame(INGRESS, PRIO, 9018, 3), _frame(INGRESS, PRIO, 64, 4)]
    with _path(link, LOOPBACK) as (sock, capture, counters):
        for frame in frames:
            sock.send(frame)
        got = capture.wait(len(frames), timeout=30)
        assert got == [_retagged(f, EGRESS, PRIO) for f in frames]
        r0 = datamover.Counters(counters).read()['regions']['r0']
        assert r0['bytes_out'] == 9018 + 64
        assert r0['drop_oversize'] == 0
