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

"""The C data mover (agent/datamover).

Its C unit tests, and the daemon on a veth in a network namespace with the
emulated scatter-gather AXI DMA (loopback) behind it, frames sent and
captured on the peer.
"""
import os
import pathlib
import secrets
import socket
import struct
import subprocess
import threading
import time

import pytest
from scapy.all import Dot1Q
from scapy.all import Ether
from scapy.all import Raw
from scapy.all import sendp

from nova_fpga.contract import devicetree as dt
from nova_fpga_agent import datamover

ROOT = pathlib.Path(__file__).resolve().parents[2]
SRC = ROOT / 'agent' / 'datamover'
BUILD = SRC / 'build'

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
PACKET_OUTGOING = 4
TP_STATUS_VLAN_VALID = 0x10
_AUXDATA = struct.Struct('IIIHHHH')


def test_c_unit_tests():
    """`make -C agent/datamover check`: builds with -Wall -Wextra -Werror and
    runs the C unit tests against the in-process emulated engine.
    """
    result = subprocess.run(['make', '-C', str(SRC), 'check'],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert ', 0 failed' in result.stdout
    for name in ('ring_wraparound', 'descriptor_errors', 'oversize_and_jumbo',
                 'unknown_vlan', 'ring_full', 'xsk_rings'):
        assert 'ok   %s' % name in result.stdout


#: <asm-generic/socket.h>, not in Python's socket module
SO_RCVBUFFORCE = 33


class Capture:
    """Frames arriving on an interface, the 802.1Q tag put back where the
    kernel moved it into packet auxdata.
    """

    def __init__(self, interface):
        self.frames = []
        self.interface = interface
        # protocol 0 until the bind: a socket opened for ETH_P_ALL takes in
        # every interface's frames until it is bound (a frame of the
        # loopback's, 127.0.0.1 with zero MACs, was once captured ahead of a
        # replay's frames); bound to the interface with ETH_P_ALL
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        self.sock.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
        # a burst out of the mover must not overrun this thread (root:
        # past rmem_max)
        self.sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 32 << 20)
        self.sock.bind((interface, ETH_P_ALL))
        self.sock.settimeout(0.1)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop.is_set():
            try:
                data, anc, _, addr = self.sock.recvmsg(
                    65536, socket.CMSG_SPACE(_AUXDATA.size))
            except socket.timeout:
                continue
            if addr[2] == PACKET_OUTGOING or addr[0] != self.interface:
                continue
            for level, kind, raw in anc:
                if level == SOL_PACKET and kind == PACKET_AUXDATA:
                    status, _, _, _, _, tci, tpid = _AUXDATA.unpack_from(raw)
                    if status & TP_STATUS_VLAN_VALID:
                        data = (data[:12] + struct.pack('>HH', tpid or 0x8100,
                                                        tci) + data[12:])
            self.frames.append(data)

    def wait(self, count, timeout=10):
        deadline = time.monotonic() + timeout
        while len(self.frames) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.frames

    def close(self):
        self.stop.set()
        self.thread.join(2)
        self.sock.close()


def _wait_for(predicate, what, timeout=10, state=None):
    """Until predicate() holds; on a timeout the error says what was
    awaited and, given state (a callable), what state() returns then.
    """
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            message = 'timed out waiting for %s' % what
            if state is not None:
                message += ': %s' % (state(),)
            raise AssertionError(message)
        time.sleep(0.02)


def _stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def _frame(vlan, prio, size, seed):
    head = Ether(src='02:00:00:00:00:01', dst='02:00:00:00:00:02') / \
        Dot1Q(vlan=vlan, prio=prio, type=0x88B5)
    payload = bytes((seed + 7 * i) & 0xFF for i in range(size - len(head)))
    frame = bytes(head / Raw(payload))
    assert len(frame) == size
    return frame


def _retagged(frame, vlan, prio):
    tci = (prio << 13) | vlan
    return frame[:14] + struct.pack('>H', tci) + frame[16:]


#: the mover's packet I/O: AF_PACKET with either RX ring, or AF_XDP in the
#: veth's driver (native: an MTU a veth takes XDP at) or in the stack
#: (generic: any MTU; a frame longer than an AF_XDP chunk is the kernel's
#: drop)
IO_ARGS = {
    'v3': ['--rx-ring', 'v3'],
    'v2': ['--rx-ring', 'v2'],
    'xdp-native': ['--io', 'xdp', '--xdp-mode', 'native'],
    'xdp-generic': ['--io', 'xdp', '--xdp-mode', 'generic'],
}


