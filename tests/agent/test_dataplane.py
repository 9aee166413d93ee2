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
a network namespace) come out of the loopback region unchanged, counted:
through the C data mover the agent starts and the regions' emulated
scatter-gather DMA engines, the modules' Verilog behind them."""
import hashlib
import json
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

from nova_fpga.contract import agent_api as api
from nova_fpga.contract import network
from nova_fpga.contract import reports
from nova_fpga_agent import datamover
from nova_fpga_agent import privsep
from nova_fpga_devtools.localcloud import boards as localboards
from nova_fpga_devtools.localcloud.traffic import Capture  # noqa: F401
from tests.agent.conftest import module_for
from tests.agent.conftest import REFERENCE
from tests.agent import fakekernel
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


def dataplane_options(tmp_path, board_if, netns, board='dp0'):
    """The agent's data interface in the board's namespace, where its
    data-path privsep daemon starts the mover: privsep-helper with the
    agent's configuration file, as the emulator starts it (no sudo: the
    tests run as root).
    """
    return {('dataplane', 'interface'): board_if,
            ('dataplane', 'netns'): netns,
            # as the demo's emulated boards: their modules run at
            # simulation speed, on a host the tests share
            ('dataplane', 'ring_full_wait_us'):
                localboards.EMULATED_RING_FULL_WAIT_US,
            ('dataplane', 'rx_ring'): localboards.EMULATED_RX_RING,
            (privsep.datapath_pctxt.cfg_section, 'helper_command'):
                '%s --config-file %s' % (fakekernel.HELPER,
                                         tmp_path / ('%s.conf' % board))}


def tagged(frame, vlan):
    return frame[:12] + struct.pack('>HH', 0x8100, vlan) + frame[12:]


def load(client, region, image='img'):
    instance = str(uuid.uuid4())
    data = module_for(region)
    client.load({}, 'dp0', region, instance, image,
                hashlib.sha256(data).hexdigest(), data)
    return instance


def test_real_captures_come_back_through_the_loopback(tmp_path, rabbitmq,
                                                      data_link, report):
    netns, board_if, peer_if = data_link
    client, transport = client_for(rabbitmq.user('cloud'))
    agent = AgentProcess(tmp_path, 'dp0', rabbitmq.user('dp0'),
                         dataplane_options(tmp_path, board_if, netns))
    try:
        agent.start(client)
        instance = load(client, 'rp0')
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
        stats = client.stats({}, 'dp0', 'rp0', instance)
        size = sum(
            len(p) for c in captures for p in map(bytes, rdpcap(str(c)))
        )
        assert stats['dataplane'] == dict(
            dict.fromkeys(reports.DATAPLANE_COUNTERS, 0),
            **{reports.FRAMES_IN: total, reports.BYTES_IN: size,
               reports.FRAMES_OUT: total, reports.BYTES_OUT: size})
        assert stats['module'] == {'frames': total, 'bytes': size}
        report('data plane: %d frames of 9 real captures through the '
               'emulated loopback region, all back unchanged' % total)
    finally:
        agent.stop()
        agent.end_datapath()
        transport.cleanup()


def test_a_holder_counts_traffic_from_its_own_load(tmp_path, rabbitmq,
                                                   data_link):
    netns, board_if, peer_if = data_link
    client, transport = client_for(rabbitmq.user('cloud'))
    agent = AgentProcess(tmp_path, 'dp0', rabbitmq.user('dp0'),
                         dataplane_options(tmp_path, board_if, netns))
    frame = bytes(rdpcap(str(realdata_path('pcaps', 'ndpi',
                                           'dns.pcap')))[0])

    def send(region, count):
        vlan = REFERENCE.region(region).vlan
        sendp([Ether(tagged(frame, vlan))] * count, iface=peer_if,
              verbose=False)

    def plane(region, instance, counter, count):
        """The region's data-plane counters once counter reaches count
        (frames arrive asynchronously), or after 10 s.
        """
        deadline = time.monotonic() + 10
        while True:
            found = client.stats({}, 'dp0', region, instance)['dataplane']
            if found[counter] >= count or time.monotonic() > deadline:
                return found
            time.sleep(0.1)

    try:
        agent.start(client)
        first = load(client, 'rp0', image='img-first')
        send('rp0', 5)
        assert plane('rp0', first, reports.FRAMES_OUT, 5)[
            reports.FRAMES_IN] == 5
        client.unload({}, 'dp0', 'rp0', first)
        send('rp0', 2)  # nothing runs there: dropped, counted for nobody
        send('rp1', 1)
        time.sleep(0.5)

        second = load(client, 'rp0', image='img-second')
        stats = client.stats({}, 'dp0', 'rp0', second)
        assert stats['dataplane'] == dict.fromkeys(
            reports.DATAPLANE_COUNTERS, 0)
        assert not [line for line in stats['log']
                    if first in line or 'img-first' in line]
        with pytest.raises(api.RegionNotHeld):
            client.stats({}, 'dp0', 'rp0', first)
        send('rp0', 3)
        assert plane('rp0', second, reports.FRAMES_OUT, 3)[
            reports.FRAMES_IN] == 3

        # a stopped server's frames are dropped (decoupled in the mover
        # before they reach the region), counted as its own
        third = load(client, 'rp1')
        client.power({}, 'dp0', 'rp1', third, False)
        send('rp1', 1)
        assert plane('rp1', third, reports.DROPPED, 1) == dict(
            dict.fromkeys(reports.DATAPLANE_COUNTERS, 0),
            **{reports.DROPPED: 1})
    finally:
        agent.stop()
        agent.end_datapath()
        transport.cleanup()


