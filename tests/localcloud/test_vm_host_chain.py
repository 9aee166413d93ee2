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

"""A service chain in the heterogeneous cloud (the package's
vm_host_cloud), through the real openstack CLI: a vTC region server
between a tenant's `in` and `out` networks, a VM on `out`.

The board's data link is a port of the emulated top-of-rack switch that
carries no VLAN until Neutron binds a port to the board (the switch
driver demo_tor); a traffic source (a namespace on a Neutron port's
address, an access port of `in`) replays real captures; what reaches a
sink on `out` is, frame by frame, what the vTC's reference model
emits, the VM's own interface counter (read on its console) grows by as
many frames, and the vTC's console counters are the model's.  A second
tenant's region on the same board has VLANs of its own and sees none of
it; a build that fails after binding leaves no VLAN on the switch;
deleting the servers takes the board's VLANs off the switch and the
agent.

Frames are replayed to the Ethernet broadcast address: the switch learns
addresses, and a capture holds both ends of its flows, so frames to the
captured addresses would be filtered at the source's own port; broadcast
frames reach every port of `out`, the sink's and the VM's.

The first test runs in CI (`make test`); the others take longer than its
budget allows and run with `make test-chain` (marker beyond_ci).
"""
import os
import re
import signal
import subprocess
import time

import pytest

from nova_fpga.bitstream import builder
from nova_fpga import catalogue
from nova_fpga.contract import network
from nova_fpga.contract import shell
from nova_fpga_devtools import captures
from nova_fpga_devtools.localcloud import process
from nova_fpga_devtools.localcloud import vm_image
from nova_fpga_devtools.localcloud import vmhost
from tests.conftest import realdata_path
from tests.e2e.test_servers import CAPTURES
from tests.e2e.test_servers import console_counters
from tests.e2e.test_servers import model_counters
from tests.e2e.test_servers import VtcModel
from tests.localcloud import netns
from tests.services import CLI

REFERENCE = shell.load(shell.REFERENCE)
VTC = catalogue.load().by_name('vtc')
#: the tenant's DSCP policy of the chain's vTC: classes the captures carry
#: (google_ssl is TLS), each marked differently
POLICY = {'vtc:dscp:tls': 18, 'vtc:dscp:smtp': 10, 'vtc:dscp:sip': 46}
PART = '7z020clg400'
BROADCAST = b'\xff' * 6
GUEST_IP = '10.9.1.10'
BOARD = 'board0'


@pytest.fixture(scope='module')
def cloud(vm_host_cloud):
    return vm_host_cloud


@pytest.fixture(scope='module')
def admin(cloud):
    return CLI(cloud.openrc('admin'))