@pytest.mark.skipif(os.geteuid() != 0, reason='network namespaces need root')
@pytest.mark.parametrize('rx_ring', list(IO_ARGS))
def test_mover_on_veth_with_emulated_sg_dma(link, rx_ring):
    netns, board_if, peer_if = link
    xdp = rx_ring.startswith('xdp')
    if rx_ring == 'xdp-native':
        ip_ = ['ip', 'link', 'set', 'dev']
        subprocess.run(['ip', 'netns', 'exec', netns, *ip_, board_if, 'mtu',
                        '1500'], check=True)
        subprocess.run([*ip_, peer_if, 'mtu', '1500'], check=True)
    subprocess.run(['make', '-C', str(SRC)], check=True, capture_output=True)
    shm = '/dev/shm/nfdm-%s' % secrets.token_hex(3)
    regs, buf, irq = shm + '-regs', shm + '-buf', shm + '-irq'
    counters, control = shm + '-counters', shm + '-control'
    # a board's u-dma-buf: the mover sizes its rings from it
    size, phys = dt.DMA_BUFFER_BYTES, 0x1F000000
    engine = mover = capture = None
    try:
        engine = subprocess.Popen(
            [str(BUILD / 'nova-fpga-sgemu'), '--regs', regs, '--buf', buf,
             '--size', str(size), '--phys', hex(phys), '--irq', irq],
            stderr=subprocess.PIPE, text=True)
        _wait_for(lambda: os.path.exists(irq), 'the emulated engine')
        mover = subprocess.Popen(
            ['ip', 'netns', 'exec', netns,
             str(BUILD / 'nova-fpga-datamover'), '--interface', board_if,
             '--counters', counters, '--control', control,
             '--region', 'r0,regs=%s,buf=%s,phys=%s,size=%d,irq=%s'
             % (regs, buf, hex(phys), size, irq),
             '--route', '100:r0:200', *IO_ARGS[rx_ring]],
            stderr=subprocess.PIPE, text=True)
        _wait_for(lambda: os.path.exists(control) or mover.poll() is not None,
                  'the mover')
        assert mover.poll() is None, mover.stderr.read()
        ctl = datamover.Control(control)
        ctl.ping()
        assert ctl.routes() == {100: ('r0', 200)}
        capture = Capture(peer_if)

        sizes = [64, 128, 1518, 512] if xdp else [64, 128, 1518, 9018, 512]
        frames = [_frame(100, 5, n, i) for i, n in enumerate(sizes)]
        unknown = [_frame(300, 1, 64, 9) for _ in range(3)]
        # AF_XDP: a jumbo frame is longer than a UMEM chunk
        jumbo = [_frame(100, 5, 9018, 3)] if rx_ring == 'xdp-generic' else []
        sendp([Ether(f) for f in frames + unknown + jumbo], iface=peer_if,
              verbose=False)
        got = capture.wait(len(frames))
        time.sleep(0.3)
        assert len(capture.frames) == len(frames)
        assert sorted(got, key=len) == sorted(
            (_retagged(f, 200, 5) for f in frames), key=len)

        stats = datamover.Counters(counters).read()
        r0 = stats['regions']['r0']
        assert r0['frames_in'] == len(frames)
        assert r0['frames_out'] == len(frames)
        assert r0['bytes_in'] == sum(sizes) - 4 * len(frames)
        assert r0['bytes_out'] == sum(sizes)
        assert stats['global']['drop_no_route'] >= len(unknown)
        assert r0['drop_dma_error'] == r0['dma_resets'] == 0
        if jumbo:
            # read from the socket's statistics once a second
            _wait_for(lambda: datamover.Counters(counters).read()['global']
                      ['kernel_drops'] == len(jumbo), 'the kernel\'s drop')

        # the controller goes away mid-conversation; forwarding goes on
        raw = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        raw.connect(control)
        raw.sendall(b'route add 101 r0')     # no newline: half a command
        raw.close()
        capture.frames.clear()
        sendp(Ether(frames[0]), iface=peer_if, verbose=False)
        assert capture.wait(1) == [_retagged(frames[0], 200, 5)]

        # decoupled: dropped and counted, never sent on
        ctl.decouple('r0')
        capture.frames.clear()
        sendp(Ether(frames[1]), iface=peer_if, verbose=False)
        _wait_for(lambda: datamover.Counters(counters).read()['regions']
                  ['r0']['drop_decoupled'] == 1, 'the decoupled drop')
        ctl.couple('r0')
        sendp(Ether(frames[2]), iface=peer_if, verbose=False)
        assert capture.wait(1) == [_retagged(frames[2], 200, 5)]

        ctl.stop()
        assert mover.wait(10) == 0
        log = mover.stderr.read()
        assert 'region r0: %d descriptors a direction, %d-byte slots' % (
            dt.DMA_RING_DESCRIPTORS, dt.DMA_SLOT_BYTES) in log
        if xdp:
            assert 'AF_XDP queue 0, %s mode' % rx_ring[4:] in log
            # the steering program went with the mover: the interface is
            # the stack's again
            shown = subprocess.run(
                ['ip', 'netns', 'exec', netns, 'ip', 'link', 'show',
                 board_if], check=True, capture_output=True, text=True)
            assert 'xdp' not in shown.stdout
    finally:
        if capture:
            capture.close()
        for proc in (mover, engine):
            if proc:
                _stop(proc)
        for path in (regs, buf, irq, counters, control):
            if os.path.exists(path):
                os.unlink(path)


def test_af_xdp_refuses_frames_longer_than_its_chunk():
    """--io xdp cannot carry a 9,018-byte frame (no AF_XDP multi-buffer):
    asked to, the mover says so and does not start.
    """
    subprocess.run(['make', '-C', str(SRC)], check=True, capture_output=True)
    result = subprocess.run(
        [str(BUILD / 'nova-fpga-datamover'), '--interface', 'lo',
         '--counters', '/nonexistent/c', '--control', '/nonexistent/s',
         '--region', 'r0,regs=/nonexistent,buf=/nonexistent,phys=0,'
         'size=4194304', '--io', 'xdp', '--max-frame', '9018'],
        capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert ('--io xdp carries frames up to 3840 bytes (one AF_XDP chunk); '
            '--max-frame 9018 needs --io packet') in result.stderr
