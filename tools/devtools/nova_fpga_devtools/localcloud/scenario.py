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

"""The demo's scenario on a running demo cloud: the vTC deployed into an
emulated board's region with the real openstack CLI, real traffic through
it, what it classified, and the region free again.

Every step prints the command it runs, so a reader can repeat it by hand
after ``. <state dir>/openrc`` (admin) with the venv's bin directory on
PATH.
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import time

from nova_fpga import catalogue
from nova_fpga.contract import shell
from nova_fpga.contract import traits
from nova_fpga import conventions
import nova_fpga_devtools
from nova_fpga_devtools.localcloud import keystone as localkeystone
from nova_fpga_devtools.localcloud import process

ROOT = nova_fpga_devtools.SOURCE
#: where the demo looks for captures unless told otherwise
DEFAULT_PCAPS = nova_fpga_devtools.REALDATA / 'pcaps' / 'ndpi'
REALDATA_BITSTREAMS = nova_fpga_devtools.REALDATA / 'bitstreams'
#: the files the demo replays from a --pcaps directory (the reader takes both)
CAPTURE_PATTERNS = ('*.pcap', '*.pcapng')
SERVER = 'vtc1'
#: the policy by application the scenario sets on the vTC (server
#: properties: the module's tenant settings), and the captures that show it:
#: Facebook's TLS flows and another application's
APP_POLICY = (('vtc:dscp:app:facebook', 34), ('vtc:dscp:tls', 18))
APP_CAPTURES = tuple(nova_fpga_devtools.REALDATA / 'pcaps' / 'ndpi-tuning'
                     / name for name in ('facebook.pcap', 'snapchat.pcap'))
#: on a --vm-host cloud the vTC server's networks: (name, subnet), in
#: first; and the switch port the scenario's traffic enters by
NETWORKS = (('scenario-in', '10.78.0.0/24'), ('scenario-out', '10.78.1.0/24'))
SOURCE_PORT = 'scenario-src'
#: destination, source, EtherType
ETHERNET_HEADER = 14
#: the sample bitstream images: (name, module built for the region, the
#: region) or (name, None, a real partial's path in the project's data)
SAMPLES = (
    ('vtc-bitstream', 'vtc', 'rp1'),
    ('loopback-bitstream', 'loopback', 'rp0'),
    ('pr0-add-bitstream', None, 'royforu_pynq_pr/pr_0_add.bit'),
)


class ScenarioError(RuntimeError):
    pass


class Scenario:

    def __init__(self, stack, pcaps=DEFAULT_PCAPS, out=print):
        self.stack = stack
        self.pcaps = pathlib.Path(pcaps)
        self.out = out
        self.work = stack.dir / 'scenario'
        # What `. <state dir>/openrc` leaves: the caller's own OS_*
        # variables out, admin's cloud in the cloud's clouds.yaml.
        self.env = dict(localkeystone.without_client_variables(os.environ),
                        **stack.cloud_env('admin'))
        self.env['PATH'] = '%s:%s' % (process.BIN, self.env.get('PATH', ''))
        self.manifest = shell.load(shell.REFERENCE)

    # -- printing and running ----------------------------------------------

    def say(self, text):
        self.out('\n== %s' % text)

    def run(self, *argv, check=True, quiet=False):
        argv = [str(a) for a in argv]
        self.out('$ %s' % ' '.join(_quote(a) for a in argv))
        result = subprocess.run(argv, env=self.env, capture_output=True,
                                text=True, timeout=600)
        if not quiet and result.stdout.strip():
            self.out(result.stdout.rstrip())
        if result.returncode and check:
            raise ScenarioError('%s failed (exit %d): %s' % (
                argv[0], result.returncode, result.stderr.strip()))
        if result.returncode and result.stderr.strip():
            self.out(result.stderr.rstrip())
        return result

    def json(self, *argv):
        return json.loads(self.run(*argv, '-f', 'json', quiet=True).stdout)

    # -- steps ----------------------------------------------------------------

    def play(self):
        self.work.mkdir(parents=True, exist_ok=True)
        if not self.stack.clouds_file().exists():
            raise ScenarioError('no %s: run nova-fpga-demo up first'
                                % self.stack.clouds_file())
        self.out('Credentials: . %s   (admin; commands below are in %s)'
                 % (self.stack.credentials_file(), process.BIN))
        captures = sorted(path for pattern in CAPTURE_PATTERNS
                          for path in self.pcaps.glob(pattern))
        if not captures:
            raise ScenarioError('no captures (*.pcap, *.pcapng) in %s: pass '
                                '--pcaps DIR'
                                % self.pcaps)
        self.out('Captures from %s (--pcaps DIR for another directory)'
                 % self.pcaps)
        self.clean_up_earlier_run()
        self.samples()
        self.run('openstack', 'image', 'show', 'vtc-bitstream', '-c',
                 'properties', '-f', 'yaml')

        self.say('A bitstream for another device is refused, with the reason')
        self.import_image('wrong-device-bitstream', REALDATA_BITSTREAMS
                          / 'pynq_atk_2.5.6' / 'ov5640_lcd_7010.bit',
                          expect_refusal=True)

        nics = self.server_nics()
        self.say('The vTC as a server: placement and the scheduler pick a '
                 'board with a free, compatible region')
        self.run('openstack', 'server', 'create', '--image', 'vtc-bitstream',
                 '--flavor', conventions.FLAVOR_NAME, *nics,
                 SERVER, '--wait', quiet=True)
        try:
            self.run_server(captures)
        except BaseException:
            # a scenario that failed half-way leaves no server behind
            self.out('The scenario failed: deleting %s' % SERVER)
            self.run('openstack', 'server', 'delete', '--wait', SERVER,
                     check=False)
            raise

    def run_server(self, captures):
        """The vTC server's part: where it runs, real traffic (captures)
        through it, what it classified, its delete.
        """
        self.run('openstack', 'server', 'show', SERVER, '-c', 'status', '-c',
                 'OS-EXT-SRV-ATTR:hypervisor_hostname', '-c', 'flavor',
                 '-c', 'image')
        server = self.json('openstack', 'server', 'show', SERVER)
        board = server['OS-EXT-SRV-ATTR:hypervisor_hostname']
        region = self.stack.region_holding(board, server['id'])
        self.out('%s is %s on board %s, region %s'
                 % (SERVER, server['status'], board, region))
        self.run('nova-fpga-demo', '--state-dir', self.stack.dir, 'status')

        if self.stack.vm_host_name:
            replayed = self.replay_through_switch(board, captures)
        else:
            self.say('Real traffic into board %s\'s data interface, VLAN %d '
                     '(region %s)' % (board, self.manifest.region(region).vlan,
                                      region))
            replayed = self.run('nova-fpga-demo', '--state-dir',
                                self.stack.dir, 'replay', board, region,
                                *captures)
        sent = int(re.search(r'sent (\d+) frames', replayed.stdout).group(1))
        self.say('What the vTC classified')
        self.stack.wait_for_frames(board, region, server['id'], sent)
        self.run('openstack', 'console', 'log', 'show', SERVER)
        if not self.stack.vm_host_name:
            self.by_application(board, region)

        self.say('Delete the server: the region is free again')
        self.run('openstack', 'server', 'delete', '--wait', SERVER)
        if self.stack.region_holding(board, server['id']) is not None:
            raise ScenarioError('region %s of %s still holds %s after delete'
                                % (region, board, SERVER))
        self.run('nova-fpga-demo', '--state-dir', self.stack.dir, 'status')
        self.out('\nDone: %s was ACTIVE in %s/%s, classified the captures '
                 'and left the region free.' % (SERVER, board, region))

    def by_application(self, board, region):
        """A policy by application on the running vTC: server properties,
        written into the module at a hard reboot (with the application
        table the agent writes after every reset); then traffic of that
        application and another, and the DSCPs of what came back.
        """
        properties = [arg for name, dscp in APP_POLICY
                      for arg in ('--property', '%s=%d' % (name, dscp))]
        self.say('A policy by application: Facebook\'s flows (the TLS '
                 'server name, HTTP Host or DNS question names them) marked '
                 'with DSCP %d, other TLS flows with %d; server properties, '
                 'written into the vTC at a hard reboot'
                 % (APP_POLICY[0][1], APP_POLICY[1][1]))
        self.run('openstack', 'server', 'set', *properties, SERVER)
        self.run('openstack', 'server', 'reboot', '--hard', '--wait',
                 SERVER)
        self.run('openstack', 'server', 'show', SERVER, '-c', 'status',
                 '-c', 'properties')
        self.say('Facebook\'s and Snapchat\'s TLS traffic into the vTC: '
                 'what comes back is marked by application')
        self.run('nova-fpga-demo', '--state-dir', self.stack.dir, 'replay',
                 board, region, *APP_CAPTURES)
        self.say('What the vTC counted by application (the replay waited for '
                 'every frame to come back)')
        self.run('openstack', 'console', 'log', 'show', SERVER)

    def samples(self, keep=False):
        """The FPGA region flavor and the sample bitstream images (the
        vTC, the loopback, a real partial of another design), as an
        operator makes them; what ``nova-fpga-demo up`` leaves on a new
        cloud.  keep: an image of that name already active stays (a cloud
        resumed by up), else it is imported.
        """
        self.work.mkdir(parents=True, exist_ok=True)
        self.say('The FPGA region flavor')
        self.run('nova-fpga-manage', 'flavor', 'create')
        active = {image['Name'] for image in self.json(
            'openstack', 'image', 'list', '--status', 'active')} \
            if keep else set()
        wanted = [name for name, _, _ in SAMPLES if name not in active]
        if not wanted:
            self.out('The sample bitstream images are there: %s'
                     % ', '.join(name for name, _, _ in SAMPLES))
            return
        built = {}
        self.say('Bitstreams, built for the reference shell\'s regions as a '
                 'shell build would produce them')
        for name, module, region in SAMPLES:
            if name in wanted and module:
                built[name] = self.build(module, region,
                                         catalogue.module_id(module))
            elif name in wanted:
                built[name] = REALDATA_BITSTREAMS / region
        self.say('Glance inspects each bitstream on import and derives its '
                 'properties and placement traits')
        for name in wanted:
            self.import_image(name, built[name])

    def server_nics(self):
        """The vTC server's --nic options: none where each board's data
        interface is a veth the scenario replays into; on a --vm-host
        cloud, where frames reach a board only through the top-of-rack
        switch on a tenant VLAN, the networks in and out (made once).
        """
        if not self.stack.vm_host_name:
            return ['--nic', 'none']
        self.say('Two networks for the vTC: on this cloud frames reach a '
                 'board through the top-of-rack switch, on the VLAN of a '
                 'network its server has a port on')
        existing = {network['Name'] for network in self.json(
            'openstack', 'network', 'list')}
        for name, cidr in NETWORKS:
            if name not in existing:
                self.run('openstack', 'network', 'create', name)
                self.run('openstack', 'subnet', 'create', '--network', name,
                         '--subnet-range', cidr, '--no-dhcp', name)
        return [arg for name, _ in NETWORKS
                for arg in ('--nic', 'net-id=%s' % name)]

    def replay_through_switch(self, board, captures):
        """The captures into an access port of the network in on the
        switch (a namespace of its own, removed after), to the broadcast
        address; the switch carries them to the board on in's VLAN.
        """
        network = self.json('openstack', 'network', 'show', NETWORKS[0][0])
        vlan = network['provider:segmentation_id']
        # the access port is untagged: a frame is the MTU and its header
        max_frame = network['mtu'] + ETHERNET_HEADER
        switch = self.stack.tor()
        space = 'nfpga-%s-src' % self.stack._tag()
        self.say('Real traffic into an access port of network %s (VLAN %d) '
                 'on the top-of-rack switch, which carries it to board %s'
                 % (NETWORKS[0][0], vlan, board))
        interface = switch.add_port(SOURCE_PORT, netns=space)
        try:
            switch.allow_vlan(SOURCE_PORT, vlan, untagged=True)
            return self.run('ip', 'netns', 'exec', space, sys.executable,
                            '-m', 'nova_fpga_devtools.localcloud.traffic',
                            '--broadcast', '--max-frame', str(max_frame),
                            interface, *captures)
        finally:
            switch.remove_port(SOURCE_PORT)
            subprocess.run(['ip', 'netns', 'del', space], check=False)

    def clean_up_earlier_run(self):
        servers = self.json('openstack', 'server', 'list', '--name',
                            '^%s$' % SERVER)
        if servers:
            self.run('openstack', 'server', 'delete', '--wait', SERVER)
        for image in self.json('openstack', 'image', 'list'):
            if image['Name'].endswith('-bitstream'):
                self.run('openstack', 'image', 'delete', image['ID'])

    def build(self, name, region, module_id):
        self.work.mkdir(parents=True, exist_ok=True)
        footprint = self.work / ('%s.footprint.json' % region)
        footprint.write_text(json.dumps(
            self.manifest.region(region).footprint.to_dict()))
        path = self.work / ('%s_%s.bit' % (name, region))
        self.run('nova-fpga-bitstream', 'build', '--part',
                 self.manifest.part.removeprefix('xc').split('-')[0],
                 '--design',
                 '%s_%s' % (name, region), '--module-id', '0x%08X' % module_id,
                 '--footprint', footprint, '-o', path)
        return path

    def import_image(self, name, path, expect_refusal=False, timeout=120):
        image = self.json(
            'openstack', 'image', 'create', name, '--file', path,
            '--disk-format', conventions.IMAGE_DISK_FORMAT,
            '--container-format', conventions.IMAGE_CONTAINER_FORMAT,
            '--import', '--public', '--property', '%s=%s' % (
                conventions.IMAGE_SHELL_PROPERTY, self.manifest.shell_id))
        deadline = time.monotonic() + timeout
        while True:
            shown = self.json('openstack', 'image', 'show', image['id'])
            props = shown.get('properties') or {}
            refusal = props.get(traits.IMPORT_ERROR_PROPERTY)
            if shown['status'] == 'active' or refusal:
                break
            if time.monotonic() > deadline:
                raise ScenarioError('image %s still %s after %d s'
                                    % (name, shown['status'], timeout))
            time.sleep(0.5)
        if refusal:
            self.out('%s refused: %s' % (name, refusal))
            if not expect_refusal:
                raise ScenarioError('Glance refused %s: %s' % (name, refusal))
        else:
            self.out('%s active: %s' % (name, ', '.join(
                '%s=%s' % (k, props[k]) for k in sorted(props)
                if k.startswith(('fpga_part', 'fpga_partial',
                                 'fpga_module_id', 'fpga_footprint')))))
            if expect_refusal:
                raise ScenarioError('Glance accepted %s' % name)


def _quote(arg):
    return "'%s'" % arg if any(c in arg for c in ' ;&|*') else arg


def samples(stack):
    """``nova-fpga-demo up``'s last step: the flavor and sample images."""
    try:
        Scenario(stack).samples(keep=True)
    except (ScenarioError, process.ServiceError) as exc:
        print('demo: the flavor and sample images: %s' % exc,
              file=sys.stderr)
        return 1
    return 0


def main(stack, pcaps):
    try:
        Scenario(stack, pcaps).play()
    except (ScenarioError, process.ServiceError) as exc:
        print('demo: %s' % exc, file=sys.stderr)
        return 1
    return 0
