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

"""The whole demo cloud on 127.0.0.1: start in order, resume, status, stop.

MariaDB and RabbitMQ (configured or private), keystone, glance-api with the
bitstream store, placement, neutron-server, emulated boards (one agent
process each) and nova (conductor, scheduler, compute with the Zynq driver,
api).  Everything the cloud owns lives under one state directory; what
``up`` chose the first time (ports, servers, names, passwords) is kept in
its stack.json, so a second ``up`` resumes the same cloud, starting only
what is not running, and ``down`` stops exactly what has a pid file there.

Usable from Python as well as from ``nova-fpga-demo``: a test fixture
creates a Stack on a temporary directory, calls up() and down().
"""
import hashlib
import json
import os
import pathlib
import secrets
import shutil
import sys
import time
import urllib.error
import urllib.request

from keystoneauth1 import exceptions as ks_exceptions
from oslo_config import cfg
import oslo_messaging as messaging
from oslo_messaging import conffixture as messaging_conffixture

from nova_fpga.cmd import manage
from nova_fpga import conf as nova_fpga_conf
from nova_fpga.contract import reports
from nova_fpga import deployment
from nova_fpga.virt import agents as nova_agents
import nova_fpga_devtools
from nova_fpga_devtools.localcloud import barbican as localbarbican
from nova_fpga_devtools.localcloud import boards as localboards
from nova_fpga_devtools.localcloud import datalink
from nova_fpga_devtools.localcloud import glance as localglance
from nova_fpga_devtools.localcloud import keystone as localkeystone
from nova_fpga_devtools.localcloud import mariadb
from nova_fpga_devtools.localcloud import neutron as localneutron
from nova_fpga_devtools.localcloud import nova as localnova
from nova_fpga_devtools.localcloud import placement as localplacement
from nova_fpga_devtools.localcloud import process
from nova_fpga_devtools.localcloud import rabbitmq
from nova_fpga_devtools.localcloud import tls
from nova_fpga_devtools.localcloud import tor as localtor
from nova_fpga_devtools.localcloud import vm_image
from nova_fpga_devtools.localcloud import vmhost
from nova_fpga_devtools import pki
from nova_fpga_emulator import hdl_bridge
from nova_fpga_emulator import toolchain

#: <checkout>/.state/demo, ignored by git.
DEFAULT_STATE_DIR = nova_fpga_devtools.SOURCE / \
    '.state' / 'demo'
#: Each service's databases (keystone and glance stay on SQLite).
DATABASES = ('nova_api', 'nova_cell0', 'nova', 'placement', 'neutron')


