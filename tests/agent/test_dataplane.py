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

"""Real captures replayed into an emulated board's data interface (a veth in
a network namespace) come out of the loopback region unchanged, counted."""
import hashlib
import pathlib
import secrets
import socket
import struct
import subprocess
import threading
import time
import uuid

import pytest
from scapy.all import Ether
from scapy.all import rdpcap
from scapy.all import sendp

from nova_fpga_agent import dataplane
from tests.agent.conftest import module_for
from tests.agent.conftest import REFERENCE
from tests.agent.processes import AgentProcess
from tests.agent.processes import client_for
from tests.conftest import realdata_path


def ip(*args):
    subprocess.run(['ip', *args], check=True, capture_output=True)


@pytest.fixture
def data_link():
    """A board namespace holding the board end of a veth; the peer stays
    here, where the test plays the network.
    """
    tag = secrets.token_hex(3)
    netns, board_if, peer_if = 'nfb-%s' % tag, 'nfb%s' % tag, 'nfp%s' % tag
    ip('netns', 'add', netns)
    try:
        ip('link', 'add', board_if, 'type', 'veth', 'peer', 'name', peer_if)
        ip('link', 'set', board_if, 'netns', netns)
        ip('netns', 'exec', netns, 'ip', 'link', 'set', board_if, 'mtu',
           '9000', 'up')
        ip('link', 'set', peer_if, 'mtu', '9000', 'up')
        yield netns, board_if, peer_if
    finally:
        subprocess.run(['ip', 'link', 'del', peer_if], capture_output=True)
        subprocess.run(['ip', 'netns', 'del', netns], capture_output=True)


class Capture:
    """Frames arriving on an interface with a given outer VLAN."""

    def __init__(self, interface, vlan):
        self.vlan = vlan
        self.frames = []
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                  socket.htons(dataplane.ETH_P_ALL))
        self.sock.setsockopt(dataplane.SOL_PACKET, dataplane.PACKET_AUXDATA, 1)
        self.sock.setsockopt(socket.SOL_SOCKET, dataplane.SO_RCVBUFFORCE,
                             dataplane.RCVBUF)
        self.sock.bind((interface, 0))
        self.sock.settimeout(0.2)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop.is_set():
            try:
                data, anc, _, addr = self.sock.recvmsg(65536, 1024)
            except (socket.timeout, BlockingIOError):
                continue
            if addr[2] == dataplane.PACKET_OUTGOING:
                continue
            frame = dataplane._with_vlan_tag(data, anc)
            if (
                frame[12:14] == b'\x81\x00'
                and struct.unpack_from('>H', frame, 14)[0] & 0xFFF == self.vlan
            ):
                self.frames.append(frame)

    def wait_for(self, count, timeout=60):
        deadline = time.monotonic() + timeout
        while len(self.frames) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        self.stop.set()
        self.thread.join()
        self.sock.close()
        return self.frames


def tagged(frame, vlan):
    return frame[:12] + struct.pack('>HH', 0x8100, vlan) + frame[12:]


def test_real_captures_come_back_through_the_loopback(tmp_path, rabbitmq,
                                                      data_link, report):
    netns, board_if, peer_if = data_link
    client, transport = client_for(rabbitmq.user('cloud'))
    agent = AgentProcess(tmp_path, 'dp0', rabbitmq.user('dp0'), {
        ('dataplane', 'interface'): board_if,
        ('dataplane', 'netns'): netns})
    try:
        agent.start(client)
        data = module_for('rp0')
        client.load({}, 'dp0', 'rp0', str(uuid.uuid4()), 'img',
                    hashlib.sha256(data).hexdigest(), data)
        vlan = REFERENCE.region('rp0').vlan
        captures = sorted(pathlib.Path(realdata_path('pcaps', 'ndpi')).glob(
            '*.pcap'))
        assert len(captures) == 9
        total = 0
        for path in captures:
            frames = [bytes(p) for p in rdpcap(str(path))]
            capture = Capture(peer_if, vlan)
            sendp([Ether(tagged(f, vlan)) for f in frames], iface=peer_if,
                  verbose=False)
            out = capture.wait_for(len(frames))
            assert out == [tagged(f, vlan) for f in frames], path.name
            total += len(frames)
        # frames for a region with nothing running are dropped, counted
        sendp([Ether(tagged(frames[0], REFERENCE.region('rp1').vlan))],
              iface=peer_if, verbose=False)
        time.sleep(0.5)
        stats = client.stats({}, 'dp0', 'rp0')
        size = sum(
            len(p) for c in captures for p in map(bytes, rdpcap(str(c)))
        )
        assert stats['dataplane']['frames_in'] == total
        assert stats['dataplane']['frames_out'] == total
        assert stats['dataplane']['dropped'] == 0
        assert stats['module'] == {'frames': total, 'bytes': size}
        assert client.stats({}, 'dp0', 'rp1')['dataplane']['dropped'] == 1
        report('data plane: %d frames of 9 real captures through the '
               'emulated loopback region, all back unchanged' % total)
    finally:
        agent.stop()
        transport.cleanup()
