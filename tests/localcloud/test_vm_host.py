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

"""A heterogeneous demo cloud: a board and an ordinary compute host (nova's
libvirt driver, virt_type = qemu) on tenant VLANs of the physical network
fpga, cabled to the emulated top-of-rack switch.

A cloud of its own (vm_host=True, one board: the package's vm_host_cloud,
shared with test_vm_host_chain), driven with the real openstack CLI: the
tiny guest (a Debian kernel and a busybox initramfs, localcloud.vm_image)
boots on a tenant VLAN network, its port bound by neutron's macvtap agent;
a namespace on the switch's access port of that VLAN pings it; delete
leaves no domain, macvtap device or port; down leaves no process,
namespace or link.
"""
import json
import re
import subprocess
import time

import pytest

from nova_fpga_devtools.localcloud import neutron as localneutron
from nova_fpga_devtools.localcloud import process
from nova_fpga_devtools.localcloud import vm_image
from nova_fpga_devtools.localcloud import vmhost
from tests.conftest import REPORT
from tests.localcloud.conftest import links
from tests.services import CLI

GUEST_IP = '10.77.0.10'
PROBE_IP = '10.77.0.20'
PROBE_NETNS = 'nfpga-test-probe'


@pytest.fixture(scope='module')
def cloud(vm_host_cloud):
    return vm_host_cloud


@pytest.fixture(scope='module')
def admin(cloud):
    return CLI(cloud.openrc('admin'))


def test_the_cloud_holds_the_board_and_the_vm_host(cloud, admin):
    services = {(svc['Binary'], svc['Host']): svc['State']
                for svc in admin.json('compute', 'service', 'list')}
    assert services[('nova-compute', 'vm-host')] == 'up'
    assert services[('nova-compute', 'zynq-proxy')] == 'up'
    hypervisors = {hyp['Hypervisor Hostname']: hyp['Hypervisor Type']
                   for hyp in admin.json('hypervisor', 'list')}
    assert hypervisors.pop('board0') != 'QEMU'
    assert list(hypervisors.values()) == ['QEMU']
    agents = admin.json('network', 'agent', 'list')
    assert [(agent['Agent Type'], agent['Host'], agent['Alive'])
            for agent in agents] == [('Macvtap agent', 'vm-host', True)]
    status = {row[0]: row[1] for row in cloud.status()[0]}
    for name in ('tor/tor', 'vm-host/libvirt/libvirtd',
                 'vm-host/libvirt/virtlogd', 'vm-host/nova-compute',
                 'neutron/neutron-macvtap-agent',
                 'neutron/neutron-rpc-server'):
        assert status[name] == 'running', status


def test_tenant_networks_are_vlans_of_the_physical_network(cloud):
    alice = CLI(cloud.openrc('alice'))
    network = alice.json('network', 'create', 'vlan-check')
    try:
        shown = CLI(cloud.openrc('admin')).json('network', 'show',
                                                network['id'])
        assert shown['provider:network_type'] == 'vlan'
        assert shown['provider:physical_network'] == \
            localneutron.PHYSICAL_NETWORK
        first, last = localneutron.VLAN_RANGE
        assert first <= shown['provider:segmentation_id'] <= last
    finally:
        alice.run('network', 'delete', network['id'])


def _guest_image(cloud):
    """The tiny guest with GUEST_IP on its kernel command line."""
    session = cloud.keystone.session('admin')
    return vm_image.register(
        session, vm_image.build(), names={'image': 'tiny-vm-test'},
        command_line='%s nfguest.ip=%s/24' % (vm_image.COMMAND_LINE,
                                              GUEST_IP))['image']


def _until(check, timeout=60, interval=0.5):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, 'timed out'
        time.sleep(interval)