def test_ports_vlans_steer_in_retag_out_and_drop_the_rest(tmp_path, rabbitmq,
                                                          data_link, report):
    """A region on two ports takes frames of its ingress VLAN only and
    sends them out on its egress VLAN; its manifest VLAN and VLANs given to
    no region are dropped and counted; the VLANs survive an agent restart
    and go with their ports.
    """
    netns, board_if, peer_if = data_link
    client, transport = client_for(rabbitmq.user('cloud'))
    agent = AgentProcess(tmp_path, 'dp0', rabbitmq.user('dp0'),
                         dataplane_options(tmp_path, board_if, netns))
    frames = [bytes(p) for p in rdpcap(str(realdata_path('pcaps', 'ndpi',
                                                         'dns.pcap')))][:8]
    port_in, port_out = str(uuid.uuid4()), str(uuid.uuid4())
    two_ports = network.RegionNetwork(network.PortVlan(port_in, 210),
                                      network.PortVlan(port_out, 220))

    def through(vlan_in, vlan_out, count=len(frames)):
        """Frames sent on vlan_in that come back on vlan_out."""
        capture = Capture(peer_if, vlan_out)
        sendp([Ether(tagged(f, vlan_in)) for f in frames], iface=peer_if,
              verbose=False)
        return capture.wait_for(count, timeout=5 if count == 0 else 60)

    def unsteered(at_least=0):
        """The board's unsteered frames once at least at_least (frames
        arrive asynchronously), or after 10 s.
        """
        deadline = time.monotonic() + 10
        while True:
            found = client.health({}, 'dp0')['unsteered_frames']
            if found >= at_least or time.monotonic() > deadline:
                return found
            time.sleep(0.1)

    try:
        agent.start(client)
        data = module_for('rp0')
        vtc1 = str(uuid.uuid4())
        client.load({}, 'dp0', 'rp0', vtc1, 'img',
                    hashlib.sha256(data).hexdigest(), data,
                    network=two_ports)
        plain = load(client, 'rp1')  # --nic none: its manifest VLAN
        vlan_rp1 = REFERENCE.region('rp1').vlan

        assert through(210, 220) == [tagged(f, 220) for f in frames]
        assert through(vlan_rp1, vlan_rp1) == [tagged(f, vlan_rp1)
                                               for f in frames]
        before = unsteered()
        # rp0's manifest VLAN was not given to it, 230 to nobody
        for vlan in (REFERENCE.region('rp0').vlan, 230):
            assert through(vlan, vlan, 0) == []
            assert through(vlan, 220, 0) == []
        # at least: the link's own untagged frames (IPv6 neighbour and
        # multicast listener traffic of the veth) count as unsteered too
        assert unsteered(before + 4 * len(frames)) - before >= \
            4 * len(frames)

        # a VLAN enters one region only
        client.unload({}, 'dp0', 'rp1', plain)
        rp1 = module_for('rp1')
        with pytest.raises(api.RegionBusy, match='VLAN 210 already enters'):
            client.load({}, 'dp0', 'rp1', str(uuid.uuid4()), 'img',
                        hashlib.sha256(rp1).hexdigest(), rp1,
                        network=network.RegionNetwork(
                            network.PortVlan(str(uuid.uuid4()), 210),
                            network.PortVlan(str(uuid.uuid4()), 230)))

        agent.stop()
        saved = json.loads((agent.state_dir / 'regions.json').read_text())
        assert [r['network'] for r in saved['regions']
                if r['region'] == 'rp0'] == [two_ports.to_dict()]
        agent.start(client)
        assert through(210, 220) == [tagged(f, 220) for f in frames]

        # the egress port gone: frames still enter, what leaves is dropped
        answer = client.detach_port({}, 'dp0', 'rp0', vtc1, port_out)
        assert answer['network'] == network.RegionNetwork(
            two_ports.ingress).to_dict()
        assert through(210, 220, 0) == []
        stats = client.stats({}, 'dp0', 'rp0', vtc1)['dataplane']
        assert stats[reports.DROPPED] >= len(frames)
        # the ingress port gone: its VLAN reaches no region
        client.detach_port({}, 'dp0', 'rp0', vtc1, port_in)
        before = unsteered()
        assert through(210, 210, 0) == []
        assert unsteered(before + len(frames)) - before >= len(frames)
        # unloading forgets whatever was left
        client.unload({}, 'dp0', 'rp0', vtc1)
        assert client.describe({}, 'dp0')['regions'][0]['network'] is None
        report('data plane: %d frames in on VLAN 210, out on VLAN 220; '
               'frames on VLANs given to no region dropped and counted'
               % len(frames))
    finally:
        agent.stop()
        agent.end_datapath()
        transport.cleanup()