@pytest.fixture(scope='module')
def bitstreams(cloud, admin, tmp_path_factory):
    """{name: image id}: the vTC for rp1 and the loopback for rp0, public
    (two tenants boot them), and the fpga.region flavor.
    """
    manage = str(process.BIN / 'nova-fpga-manage')
    out = subprocess.run([manage, 'flavor', 'create'], env=admin.env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    work = tmp_path_factory.mktemp('chain-bitstreams')
    made = {}
    for name, region, module in (('chain-vtc', 'rp1', 'vtc'),
                                 ('chain-loopback', 'rp0', 'loopback')):
        path = work / ('%s.bit' % name)
        path.write_bytes(builder.build_partial(
            PART, name.replace('-', '_'), catalogue.module_id(module),
            REFERENCE.region(region).footprint))
        out = subprocess.run(
            [manage, 'image', 'create', name, str(path), '--shell-id',
             REFERENCE.shell_id, '--public'], env=admin.env,
            capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stdout + out.stderr
        made[name] = admin.json('image', 'show', name)['id']
    yield made
    for image_id in made.values():
        admin.run('image', 'delete', image_id, check=False)


class Tenant:
    """A tenant's networks, ports on the switch and servers, all removed
    again by clean_up().
    """

    def __init__(self, cloud, admin, user, prefix, subnet):
        self.cloud, self.admin = cloud, admin
        self.cli = CLI(cloud.openrc(user))
        self.prefix, self.subnet = prefix, subnet
        self.networks, self.servers, self.ports = {}, [], []
        self.namespaces, self.neutron_ports = [], []

    def network(self, name):
        net_id = self.cli.json('network', 'create', '%s-%s' % (
            self.prefix, name))['id']
        self.networks[name] = net_id
        self.cli.run('subnet', 'create', '--network', net_id, '--no-dhcp',
                     '--gateway', 'none', '--subnet-range', '%s.%d.0/24' % (
                         self.subnet, len(self.networks) - 1),
                     '%s-%s' % (self.prefix, name))
        return net_id

    def vlan(self, name):
        return self.admin.json('network', 'show', self.networks[name])[
            'provider:segmentation_id']

    def endpoint(self, name, vlan, mac=None):
        """A namespace on an access port of the switch in vlan (its
        interface with address mac): the interface's name.
        """
        switch = self.cloud.tor()
        space = 'nfpga-%s-%s' % (self.cloud._tag(), name)
        self.namespaces.append(space)
        interface = switch.add_port(name, netns=space)
        self.ports.append(name)
        if mac:
            subprocess.run(['ip', 'netns', 'exec', space, 'ip', 'link', 'set',
                            interface, 'address', mac], check=True)
        switch.allow_vlan(name, vlan, untagged=True)
        return space, interface

    def boot(self, name, image, nics, flavor='fpga.region', wait=True,
             properties=None):
        args = ['server', 'create', '--image', image, '--flavor', flavor]
        for nic in nics:
            args += ['--nic', nic]
        for key, value in sorted((properties or {}).items()):
            args += ['--property', '%s=%s' % (key, value)]
        out = self.cli.run(*args + (['--wait'] if wait else []) + [name],
                           check=False)
        server = self.admin.json('server', 'show', self.cli.json(
            'server', 'show', name)['id'])
        self.servers.append(server['id'])
        return server, out

    def delete(self, server_id):
        # by an admin: the demo cloud's nova sends no service token, which
        # neutron wants beside a member's to delete a compute port
        self.admin.run('server', 'delete', '--wait', server_id)
        self.servers.remove(server_id)

    def port(self, network_name, name):
        """A Neutron port on the network (no server's)."""
        port = self.cli.json('port', 'create', '--network',
                             self.networks[network_name], name)
        self.neutron_ports.append(port['id'])
        return port

    def clean_up(self):
        for server_id in list(self.servers):
            self.delete(server_id)
        switch = self.cloud.tor()
        for port in self.ports:
            switch.remove_port(port)
        for space in self.namespaces:
            netns.delete(space)
        if self.neutron_ports:
            self.cli.run('port', 'delete', *self.neutron_ports, check=False)
        if self.networks:
            self.cli.run('network', 'delete', *self.networks.values(),
                         check=False)
        self.ports, self.namespaces, self.neutron_ports = [], [], []
        self.networks = {}


@pytest.fixture
def tenants(cloud, admin):
    made = []

    def make(user, prefix, subnet):
        made.append(Tenant(cloud, admin, user, prefix, subnet))
        return made[-1]
    yield make
    for tenant in made:
        tenant.clean_up()


def _until(check, timeout=60, interval=0.5):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(interval)


def _gone(pid):
    """Whether process pid has ended (reaped here if it was our child)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
    try:
        with open('/proc/%d/stat' % pid) as stat:
            return stat.read().rsplit(')', 1)[1].split()[0] == 'Z'
    except FileNotFoundError:
        return True


def _bound_to_board(admin, server_id):
    """The server's ports bound to the board."""
    return [p['id'] for p in (admin.json('port', 'show', p['ID']) for p in
                              admin.json('port', 'list', '--device-id',
                                         server_id))
            if p['binding_host_id'] == BOARD]


def _board_vlans(cloud):
    """{VLAN: mode} the switch port facing the board carries."""
    return cloud.tor().ports()[BOARD]


def _region(cloud, name):
    return {r['name']: r for r in cloud.describe_boards()[BOARD][
        'regions']}[name]


def _guest_rx(cli, server_id):
    """The guest's latest eth0 received-frame count on its console (None
    before the first).
    """
    found = re.findall(r'%s eth0 (\d+)' % vm_image.RX_MARKER,
                       cli.run('console', 'log', 'show', server_id).stdout)
    return int(found[-1]) if found else None


def _settled_rx(cli, server_id, quiet=4):
    """The guest's count once it has not changed for quiet seconds (the
    guest prints it within a second of a change).
    """
    last, since = _guest_rx(cli, server_id), time.monotonic()
    deadline = since + 60
    while time.monotonic() - since < quiet and time.monotonic() < deadline:
        time.sleep(1)
        now = _guest_rx(cli, server_id)
        if now != last:
            last, since = now, time.monotonic()
    return last


def _model_policy(settings):
    """{class: DSCP} of the reference model for the vTC's settings, by the
    catalogue's settings (server property -> POLICY element).
    """
    return {s.register.labels.names[s.index]: settings[s.name]
            for s in VTC.settings if s.name in settings}


def _dscp(frame):
    """The DSCP of an untagged IPv4 frame."""
    assert frame[12:14] == b'\x08\x00', frame[12:14]
    return frame[15] >> 2


def _capture_frames():
    """The captures' frames, sent to the broadcast address."""
    frames = [frame for name in CAPTURES for frame in captures.read_frames(
        realdata_path('pcaps', 'ndpi', name))]
    return [BROADCAST + frame[6:] for frame in frames]


def test_a_vtc_between_tenant_networks_feeds_a_vm(cloud, admin, bitstreams,
                                                  tenants, report):
    switch = cloud.tor()
    bob = tenants('bob', 'chain', '10.9')
    vlan_in = (bob.network('in'), bob.vlan('in'))[1]
    vlan_out = (bob.network('out'), bob.vlan('out'))[1]
    assert _board_vlans(cloud) == {}

    # the source: a namespace with the address of a Neutron port on `in`
    source_port = bob.port('in', 'chain-source')
    source = bob.endpoint('src', vlan_in, mac=source_port['mac_address'])
    frames = _capture_frames()

    # the board's switch port carries no VLAN yet: nothing reaches it
    before = (switch.counters('src')['rx'], switch.counters(BOARD)['tx'])
    netns.send(*source, frames[:5])
    assert _until(lambda: switch.counters('src')['rx'] >= before[0] + 5)
    time.sleep(1.5)
    assert switch.counters(BOARD)['tx'] == before[1]

    # the VM on `out`, then the vTC on `in` and `out`
    guest = vm_image.register(
        cloud.keystone.session('admin'), vm_image.build(),
        names={'image': 'chain-vm'}, command_line='%s nfguest.ip=%s/24' % (
            vm_image.COMMAND_LINE, GUEST_IP))['image']
    try:
        vm, _ = bob.boot('chain-vm', guest, ['net-id=%s,v4-fixed-ip=%s' % (
            bob.networks['out'], GUEST_IP)], flavor=vmhost.FLAVOR['name'],
            wait=False)
        began = time.monotonic()
        # openstack server create --property vtc:dscp:sip=46 ...
        vtc, out = bob.boot('chain-vtc', bitstreams['chain-vtc'], [
            'net-id=%s' % bob.networks['in'],
            'net-id=%s' % bob.networks['out']], properties=POLICY)
        active = time.monotonic() - began
        assert vtc['status'] == 'ACTIVE', (out.stderr, vtc.get('fault'))
        assert vtc['OS-EXT-SRV-ATTR:hypervisor_hostname'] == BOARD
        ports = {p['network_id']: p for p in (
            admin.json('port', 'show', p['ID']) for p in admin.json(
                'port', 'list', '--device-id', vtc['id']))}
        assert {(p['binding_host_id'], p['binding_vif_type'])
                for p in ports.values()} == {(BOARD, network.VIF_TYPE)}
        # the switch driver allowed both VLANs on the board's port; the
        # agent steers them
        assert _board_vlans(cloud) == {vlan_in: 'tagged',
                                       vlan_out: 'tagged'}
        region = _region(cloud, 'rp1')
        assert region['network'] == network.RegionNetwork(
            network.PortVlan(ports[bob.networks['in']]['id'], vlan_in),
            network.PortVlan(ports[bob.networks['out']]['id'],
                             vlan_out)).to_dict()
        # the agent applied the tenant's policy
        assert region['settings'] == POLICY

        vm = _until(lambda: (lambda s: s['status'] != 'BUILD' and s)(
            admin.json('server', 'show', vm['id'])), timeout=180)
        assert vm['status'] == 'ACTIVE', vm.get('fault')
        assert vm['OS-EXT-SRV-ATTR:host'] == cloud.vm_host_name
        vm_port, = admin.json('port', 'list', '--device-id', vm['id'])
        vm_mac = vm_port['MAC Address']
        assert _until(lambda: _guest_rx(bob.cli, vm['id']) is not None,
                      timeout=120), bob.cli.run('console', 'log', 'show',
                                                vm['id']).stdout
        sink = netns.Sink(*bob.endpoint('sink', vlan_out))
        try:
            rx_before = _settled_rx(bob.cli, vm['id'])
            vm_link_before = switch.counters('%s.%d' % (cloud.VM_HOST_PORT,
                                                        vlan_out))['tx']
            netns.send(*source, frames)
            arrived = sink.wait_for(
                len(frames), accept=lambda f: f[6:12] != bytes.fromhex(
                    vm_mac.replace(':', '')))
        finally:
            sink.stop()

        # frame by frame what the reference model emits with that policy
        model = VtcModel(policy=_model_policy(POLICY))
        expected = [model.process(frame) for frame in frames]
        assert len(arrived) == len(expected)
        assert arrived == expected
        # DSCP-marked frames of each class of the policy
        marked = {}
        for sent, got in zip(frames, arrived):
            if got != sent:
                dscp = _dscp(got)
                marked[dscp] = marked.get(dscp, 0) + 1
        assert set(marked) == set(POLICY.values()), marked
        plane = cloud.wait_for_frames(BOARD, 'rp1', vtc['id'], len(frames))
        assert plane['frames_in'] == plane['frames_out'] == len(frames), \
            plane
        # the VM received every frame the vTC forwarded
        assert _until(lambda: (_guest_rx(bob.cli, vm['id']) or 0)
                      >= rx_before + len(frames), timeout=60)
        rx_after = _settled_rx(bob.cli, vm['id'])
        assert rx_after - rx_before == len(frames), (rx_before, rx_after)
        assert switch.counters('%s.%d' % (cloud.VM_HOST_PORT, vlan_out))[
            'tx'] >= vm_link_before + len(frames)
        # the vTC's console counters are the model's
        log = bob.cli.run('console', 'log', 'show', vtc['id']).stdout
        assert console_counters(log) == model_counters(model), log

        # deleting the vTC frees its ports' bindings and the board's VLANs
        bob.delete(vtc['id'])
        assert admin.json('port', 'list', '--device-id', vtc['id']) == []
        assert _board_vlans(cloud) == {}
        region = _region(cloud, 'rp1')
        assert (region['instance_uuid'], region['network']) == (None, None)
        report('VM host chain: vTC on %s/rp1 between VLAN %d and %d ACTIVE '
               'in %.1f s with policy %s; %d real frames replayed from a '
               'namespace came out as the model says (frames per DSCP '
               'marked: %s), the VM counted %d'
               % (BOARD, vlan_in, vlan_out, active, POLICY, len(frames),
                  marked, rx_after - rx_before))
    finally:
        admin.run('image', 'delete', guest, check=False)


@pytest.mark.beyond_ci
def test_a_second_tenant_on_the_board_has_its_own_vlans_and_frames(
        cloud, admin, bitstreams, tenants, report):
    bob = tenants('bob', 'iso-b', '10.10')
    alice = tenants('alice', 'iso-a', '10.11')
    for tenant in (bob, alice):
        tenant.network('in')
        tenant.network('out')
    bob.network('spare')
    vlans = {(t.prefix, name): t.vlan(name) for t in (bob, alice)
             for name in t.networks}
    assert len(set(vlans.values())) == len(vlans), vlans
    bob_in, bob_out = vlans[('iso-b', 'in')], vlans[('iso-b', 'out')]
    alice_in, alice_out = vlans[('iso-a', 'in')], vlans[('iso-a', 'out')]

    vtc, out = bob.boot('iso-vtc', bitstreams['chain-vtc'], [
        'net-id=%s' % bob.networks['in'], 'net-id=%s' % bob.networks['out']])
    assert vtc['status'] == 'ACTIVE', (out.stderr, vtc.get('fault'))

    # a build that fails after its ports were bound (the board refuses a
    # second region on bob's `in` VLAN; no other board to reschedule to)
    # leaves no binding and no VLAN on the board's switch port
    failed, _ = bob.boot('iso-refused', bitstreams['chain-loopback'], [
        'net-id=%s' % bob.networks['in'],
        'net-id=%s' % bob.networks['spare']])
    assert failed['status'] == 'ERROR', failed
    assert _bound_to_board(admin, failed['id']) == []
    assert _board_vlans(cloud) == {bob_in: 'tagged', bob_out: 'tagged'}
    assert _region(cloud, 'rp0')['network'] is None
    bob.delete(failed['id'])

    loop, out = alice.boot('iso-loopback', bitstreams['chain-loopback'], [
        'net-id=%s' % alice.networks['in'],
        'net-id=%s' % alice.networks['out']])
    assert loop['status'] == 'ACTIVE', (out.stderr, loop.get('fault'))
    assert loop['OS-EXT-SRV-ATTR:hypervisor_hostname'] == BOARD
    assert _board_vlans(cloud) == {vlan: 'tagged' for vlan in (
        bob_in, bob_out, alice_in, alice_out)}

    bob_source = bob.endpoint('bsrc', bob_in)
    alice_source = alice.endpoint('asrc', alice_in)
    bob_sink = netns.Sink(*bob.endpoint('bsink', bob_out))
    alice_sink = netns.Sink(*alice.endpoint('asink', alice_out))
    frames = _capture_frames()
    try:
        netns.send(*bob_source, frames[:40])
        assert len(bob_sink.wait_for(40)) == 40
        netns.send(*alice_source, frames[40:50])
        assert alice_sink.wait_for(10) == frames[40:50]
    finally:
        bob_sink.stop()
        alice_sink.stop()
    # neither saw the other's frames; alice's region took none of bob's
    assert bob_sink.frames == [VtcModel().process(f) for f in frames[:40]]
    assert alice_sink.frames == frames[40:50]
    plane = cloud.wait_for_frames(BOARD, 'rp0', loop['id'], 10)
    assert plane['frames_in'] == plane['frames_out'] == 10, plane

    alice.delete(loop['id'])
    assert _board_vlans(cloud) == {bob_in: 'tagged', bob_out: 'tagged'}
    bob.delete(vtc['id'])
    assert _board_vlans(cloud) == {}
    report('VM host chain: two tenants on %s (VLANs %d/%d and %d/%d) kept '
           'apart; a build refused after binding left no VLAN behind'
           % (BOARD, bob_in, bob_out, alice_in, alice_out))


@pytest.mark.beyond_ci
def test_an_agent_restart_restores_the_vlans_of_live_servers(
        cloud, admin, bitstreams, tenants, report):
    """The board's agent killed with two servers bound.  A delete
    meanwhile cannot unload: the server goes to ERROR (freeing nova's
    record would leave its region held with nobody to free it), but nova
    deletes its ports all the same, so the switch drops their VLAN.  The
    restarted agent programs the live vTC's VLANs again from its state
    file and the vTC forwards; the deleted server's VLAN is forgotten at
    nova-compute's next resource update (nova_fpga.virt.ports), and the
    delete repeated frees its region.
    """
    bob = tenants('bob', 'restart', '10.12')
    for name in ('in', 'out', 'solo'):
        bob.network(name)
    vlan_in, vlan_out, vlan_solo = (bob.vlan(n) for n in ('in', 'out',
                                                          'solo'))
    vtc, out = bob.boot('restart-vtc', bitstreams['chain-vtc'], [
        'net-id=%s' % bob.networks['in'], 'net-id=%s' % bob.networks['out']])
    assert vtc['status'] == 'ACTIVE', (out.stderr, vtc.get('fault'))
    solo, out = bob.boot('restart-solo', bitstreams['chain-loopback'], [
        'net-id=%s' % bob.networks['solo']])
    assert solo['status'] == 'ACTIVE', (out.stderr, solo.get('fault'))
    vtc_network = _region(cloud, 'rp1')['network']
    assert _board_vlans(cloud) == {vlan: 'tagged' for vlan in (
        vlan_in, vlan_out, vlan_solo)}

    # killed, as by a crash or a power cut of the board's CPU
    pid_file = cloud.dir / 'boards' / BOARD / 'agent.pid'
    pid = int(pid_file.read_text())
    os.killpg(pid, signal.SIGKILL)
    assert _until(lambda: _gone(pid), timeout=15)
    pid_file.unlink()
    admin.run('server', 'delete', '--wait', solo['id'], check=False)
    shown = admin.json('server', 'show', solo['id'])
    assert shown['status'] == 'ERROR', shown
    assert _bound_to_board(admin, solo['id']) == []
    assert _board_vlans(cloud) == {vlan_in: 'tagged', vlan_out: 'tagged'}
    client, transport = cloud.agent_client()
    try:
        cloud.board(BOARD).start(client)
    finally:
        transport.cleanup()
    assert _region(cloud, 'rp1')['network'] == vtc_network
    assert _until(lambda: _region(cloud, 'rp0')['network'] in (None, {
        network.INGRESS: None, network.EGRESS: None}), timeout=120), \
        _region(cloud, 'rp0')

    source = bob.endpoint('rsrc', vlan_in)
    sink = netns.Sink(*bob.endpoint('rsink', vlan_out))
    try:
        netns.send(*source, _capture_frames()[:20])
        assert len(sink.wait_for(20)) == 20
    finally:
        sink.stop()

    bob.delete(solo['id'])
    region = _region(cloud, 'rp0')
    assert (region['instance_uuid'], region['network']) == (None, None)
    assert _board_vlans(cloud) == {vlan_in: 'tagged', vlan_out: 'tagged'}
    assert _region(cloud, 'rp1')['network'] == vtc_network
    report('VM host chain: agent killed and restarted with two servers '
           'bound: the live vTC\'s VLANs %d/%d restored and forwarding; the '
           'server deleted meanwhile went ERROR, its VLAN %d off the switch '
           'at once and off the board at the next resource update, its '
           'region freed when deleted again' % (vlan_in, vlan_out,
                                                vlan_solo))