class Stack:
    """One demo cloud in state_dir."""

    def __init__(self, state_dir=DEFAULT_STATE_DIR, database_url=None,
                 transport_url=None, boards=2, board_options=None,
                 die_with_parent=False, output=None, board_backends=None,
                 vm_host=False, signed_only_boards=()):
        """database_url / transport_url: servers to use when they answer
        (else private ones are started); they, like boards, only matter on
        the first up: a resumed cloud keeps what it chose.  Progress lines
        go to output (a text stream; None: sys.stdout).  board_options:
        {board: {(section, option): value}} over that board's agent config,
        applied whenever the agent starts.  board_backends: {board: one of
        boards.BACKENDS} (others sim); like boards, only the first up's
        count.  vm_host: the cloud also has an ordinary compute host
        (nova's libvirt driver, neutron's macvtap agent, localcloud.vmhost)
        and the emulated top-of-rack switch; like boards, only the first
        up's choice.  signed_only_boards: boards whose agents load only
        signed bitstreams ([agent] require_signed_bitstreams); like
        boards, only the first up's.  Every board trusts the cloud's
        bitstream-signing CA (signing_authority).
        """
        self.dir = pathlib.Path(state_dir).resolve()
        self.state_file = self.dir / 'stack.json'
        self.database_url = database_url
        self.transport_url = transport_url
        self.board_count = boards
        self.board_options = dict(board_options or {})
        self.board_backends = dict(board_backends or {})
        self.signed_only_boards = list(signed_only_boards or ())
        self.die_with_parent = die_with_parent
        self.vm_host = vm_host
        self.output = output
        self.state = None
        #: {step: seconds} of the last up().
        self.timings = {}

    # -- what the cloud is made of, from stack.json ------------------------

    def _load_state(self):
        if self.state is None and self.state_file.exists():
            self.state = json.loads(self.state_file.read_text())
        return self.state

    def _save_state(self):
        self.dir.mkdir(parents=True, exist_ok=True)
        partial = self.state_file.with_suffix('.tmp')
        partial.write_text(json.dumps(self.state, indent=2, sort_keys=True))
        os.replace(partial, self.state_file)

    def _new_state(self):
        ident = secrets.token_hex(3)
        names = ('keystone', 'barbican', 'glance', 'placement', 'neutron',
                 'nova',
                 'mariadb', 'rabbitmq', 'rabbitmq_dist', 'epmd',
                 'rabbitmq_tls', 'agents_rabbitmq', 'agents_rabbitmq_dist',
                 'agents_epmd', 'agents_rabbitmq_tls')
        ports = {}
        for name in names:
            port = process.free_port()
            while port in ports.values():
                port = process.free_port()
            ports[name] = port
        boards = ['board%d' % index for index in range(self.board_count)]
        for board, backend in self.board_backends.items():
            if board not in boards or backend not in localboards.BACKENDS:
                raise ValueError('board backend %s=%s: boards are %s, '
                                 'backends %s' % (
                                     board, backend, ', '.join(boards),
                                     ', '.join(localboards.BACKENDS)))
        unknown = sorted(set(self.signed_only_boards) - set(boards))
        if unknown:
            raise ValueError('signed-only boards %s: boards are %s' % (
                ', '.join(unknown), ', '.join(boards)))
        return {
            'board_backends': self.board_backends,
            'signed_only_boards': self.signed_only_boards,
            'id': ident,
            'ports': ports,
            'boards': boards,
            'database': None,
            'rabbitmq': None,
            'databases': {name: 'nf%s_%s' % (ident, name)
                          for name in DATABASES},
            'vhosts': {'nova': 'nova_fpga_%s_nova' % ident,
                       'agents': 'nova_fpga_%s_agents' % ident},
            # RabbitMQ users: nova's, nova-compute's on the agents' bus,
            # and one per board.
            'mq_users': {name: ['%s-%s' % (name, ident),
                                secrets.token_hex(12)]
                         for name in ['nova', 'zynq-proxy'] + boards},
            # the agents' bus: TLS with client certificates (a private
            # node: a configured one has no TLS listener of ours), each
            # board on a vhost of its own with board_permissions
            'agents_bus': {'tls': True, 'vhost_per_board': True},
            # nova-compute's host name of the VM host (None: boards only)
            'vm_host': 'vm-host' if self.vm_host else None,
        }

    @property
    def boards(self):
        return self.state['boards']

    @property
    def keystone(self):
        return localkeystone.Keystone(
            self.dir,
            self.state['ports']['keystone'],
            die_with_parent=self.die_with_parent,
        )

    def _mq_url(self, user, vhost):
        login, password = self.state['mq_users'][user]
        host, port = self.state['rabbitmq']['host'], \
            self.state['rabbitmq']['port']
        if vhost == 'agents' and self.bus.get('tls'):
            host, port = '127.0.0.1', self._agents_tls_port()
        name = self.state['vhosts'][vhost]
        if vhost == 'agents' and user in self.boards and \
                self.bus.get('vhost_per_board'):
            name = deployment.board_vhost(name, user)
        return rabbitmq.Broker(host, port, None).url(login, password, name)

    # -- the agents' bus ---------------------------------------------------

    @property
    def bus(self):
        """{'tls', 'vhost_per_board'} of the agents' bus (a cloud made
        before they existed has neither).
        """
        return self.state.get('agents_bus') or {}

    def _agents_tls_port(self):
        ports = self.state['ports']
        return ports['rabbitmq_tls'] if self.state['rabbitmq']['private'] \
            else ports['agents_rabbitmq_tls']

    def authority(self):
        """The agents' bus's private CA (state_dir/tls)."""
        return tls.Authority(self.dir / 'tls')

    def tls_files(self, name):
        """name's deployment.Tls on the agents' bus (None without TLS):
        'rabbitmq' (the node), 'nova-compute', or a board.
        """
        if not self.bus.get('tls'):
            return None
        return self.authority().files(name, server=name == 'rabbitmq')

    def _agents_rabbitmq(self):
        """The private node of the agents' bus when nova's is a configured
        one (None when it is the cloud's private node, or without TLS).
        """
        if self.state['rabbitmq']['private'] or not self.bus.get('tls'):
            return None
        ports = self.state['ports']
        return rabbitmq.PrivateRabbitMQ(
            self.dir / 'agents-bus', ports['agents_rabbitmq'],
            ports['agents_rabbitmq_dist'], ports['agents_epmd'],
            die_with_parent=self.die_with_parent,
            tls_port=ports['agents_rabbitmq_tls'],
            tls=self.tls_files('rabbitmq'))

    def _agents_broker(self):
        private = self._agents_rabbitmq()
        return private.broker if private is not None else self._broker()

    def bus_summary(self):
        """What status says of the agents' bus: [line]."""
        if not self.bus.get('tls'):
            return ['agents\' bus: no TLS, one vhost for all boards (a '
                    'cloud made before per-board vhosts; down --purge and '
                    'up again for them)']
        vhost = self.state['vhosts']['agents']
        lines = ['agents\' bus: TLS on 127.0.0.1:%d (private CA %s; client '
                 'certificates verified: verify_peer, fail_if_no_peer_cert)'
                 % (self._agents_tls_port(), self.authority().ca_file)]
        for board in self.boards:
            login = self.state['mq_users'][board][0]
            lines.append('  %s: user %s on vhost %s (rights: its own RPC '
                         'queues and reports only), certificate %s' % (
                             board, login,
                             deployment.board_vhost(vhost, board),
                             self.tls_files(board).cert_file))
        return lines

    def _db_url(self, name):
        return mariadb.database_url(self.state['database']['url'],
                                    self.state['databases'][name]) + \
            '?charset=utf8'

    def _private_mariadb(self):
        return mariadb.PrivateMariaDB(self.dir, self.state['ports']['mariadb'],
                                      die_with_parent=self.die_with_parent)

    def _private_rabbitmq(self):
        ports = self.state['ports']
        return rabbitmq.PrivateRabbitMQ(
            self.dir, ports['rabbitmq'], ports['rabbitmq_dist'], ports['epmd'],
            die_with_parent=self.die_with_parent,
            tls_port=ports.get('rabbitmq_tls'),
            tls=self.tls_files('rabbitmq'))

    def _broker(self):
        if self.state['rabbitmq']['private']:
            return self._private_rabbitmq().broker
        return rabbitmq.configured(self.state['rabbitmq']['url'])

    def services(self, keystone):
        """{name: service object} of the OpenStack services, in start order."""
        barbican = localbarbican.Barbican(
            keystone, self.dir, self._port('barbican'),
            die_with_parent=self.die_with_parent)
        glance = self._glance(keystone)
        placement = localplacement.Placement(
            keystone, self.dir, self._db_url('placement'),
            self.state['ports']['placement'],
            die_with_parent=self.die_with_parent)
        neutron = localneutron.Neutron(
            keystone, self.dir, self._db_url('neutron'),
            self.state['ports']['neutron'], self._mq_url('nova', 'nova'),
            boards=self.boards, die_with_parent=self.die_with_parent,
            switch_dir=self.tor().dir if self.vm_host_name else None)
        return {'barbican-api': barbican, 'glance-api': glance,
                'placement-api': placement, 'neutron-server': neutron}

    def _port(self, name):
        """The cloud's port for a service, chosen now (and kept) if the
        cloud's state predates the service.
        """
        ports = self.state['ports']
        if name not in ports:
            port = process.free_port()
            while port in ports.values():
                port = process.free_port()
            ports[name] = port
            self._save_state()
        return ports[name]

    def _glance(self, keystone):
        """glance-api as nova-fpga deploys it (localcloud.glance)."""
        return localglance.bitstream_glance(
            keystone, self.dir, self.state.get('builders_project') or '',
            port=self.state['ports']['glance'],
            die_with_parent=self.die_with_parent,
            key_manager=localbarbican.castellan_options(keystone))

    def nova(self, keystone):
        return localnova.Nova(
            keystone, self.dir,
            {'api': self._db_url('nova_api'),
             'cell0': self._db_url('nova_cell0'),
             'cell1': self._db_url('nova')},
            self._mq_url('nova', 'nova'), self.boards,
            self._mq_url('zynq-proxy', 'agents'),
            self.state['ports']['nova'], die_with_parent=self.die_with_parent,
            agents_bus={'vhost_per_board': bool(
                self.bus.get('vhost_per_board')),
                'tls': self.tls_files('nova-compute')},
            instance_name_template=self.domain_prefix() + '%08x',
            key_manager=localbarbican.castellan_options(keystone))

    def data_link(self, name):
        """The board's data interface: a veth pair, board end in its netns
        (its peer on the host, or with a VM host the switch's port named
        after the board: cable_board).
        """
        tag = hashlib.sha1(str(self.dir).encode()).hexdigest()[:6]
        return datalink.DataLink(self.boards.index(name), tag)

    def cable_board(self, name):
        """The board's data interface, made unless it exists: with a VM
        host a cable to the top-of-rack switch's port named after the
        board, which carries no VLAN until the switch driver allows one
        (neutron binding a port to the board); else a veth pair whose peer
        the host keeps (the demo replays into it).
        """
        link = self.data_link(name)
        if self.vm_host_name:
            self.tor().add_port(name, netns=link.netns, outer=link.board_if)
        else:
            link.create()

    @property
    def vm_host_name(self):
        """nova-compute's host name of the VM host (None: no VM host)."""
        return self.state.get('vm_host')

    def _tag(self):
        return hashlib.sha1(str(self.dir).encode()).hexdigest()[:6]

    def tor(self):
        """The emulated top-of-rack switch (localcloud.tor)."""
        return localtor.Tor(self._tag(), self.dir / 'tor')

    def tor_process(self):
        switch = self.tor()
        return process.Process('tor', switch.command(), switch.dir,
                               die_with_parent=self.die_with_parent)

    def libvirt(self):
        return vmhost.Libvirt(self.dir, die_with_parent=self.die_with_parent)

    def domain_prefix(self):
        """The start of the names of the VM host's libvirt domains."""
        return 'nf%s-' % self.state['id']

    def vm_compute(self, keystone):
        return vmhost.ComputeHost(
            self.nova(keystone), self.vm_host_name, self.libvirt(),
            self.domain_prefix(), die_with_parent=self.die_with_parent)

    def macvtap_agent(self):
        return localneutron.MacvtapAgent(
            self.dir, self.vm_host_name,
            self.tor().outer_if(self.VM_HOST_PORT),
            self._mq_url('nova', 'nova'),
            die_with_parent=self.die_with_parent)

    #: The VM host's port on the switch.
    VM_HOST_PORT = 'vm'
    #: The processes the VM host adds (as pids() names them).
    VM_HOST_SERVICES = ('tor/tor', 'vm-host/libvirt/virtlogd',
                        'vm-host/libvirt/libvirtd', 'vm-host/nova-compute',
                        'neutron/neutron-macvtap-agent')

    def _start_switch(self):
        from neutron.plugins.ml2.drivers.macvtap import macvtap_common
        switch = self.tor().create()
        self.tor_process().start()
        first, last = localneutron.VLAN_RANGE
        switch.vm_host_link(range(first, last + 1), port=self.VM_HOST_PORT,
                            name=macvtap_common.get_vlan_device_name)

    @property
    def signing_authority_dir(self):
        return self.dir / 'signing-ca'

    def signing_authority(self):
        """The cloud's bitstream-signing CA (pki.Authority: ca.pem, ca.key),
        made by openssl at the first up: every board's trust store holds
        its certificate, and it issues the certificates tenants sign
        bitstream images with (doc/source/user/signing.rst).
        """
        return pki.Authority(self.signing_authority_dir,
                             name='nova-fpga demo bitstream CA %s'
                             % self.state['id'])

    def board(self, name):
        link = self.data_link(name)
        options = {('dataplane', 'interface'): link.board_if,
                   ('dataplane', 'netns'): link.netns}
        options.update(self.board_options.get(name) or {})
        return localboards.Board(
            self.dir, name, self._mq_url(name, 'agents'), options=options,
            die_with_parent=self.die_with_parent,
            backend=self.state.get('board_backends', {}).get(
                name, localboards.SIM), tls=self.tls_files(name),
            trusted_cas=[self.signing_authority_dir / 'ca.pem'],
            signed_only=name in self.state.get('signed_only_boards', ()))

    # -- up ----------------------------------------------------------------

    def progress(self, text, end='\n'):
        out = self.output or sys.stdout
        out.write(text + end)
        out.flush()

    def _step(self, name, pid_file, start):
        """Start one service unless its pid file names a live process."""
        pids = process.pid_file_members(pid_file) if pid_file else []
        if pids:
            self.progress('%s: already running (pid %s)' % (name, pids[0]))
            return False
        self.progress('starting %s ...' % name, end=' ')
        began = time.monotonic()
        try:
            start()
        except Exception:
            self.progress('failed')
            raise
        self.timings[name] = time.monotonic() - began
        self.progress('ok (%.1f s)' % self.timings[name])
        return True

    def _build_modules(self):
        """The emulated boards' modules compiled with Verilator (once per
        checkout and HDL change; the agents would otherwise compile a
        module at its first load).
        """
        self.progress('emulated modules (Verilator, once per HDL change) ...',
                      end=' ')
        began = time.monotonic()
        try:
            built = hdl_bridge.build_registered(nova_fpga_devtools.HDL)
        except (hdl_bridge.BuildError, toolchain.ToolMissing, OSError) as exc:
            self.progress('failed')
            raise process.ServiceError('emulated modules', exc) from exc
        if built:
            self.timings['module HDL'] = time.monotonic() - began
            self.progress('built %s (%.1f s)' % (
                ', '.join(built), self.timings['module HDL']))
        else:
            self.progress('already built')

    def up(self):
        """Start (or resume) the whole cloud; returns self.

        Raises process.ServiceError naming the service, with its log's tail;
        whatever did start has its pid file, so down() stops it.
        """
        began = time.monotonic()
        self.timings = {}
        keystone = self.start_services()
        if not (self.signing_authority_dir / 'ca.pem').exists():
            self._step('bitstream-signing CA', None, self.signing_authority)
        self._build_modules()
        client, transport = self.agent_client()
        try:
            for name in self.boards:
                board = self.board(name)
                self._step(name, board.process.pid_file,
                           lambda: (self.cable_board(name),
                                    board.start(client)))
        finally:
            transport.cleanup()
        nova = self.nova(keystone)
        self._step('nova set-up', None, nova.configure)
        for name, proc in nova.processes().items():
            self._step(name, proc.pid_file, proc.start)
        self._step('nova services', None, lambda: self._wait_nova(nova))
        if self.vm_host_name:
            compute = self.vm_compute(keystone)
            self._step('nova-compute (%s, libvirt)' % self.vm_host_name,
                       compute.process.pid_file, compute.start)
            self._step('VM host services', None,
                       lambda: self._wait_vm_host(nova, compute))
            self._step('tiny VM image and flavor', None,
                       lambda: self._register_guest(keystone))
        self.write_credentials(keystone)
        self.timings['total'] = time.monotonic() - began
        return self

    def start_services(self):
        """MariaDB, RabbitMQ, the cloud's databases and vhosts, keystone,
        glance, placement, neutron (and the VM host's services): all but
        the boards and nova; returns the Keystone.
        """
        self.start_servers()
        self._step('databases and vhosts', None, self.prepare)
        keystone = self.keystone
        self._step('keystone', keystone.dir / 'keystone.pid', keystone.start)
        if not self.state.get('builders_project'):
            self.state['builders_project'] = keystone.admin.projects.find(
                name='fpga-builders').id
            self._save_state()
        for name, service in self.services(keystone).items():
            self._step(name, service.dir / ('%s.pid' % name), service.start)
        neutron = self.services(keystone)['neutron-server']
        self._step('neutron-rpc-server', neutron.rpc_server.pid_file,
                   neutron.rpc_server.start)
        if self.vm_host_name:
            self._step('top-of-rack switch', self.tor_process().pid_file,
                       self._start_switch)
            libvirt = self.libvirt()
            self._step('libvirt', libvirt.processes['libvirtd'].pid_file,
                       libvirt.start)
            agent = self.macvtap_agent()
            self._step('neutron-macvtap-agent', agent.process.pid_file,
                       agent.start)
        return keystone

    def start_servers(self):
        """MariaDB and RabbitMQ: configured ones when they answer, chosen on
        the first up and kept; private ones started here otherwise.
        """
        self.dir.mkdir(parents=True, exist_ok=True)
        if self._load_state() is None:
            self.state = self._new_state()
            self._save_state()
        if self.state['database'] is None:
            if self.database_url and mariadb.answers(self.database_url):
                self.state['database'] = {'url': self.database_url,
                                          'private': False}
            else:
                if self.database_url:
                    self.progress('%s does not answer: starting a private '
                                  'MariaDB' % self.database_url)
                self.state['database'] = {
                    'url': self._private_mariadb().url, 'private': True}
            self._save_state()
        if self.state['rabbitmq'] is None:
            broker = rabbitmq.configured(self.transport_url) \
                if self.transport_url else None
            if broker is not None:
                self.state['rabbitmq'] = {'url': self.transport_url,
                                          'host': broker.host,
                                          'port': broker.port,
                                          'private': False}
            else:
                if self.transport_url:
                    self.progress('%s does not answer (or cannot be '
                                  'administered): starting a private '
                                  'RabbitMQ' % self.transport_url)
                self.state['rabbitmq'] = {
                    'url': None, 'host': '127.0.0.1',
                    'port': self.state['ports']['rabbitmq'], 'private': True}
            self._save_state()
        if self.state['database']['private']:
            db = self._private_mariadb()
            self._step('mariadb', db.dir / 'mariadb.pid', db.start)
        else:
            self.progress('%s: configured, %s' % (
                'mariadb', self.state['database']['url']))
        if self.state['rabbitmq']['private']:
            mq = self._private_rabbitmq()
            self._step('rabbitmq', mq.dir / 'rabbitmq.pid', mq.start)
        else:
            self.progress('%s: configured, %s' % (
                'rabbitmq', self.state['rabbitmq']['url']))
        agents_mq = self._agents_rabbitmq()
        if agents_mq is not None:
            self._step('rabbitmq (agents\' bus, TLS)',
                       agents_mq.dir / 'rabbitmq.pid', agents_mq.start)

    def prepare(self):
        """The cloud's databases, vhosts and RabbitMQ users (missing ones)."""
        if not mariadb.answers(self.state['database']['url']):
            raise process.ServiceError('mariadb', '%s does not answer'
                                       % self.state['database']['url'])
        mariadb.create_databases(self.state['database']['url'],
                                 self.state['databases'].values())
        broker = self._broker()
        if broker is None:
            raise process.ServiceError('rabbitmq', '%s no longer answers'
                                       % self.state['rabbitmq']['url'])
        vhosts = self.state['vhosts']
        users = self.state['mq_users']
        if not self.bus.get('vhost_per_board'):
            broker.import_definitions(vhosts.values(), [
                (login, password,
                 vhosts['nova' if user == 'nova' else 'agents'])
                for user, (login, password) in users.items()])
            return
        # nova's bus; the agents' (maybe another node): a vhost per board,
        # nova-compute's user with all rights there, each board's user
        # with board_permissions on its own only
        board_vhosts = {board: deployment.board_vhost(vhosts['agents'], board)
                        for board in self.boards}
        agents_broker = self._agents_broker()
        nova_users = [tuple(users['nova']) + (vhosts['nova'],)]
        agents_users = [(login, password, None)
                        for user, (login, password) in users.items()
                        if user != 'nova']
        permissions = [(users['zynq-proxy'][0], vhost,
                        deployment.PROXY_PERMISSIONS)
                       for vhost in board_vhosts.values()]
        permissions += [(users[board][0], vhost,
                         deployment.board_permissions(board))
                        for board, vhost in board_vhosts.items()]
        agents_vhosts = [vhosts['agents']] + list(board_vhosts.values())
        if agents_broker is broker or agents_broker.port == broker.port:
            broker.import_definitions(
                [vhosts['nova']] + agents_vhosts, nova_users + agents_users,
                permissions)
        else:
            broker.import_definitions([vhosts['nova']], nova_users)
            agents_broker.import_definitions(agents_vhosts, agents_users,
                                             permissions)

    def agent_client(self, timeout=10):
        """(client, closer) on the agents' bus as nova-compute's user,
        the driver's own clients (nova_fpga.virt.agents, the [zynq]
        options nova-compute has); closer.cleanup() after.
        """
        conf = cfg.ConfigOpts()
        nova_fpga_conf.register_opts(conf)
        # oslo.messaging's options, those it registers on the global CONF
        # only included: without TLS the client's transport reads this conf
        messaging_conffixture.ConfFixture(conf)
        conf([], default_config_files=[], default_config_dirs=[])
        for section, option, value in deployment.nova(
                self.boards, self._mq_url('zynq-proxy', 'agents'), '',
                vhost_per_board=bool(self.bus.get('vhost_per_board')),
                tls=self.tls_files('nova-compute')):
            if section == 'zynq':
                conf.set_override(option, value, group='zynq')
        conf.set_override('rpc_timeout', timeout, group='zynq')
        clients = nova_agents.make_client(conf)
        return clients, clients

    def compute(self, keystone, path):
        """GET path of the compute API as admin (JSON)."""
        return keystone.session('admin').get(
            path, endpoint_filter={'service_type': 'compute',
                                   'interface': 'public'},
            headers={'OpenStack-API-Version': 'compute 2.88'}).json()

    def _wait_nova(self, nova, timeout=180):
        """Until conductor, scheduler and compute report up, then until
        every board is a hypervisor: nova lists a compute node only once
        discover_hosts has mapped it into cell1.
        """
        deadline = time.monotonic() + timeout
        wanted = {'nova-conductor', 'nova-scheduler', 'nova-compute'}
        up, nodes = set(), set()
        while not (wanted <= up and set(self.boards) <= nodes):
            for name, proc in nova.daemons.items():
                if not process.pid_file_members(proc.pid_file):
                    raise process.ServiceError(name, 'exited', proc.log)
            if time.monotonic() > deadline:
                missing = sorted(wanted - up) + sorted(
                    set(self.boards) - nodes)
                raise process.ServiceError(
                    'nova-compute', 'not up within %ss: %s' % (
                        timeout, ', '.join(missing)),
                    nova.daemons['nova-compute'].log)
            try:
                up = {svc['binary'] for svc in self.compute(
                    nova.keystone, '/os-services')['services']
                    if svc['state'] == 'up' and svc['status'] == 'enabled'}
                if wanted <= up:
                    nodes = self._hypervisors(nova.keystone)
                    if not set(self.boards) <= nodes:
                        nova.discover_hosts()
                        nodes = self._hypervisors(nova.keystone)
            except (ks_exceptions.ClientException, KeyError, ValueError):
                pass
            time.sleep(0.5)

    def _wait_vm_host(self, nova, compute, timeout=180):
        """Until the VM host's nova-compute reports up and its node is a
        hypervisor (mapped into cell1) and its macvtap agent is alive.
        """
        deadline = time.monotonic() + timeout
        session = nova.keystone.session('admin')
        while True:
            if not process.pid_file_members(compute.process.pid_file):
                raise process.ServiceError(compute.process.name, 'exited',
                                           compute.process.log)
            try:
                up = any(svc['host'] == compute.name and svc['state'] == 'up'
                         for svc in self.compute(
                             nova.keystone, '/os-services')['services'])
                nodes = [hyp for hyp in self.compute(
                    nova.keystone, '/os-hypervisors/detail')['hypervisors']
                    if hyp['service']['host'] == compute.name]
                if up and not nodes:
                    nova.discover_hosts()
                agents = session.get('/v2.0/agents', endpoint_filter={
                    'service_type': 'network', 'interface': 'public'},
                ).json()['agents']
                alive = any(agent['host'] == compute.name and agent['alive']
                            for agent in agents)
                if up and nodes and alive:
                    return
            except (ks_exceptions.ClientException, KeyError, ValueError):
                pass
            if time.monotonic() > deadline:
                raise process.ServiceError(
                    compute.process.name, 'not up, or no hypervisor, or no '
                    'live macvtap agent within %ss' % timeout,
                    compute.process.log)
            time.sleep(1)

    def _register_guest(self, keystone):
        """The tiny guest (built once: localcloud.vm_image) in Glance, and
        its flavor.
        """
        guest = vm_image.build()
        session = keystone.session('admin')
        self.state['vm_images'] = vm_image.register(session, guest)
        self._save_state()
        endpoint = {'service_type': 'compute', 'interface': 'public'}
        flavors = session.get('/flavors', endpoint_filter=endpoint).json()
        if not any(flavor['name'] == vmhost.FLAVOR['name']
                   for flavor in flavors['flavors']):
            session.post('/flavors', json={'flavor': vmhost.FLAVOR},
                         endpoint_filter=endpoint)

    def _hypervisors(self, keystone):
        return {hyp['hypervisor_hostname'] for hyp in self.compute(
            keystone, '/os-hypervisors')['hypervisors']}

    #: The users that get an openrc and a cloud in clouds.yaml.
    USERS = ('admin', 'alice', 'bob')

    def credentials_file(self, user=None):
        """state_dir/openrc-<user>; no user: state_dir/openrc (admin's)."""
        return self.dir / ('openrc-%s' % user if user else 'openrc')

    def clouds_file(self):
        return self.dir / 'clouds.yaml'

    @staticmethod
    def cloud_name(user):
        return 'nova-fpga-%s' % user

    def write_credentials(self, keystone):
        """clouds.yaml (clouds nova-fpga-admin, -alice and -bob) and, for
        each user, openrc-<user> (admin's also as openrc) in state_dir.

        An openrc unsets every OS_* variable the openstack CLI reads and
        exports only OS_CLIENT_CONFIG_FILE (this clouds.yaml, found from
        any directory) and OS_CLOUD (its user's cloud): once one is
        sourced, --os-cloud nova-fpga-<other> switches user cleanly, as
        no OS_USERNAME or OS_PASSWORD is left to override it.
        """
        clouds = {}
        for user in self.USERS:
            rc = keystone.openrc(user)
            clouds[self.cloud_name(user)] = {
                'auth': {'auth_url': rc['OS_AUTH_URL'],
                         'username': rc['OS_USERNAME'],
                         'password': rc['OS_PASSWORD'],
                         'project_name': rc['OS_PROJECT_NAME'],
                         'user_domain_name': rc['OS_USER_DOMAIN_NAME'],
                         'project_domain_name': rc['OS_PROJECT_DOMAIN_NAME']},
                'auth_type': rc['OS_AUTH_TYPE'],
                'region_name': rc['OS_REGION_NAME'],
                'interface': rc['OS_INTERFACE'], 'identity_api_version': 3}
        # JSON is YAML: no YAML writer needed.
        self.clouds_file().write_text(json.dumps(
            {'clouds': clouds}, indent=2))
        for user in self.USERS:
            text = localkeystone.openrc_script(
                self.cloud_env(user),
                'nova-fpga demo cloud in %s: %s (project %s)' % (
                    self.dir, user, localkeystone.USERS[user][0]))
            self.credentials_file(user).write_text(text)
            if user == 'admin':
                self.credentials_file().write_text(text)

    def openrc(self, user='admin'):
        """OS_* variables for the openstack CLI as user."""
        self.require_state()
        return self.keystone.openrc(user)

    def cloud_env(self, user='admin'):
        """What sourcing openrc-<user> exports: the variables that select
        user's cloud in clouds.yaml (written by up).
        """
        self.require_state()
        env = {'OS_CLIENT_CONFIG_FILE': str(self.clouds_file()),
               'OS_CLOUD': self.cloud_name(user)}
        if user == 'admin':
            # nova-fpga-manage board list/show: the boards' nova.conf
            env[manage.NOVA_CONF_VARIABLE] = str(
                localnova.Nova.conf_file_in(self.dir))
        return env

    # -- status, down, logs ------------------------------------------------

    def require_state(self):
        if self._load_state() is None:
            raise process.ServiceError('stack', 'no cloud in %s (run up '
                                       'first)' % self.dir)

    def pids(self):
        """{service: live pids} for every pid file of the cloud."""
        return process.services(self.dir)

    def memory_kib(self):
        """Sum of the resident memory of every process the cloud started."""
        return sum(process.rss_kib(pid) for pids in self.pids().values()
                   for pid in pids)

    def expected(self):
        """{service: URL or None}: every process up starts, named as
        pids() names them, in start order.
        """
        keystone = self.keystone
        found = {}
        if self.state['database']['private']:
            found['mariadb/mariadb'] = None
        if self.state['rabbitmq']['private']:
            found.update({'rabbitmq/epmd': None, 'rabbitmq/rabbitmq': None})
        if self._agents_rabbitmq() is not None:
            found.update({'agents-bus/rabbitmq/epmd': None,
                          'agents-bus/rabbitmq/rabbitmq': None})
        found['keystone/keystone'] = keystone.auth_url
        for name, service in self.services(keystone).items():
            found['%s/%s' % (service.dir.name, name)] = service.url
        found['neutron/neutron-rpc-server'] = None
        if self.vm_host_name:
            found.update({'tor/tor': None,
                          'vm-host/libvirt/virtlogd': None,
                          'vm-host/libvirt/libvirtd': None,
                          'neutron/neutron-macvtap-agent': None})
        for board in self.boards:
            if self.board(board).kernel is not None:
                found['boards/%s/fakekernel' % board] = None
            found['boards/%s/agent' % board] = None
        for name in localnova.DAEMONS:
            found['nova/%s' % name] = None
        found['nova/nova-api'] = self.nova(keystone).url
        if self.vm_host_name:
            found['vm-host/nova-compute'] = None
        return found

    def status(self):
        """[(service, state, detail)] and {board: describe() or None}."""
        self.require_state()
        urls = self.expected()
        running = self.pids()
        rows = []
        for name in list(urls) + sorted(set(running) - set(urls)):
            pids, url = running.get(name), urls.get(name)
            if not pids:
                rows.append((name, 'stopped', url or ''))
            elif url and not _answers(url):
                rows.append((name, 'not answering', '%s (pid %d)' % (
                    url, pids[0])))
            else:
                rows.append((name, 'running', 'pid %d%s' % (
                    pids[0], ' ' + url if url else '')))
        return rows, self.describe_boards()

    def describe_boards(self, timeout=3):
        """{board: the agent's describe() answer, or None if silent}.

        Asks only when the agents' broker answers: oslo.messaging retries
        a refused connection for ever.
        """
        mq = self.state['rabbitmq']
        host, port = mq['host'], mq['port']
        if self.bus.get('tls'):
            host, port = '127.0.0.1', self._agents_tls_port()
        if not rabbitmq.answers(host, port):
            return dict.fromkeys(self.boards)
        described = {}
        client, transport = self.agent_client(timeout)
        try:
            for name in self.boards:
                try:
                    described[name] = client.describe({}, name)
                except messaging.MessagingException:
                    described[name] = None
        finally:
            transport.cleanup()
        return described

    def region_holding(self, board, server_id):
        """The name of the board's region whose agent says it holds
        server_id (None if none does, or the board does not answer).
        """
        described = self.describe_boards().get(board) or {}
        for region in described.get('regions', []):
            if region.get('instance_uuid') == server_id:
                return region['name']
        return None

    def wait_for_frames(self, board, region, server_id, count, timeout=60):
        """The data-plane stats of server_id's region once count frames
        have come out of it, or when timeout runs out.  A board forwards
        asynchronously and its agent has no event to wait on: this polls
        its stats (the server's own: the agent answers only its holder).
        """
        client, transport = self.agent_client()
        try:
            deadline = time.monotonic() + timeout
            while True:
                plane = client.stats({}, board, region,
                                     server_id).get('dataplane') or {}
                if plane.get(reports.FRAMES_OUT, 0) >= count or \
                        time.monotonic() > deadline:
                    return plane
                time.sleep(0.5)
        finally:
            transport.cleanup()

    def stop(self, service):
        """Stop one process of the cloud by its pids() name (e.g.
        'nova/nova-compute', 'boards/board0/agent'); up() restarts it.
        """
        return process.stop_pid_file(self.dir / ('%s.pid' % service))

    def down(self, purge=False):
        """Stop every process with a pid file in the cloud, newest first
        (a configured MariaDB/RabbitMQ has none, so is never touched).

        purge also removes the state directory and the cloud's own
        databases, vhosts and users on configured servers.
        """
        vm_host = self._load_state() is not None and self.vm_host_name
        if vm_host:
            # the guests first: libvirtd leaves its domains running
            self.libvirt().destroy_domains(self.domain_prefix())
        stopped = process.stop_all(self.dir)
        if self._load_state() is not None:
            from nova_fpga_emulator import engine
            for name in self.boards:
                # the board's data mover and emulated engines outlive its
                # agent, as on a board: the board goes down with the cloud
                engine.power_off(self.dir / 'boards' / name / 'state',
                                 runtime_dir=self.board(name).runtime_dir)
                # a board on a fake kernel: its engines are the kernel's
                engine.power_off(self.dir / 'boards' / name / 'fakekernel' /
                                 'board')
                self.data_link(name).delete()
            if vm_host:
                self.tor().delete()
        if purge and self._load_state() is not None:
            self._drop_external()
        if purge:
            if self.dir.exists():
                shutil.rmtree(self.dir)
            self.state = None
        return stopped

    def _drop_external(self):
        database = self.state.get('database')
        if database and not database['private'] and \
                mariadb.answers(database['url']):
            mariadb.drop_databases(database['url'],
                                   self.state['databases'].values())
        mq = self.state.get('rabbitmq')
        broker = rabbitmq.configured(mq['url']) \
            if mq and not mq['private'] else None
        if broker is not None:
            for login, _ in self.state['mq_users'].values():
                broker.delete_user(login)
            for vhost in self.state['vhosts'].values():
                broker.delete_vhost(vhost)

    def logs(self):
        """{name: log path} of every service and set-up command."""
        return {str(path.relative_to(self.dir).with_suffix('')): path
                for path in sorted(self.dir.rglob('*.log'))
                if 'rabbitmq/log' not in str(path)}


def _answers(url):
    try:
        with urllib.request.urlopen(url, timeout=3):
            return True
    except urllib.error.HTTPError as exc:
        return exc.code < 500
    except OSError:
        return False