class Sender:
    """Frames with a sequence number, tagged, at a steady rate from a
    thread, until stopped.
    """

    def __init__(self, interface, vlan, rate=1000, size=128):
        self.vlan, self.rate, self.size = vlan, rate, size
        self.sent = 0
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self.sock.bind((interface, 0))
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def frame(self, seq):
        head = (b'\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01'
                + struct.pack('>HHH', 0x8100, self.vlan, 0x88B5))
        body = struct.pack('>I', seq)
        return head + body + bytes(self.size - len(head) - len(body))

    def _run(self):
        began = time.monotonic()
        while not self.stop.is_set():
            due = began + self.sent / self.rate
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self.sock.send(self.frame(self.sent))
            self.sent += 1

    def finish(self):
        self.stop.set()
        self.thread.join()
        self.sock.close()
        return self.sent


def nfgen(peer_if, vlan, rate, seconds, trial, size=128):
    """nova-fpga-nfgen (agent/datamover/bench/nfgen.c, C on TPACKET rings):
    numbered frames on ``vlan`` at ``rate`` for ``seconds``, the ones that
    come back on ``vlan`` counted (lost, reordered or duplicated).
    """
    return subprocess.Popen(
        [datamover.binary('nova-fpga-nfgen'), '--interface', peer_if,
         '--size', str(size), '--rate', str(rate), '--seconds', str(seconds),
         '--vlan', str(vlan), '--expect-vlan', str(vlan), '--trial',
         str(trial), '--drain-ms', '1000'],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def nfgen_result(proc, timeout):
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err
    return json.loads(out)


def settled(client, instance):
    """The region's data-path counters once no frame is in flight."""
    last = None
    for _ in range(100):
        now = client.stats({}, 'dp0', 'rp0', instance)['dataplane']
        if now == last:
            return now
        last = now
        time.sleep(0.2)
    raise AssertionError('the counters never settled: %s' % now)


@pytest.mark.parametrize('packet_io', ['af_packet', 'af_xdp'])
def test_an_agent_restart_loses_no_frame(tmp_path, rabbitmq, data_link,
                                         report, packet_io):
    """The data mover and the emulated engines outlive the agent: with
    traffic at a tenth of the path's throughput (measured first, in this
    run, on this region), every frame sent all through an agent restart
    comes back, in order, and the region's counters go on from where they
    were; with either of the mover's packet I/Os.
    """
    netns, board_if, peer_if = data_link
    client, transport = client_for(rabbitmq.user('cloud'))
    options = dataplane_options(tmp_path, board_if, netns)
    options[('dataplane', 'packet_io')] = packet_io
    agent = AgentProcess(tmp_path, 'dp0', rabbitmq.user('dp0'), options)
    traffic = None
    try:
        agent.start(client)
        instance = load(client, 'rp0')
        vlan = REFERENCE.region('rp0').vlan
        # the throughput: what comes back of a second's overload (more
        # than the generator can offer)
        burst = nfgen_result(nfgen(peer_if, vlan, 2000000, 1, trial=1),
                             timeout=60)
        throughput = burst['received'] / burst['seconds']
        assert throughput > 0, burst
        rate = max(int(throughput / 10), 100)
        before = settled(client, instance)
        mover = (agent.state_dir / 'datamover.counters').read_bytes()[12:16]

        traffic = nfgen(peer_if, vlan, rate, 20, trial=2)
        time.sleep(2)
        agent.stop()
        time.sleep(1)   # no agent at all for a while
        agent.start(client)
        # the agent came back while the traffic was still flowing
        assert traffic.poll() is None
        got = nfgen_result(traffic, timeout=120)
        traffic = None
        after = settled(client, instance)

        # the same mover process: adopted, not started again
        assert (agent.state_dir / 'datamover.counters').read_bytes()[
            12:16] == mover
        assert 'adopted' in agent.log_text()
        assert ('AF_XDP queue 0' in agent.datamover_log()) == (
            packet_io == 'af_xdp')
        assert got['sent'] >= rate * 19
        counted = {key: after[key] - before[key] for key in after}
        assert got['received'] == got['sent'], (got, counted)
        assert got['lost'] == got['reordered'] == got['wrong_vlan'] == 0
        assert got['rx_kernel_drops'] == 0
        assert after[reports.FRAMES_IN] - before[reports.FRAMES_IN] == \
            got['sent']
        assert after[reports.FRAMES_OUT] - before[reports.FRAMES_OUT] == \
            got['sent']
        assert after[reports.DROPPED] == before[reports.DROPPED]
        report('data path (%s): %d frames at %d frames/s (a tenth of the '
               '%.0f frames/s this region forwarded under overload, 128 B) '
               'through an agent restart: none lost or reordered, counters '
               'continuous' % (packet_io, got['sent'], rate, throughput))
    finally:
        if traffic:
            traffic.kill()
            traffic.wait()
        agent.stop()
        agent.end_datapath()
        transport.cleanup()


def test_a_new_holder_never_gets_the_previous_holders_frames(
        tmp_path, rabbitmq, data_link, report):
    """Frames for the previous holder's VLAN keep arriving while the region
    is unloaded and loaded with a new server: none reaches the new holder
    (they are dropped as decoupled while the region changes hands, then as
    unrouted), and its module counts none.
    """
    netns, board_if, peer_if = data_link
    client, transport = client_for(rabbitmq.user('cloud'))
    agent = AgentProcess(tmp_path, 'dp0', rabbitmq.user('dp0'),
                         dataplane_options(tmp_path, board_if, netns))
    sender = None
    data = module_for('rp0')
    try:
        agent.start(client)
        first = str(uuid.uuid4())
        client.load({}, 'dp0', 'rp0', first, 'img-first',
                    hashlib.sha256(data).hexdigest(), data,
                    network=network.RegionNetwork(
                        network.PortVlan(str(uuid.uuid4()), 210),
                        network.PortVlan(str(uuid.uuid4()), 220)))
        old_out = Capture(peer_if, 220)
        new_out = Capture(peer_if, 320)
        sender = Sender(peer_if, 210)
        time.sleep(0.5)
        client.unload({}, 'dp0', 'rp0', first)
        unsteered = client.health({}, 'dp0')['unsteered_frames']
        second = str(uuid.uuid4())
        client.load({}, 'dp0', 'rp0', second, 'img-second',
                    hashlib.sha256(data).hexdigest(), data,
                    network=network.RegionNetwork(
                        network.PortVlan(str(uuid.uuid4()), 310),
                        network.PortVlan(str(uuid.uuid4()), 320)))
        time.sleep(1)
        sender.finish()
        sender = None
        time.sleep(0.5)
        stats = client.stats({}, 'dp0', 'rp0', second)
        assert stats['dataplane'] == dict.fromkeys(
            reports.DATAPLANE_COUNTERS, 0)
        assert stats['module']['frames'] == 0
        assert new_out.wait_for(1, timeout=1) == []
        assert len(old_out.wait_for(1, timeout=1)) >= 1
        assert client.health({}, 'dp0')['unsteered_frames'] > unsteered
        report('data path: frames for the previous holder\'s VLAN through '
               'an unload and a new load of the region: none reached the '
               'new holder')
    finally:
        if sender:
            sender.finish()
        agent.stop()
        agent.end_datapath()
        transport.cleanup()