# beyond CI (make test-chain): in CI the chain test boots a VM on tenant
# VLANs and counts every frame the vTC sends it, the same VM-on-a-VLAN path
@pytest.mark.beyond_ci
def test_a_tiny_vm_on_a_tenant_vlan_answers_from_the_switch(cloud, admin):
    alice = CLI(cloud.openrc('alice'))
    image = _guest_image(cloud)
    network = alice.json('network', 'create', 'tenant-a')
    alice.run('subnet', 'create', '--network', network['id'],
              '--subnet-range', '10.77.0.0/24', '--no-dhcp', '--gateway',
              'none', 'tenant-a-v4')
    vlan = admin.json('network', 'show', network['id'])[
        'provider:segmentation_id']
    switch = cloud.tor()
    began = time.monotonic()
    created = alice.run('server', 'create', '--image', image, '--flavor',
                        vmhost.FLAVOR['name'], '--nic',
                        'net-id=%s,v4-fixed-ip=%s' % (network['id'],
                                                      GUEST_IP),
                        '--wait', 'tiny1', check=False)
    active = time.monotonic() - began
    server = admin.json('server', 'show', alice.json(
        'server', 'show', 'tiny1')['id'])
    try:
        assert server['status'] == 'ACTIVE', '%s\n%s\n%s' % (
            created.stderr, server.get('fault'), process.log_tail(
                cloud.vm_compute(cloud.keystone).process.log, 60))
        shown = admin.json('server', 'show', server['id'])
        assert shown['OS-EXT-SRV-ATTR:host'] == 'vm-host'
        domain = shown['OS-EXT-SRV-ATTR:instance_name']
        assert domain.startswith(cloud.domain_prefix())

        # its port: ACTIVE, bound on the VM host by the macvtap driver
        # on the network's VLAN segment
        port, = admin.json('port', 'list', '--device-id', server['id'])
        port = admin.json('port', 'show', port['ID'])
        assert port['status'] == 'ACTIVE'
        assert port['binding_host_id'] == 'vm-host'
        assert port['binding_vif_type'] == 'macvtap'
        details = port['binding_vif_details']
        assert details['vlan'] == vlan
        assert details['physical_interface'] == switch.outer_if(
            cloud.VM_HOST_PORT)
        macvtaps = [link for link in links()
                    if link.get('address') == port['mac_address']
                    and link['ifname'].startswith('macvtap')]
        assert len(macvtaps) == 1
        assert macvtaps[0].get('link') == details['macvtap_source']

        # the guest's console: the marker, eth0 up with its address
        console = _until(lambda: (lambda text: vm_image.MARKER in text
                                  and text)(alice.run(
                                      'console', 'log', 'show',
                                      server['id']).stdout))
        booted = time.monotonic() - began
        line = re.search(r'%s eth0 (\S+) (\S+) (\S+)' % vm_image.MARKER,
                         console)
        assert line.groups() == (port['mac_address'], GUEST_IP + '/24',
                                 'up'), console

        # a namespace on an access port of the VLAN reaches the guest
        probe = switch.add_port('probe', netns=PROBE_NETNS)
        try:
            switch.allow_vlan('probe', vlan, untagged=True)
            subprocess.run(['ip', 'netns', 'exec', PROBE_NETNS, 'ip', 'addr',
                            'add', PROBE_IP + '/24', 'dev', probe],
                           check=True)
            before = switch.counters('%s.%d' % (cloud.VM_HOST_PORT, vlan))
            ping = subprocess.run(
                ['ip', 'netns', 'exec', PROBE_NETNS, 'busybox', 'ping',
                 '-c', '3', '-W', '3', GUEST_IP], capture_output=True,
                text=True, timeout=60)
            assert ping.returncode == 0, ping.stdout + ping.stderr
            after = switch.counters('%s.%d' % (cloud.VM_HOST_PORT, vlan))
            assert after['tx'] > before['tx'] and after['rx'] > before['rx']
            # another VLAN's access port does not
            switch.allow_vlan('probe', vlan + 1, untagged=True)
            ping = subprocess.run(
                ['ip', 'netns', 'exec', PROBE_NETNS, 'busybox', 'ping',
                 '-c', '2', '-W', '1', GUEST_IP], capture_output=True,
                text=True, timeout=60)
            assert ping.returncode != 0
        finally:
            switch.remove_port('probe')
            subprocess.run(['ip', 'netns', 'del', PROBE_NETNS])

        # what the VM host costs: its processes and the guest's QEMU
        qemu = int((cloud.libvirt().qemu_pid_file(domain)).read_text())
        pids = cloud.pids()
        extra = {name: sum(process.rss_kib(pid) for pid in pids[name])
                 for name in cloud.VM_HOST_SERVICES}
        extra['qemu (the guest, %d MB)' % vmhost.FLAVOR['ram']] = \
            process.rss_kib(qemu)
        REPORT.append(
            'VM host: server create --wait ACTIVE in %.1f s, the guest\'s '
            'marker on its console %.1f s after create; extra memory %.0f '
            'MB RSS (%s)' % (active, booted, sum(extra.values()) / 1024,
                             ', '.join('%s %.0f MB' % (name, kib / 1024)
                                       for name, kib in extra.items())))
    finally:
        alice.run('server', 'delete', '--wait', server['id'])
    # nothing of it is left: domain, macvtap device, port
    assert cloud.libvirt().domains(cloud.domain_prefix()) == []
    assert not [link for link in links()
                if link.get('address') == port['mac_address']]
    assert admin.json('port', 'list', '--device-id', server['id']) == []
    alice.run('network', 'delete', network['id'])
    admin.run('image', 'delete', image)


def test_board_flavors_and_vm_images_do_not_mix(cloud, admin):
    """The tiny image with the boards' region flavor has no host: boards
    take bitstreams only, the VM host no region (ZynqFilter).
    """
    flavor = subprocess.run(
        [str(process.BIN / 'nova-fpga-manage'), 'flavor', 'create'],
        env=admin.env, capture_output=True, text=True, timeout=120)
    assert flavor.returncode == 0, flavor.stderr
    image = cloud.state['vm_images']['image']
    out = admin.run('server', 'create', '--image', image, '--flavor',
                    'fpga.region', '--nic', 'none', '--wait', 'mixed',
                    check=False)
    assert out.returncode != 0
    server = admin.json('server', 'show', 'mixed')
    assert server['status'] == 'ERROR'
    assert 'No valid host' in json.dumps(server['fault'])
    admin.run('server', 'delete', '--wait', server['id'])
