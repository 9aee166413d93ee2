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

"""The demo cloud at scale: many boards, several proxies, nova's floor.

The demo cloud's real services (keystone, glance with the bitstream store,
placement, neutron, nova-api, nova-conductor, nova-scheduler), with:

- the boards as one nova-fpga-board-fleet process of behavioural boards
  (hundreds of agent processes do not fit a small machine; each board is
  still the agent's own code, its RPC server, reports and state);
- several nova-compute proxies with the Zynq driver, each its own host,
  all configured with every board: the ring shares the boards out;
- one nova-compute with nova's own fake driver (nova.virt.fake.FakeDriver)
  on a host of its own: the floor, what nova costs for a server whose
  hypervisor does nothing.

The fleet's boards share one transport, so the agents' bus here is one
vhost of the cloud's RabbitMQ without TLS: the demo cloud's per-board
vhosts and certificates are its security, not its scale, and are not
measured here.  Every process has a pid file in the state directory, so
``down()`` stops them all by pid.
"""
import secrets
import time

from keystoneauth1 import exceptions as ks_exceptions
from oslo_log import log
import oslo_messaging as messaging
from tooz import hashring

from nova_fpga.virt import ring

from nova_fpga_devtools.localcloud import nova as localnova
from nova_fpga_devtools.localcloud import process
from nova_fpga_devtools.localcloud import stack as localstack

#: nova-compute's host name of the fake driver's compute
FAKE_HOST = 'fake-host'
FAKE_DRIVER = 'fake.FakeDriver'
#: oslo.log's defaults and nova's, with debug for the lines the scale
#: benchmark times (nova 34 logs them at debug): the scheduler's start and
#: selected host, the periodic task's start, the resource tracker's final
#: view of each node.  Not [DEFAULT] debug: its thousands of lines per
#: request (a host state update and its locks per board) would be part of
#: the time measured.
LOG_LEVELS = log.get_default_log_levels() + [
    'glanceclient=WARN', 'oslo.privsep.daemon=INFO',
    'nova.scheduler.manager=DEBUG', 'oslo_service.periodic_task=DEBUG',
    'nova.compute.resource_tracker=DEBUG']
#: the fleet's RabbitMQ user on the agents' vhost
FLEET_USER = 'board-fleet'
FLEET = process.BIN / 'nova-fpga-board-fleet'


class Fleet:
    """nova-fpga-board-fleet serving count behavioural boards."""

    def __init__(self, state_dir, transport_url, manifest, count,
                 name_format='board%03d', die_with_parent=True):
        self.dir = state_dir / 'fleet'
        self.conf_file = self.dir / 'fleet.conf'
        self.names = [name_format % i for i in range(count)]
        self.options = {
            ('DEFAULT', 'transport_url'): transport_url,
            ('agent', 'backend'): 'behavioural',
            ('agent', 'manifest'): str(manifest),
            ('agent', 'state_dir'): str(self.dir / 'state'),
            # no XADC: the watchdog is off (one log line per board)
            ('agent', 'sysfs_root'): str(self.dir / 'sys'),
            # oslo.messaging's RPC servers share the process's transport
            # options: 64 worker threads a board (its default) grew the
            # fleet to 3,400 threads contending for one GIL at 200
            # boards; a board serves a call per region at a time
            ('DEFAULT', 'executor_thread_pool_size'): 4,
            ('fleet', 'boards'): count,
            ('fleet', 'name_format'): name_format,
        }
        self.process = process.Process(
            'fleet', [FLEET, '--config-file', self.conf_file], self.dir,
            die_with_parent=die_with_parent)

    def start(self, client, timeout=600):
        """Start the process and wait until every board answers health
        (a call before a board's server listens is lost: asked again).
        """
        (self.dir / 'sys').mkdir(parents=True, exist_ok=True)
        process.write_conf(self.conf_file, self.options)
        self.process.start()
        deadline = time.monotonic() + timeout
        for name in self.names:
            while True:
                if not self.process.running():
                    raise process.ServiceError('fleet', 'exited',
                                               self.process.log)
                try:
                    client.health({}, name, timeout=2)
                    break
                except messaging.MessagingTimeout:
                    if time.monotonic() > deadline:
                        raise process.ServiceError(
                            'fleet', '%s did not answer within %ss'
                            % (name, timeout), self.process.log)


class ComputeHost:
    """nova-compute as host name, reading the cloud's nova.conf and a file
    of its own over it (its host, driver and directories).
    """

    def __init__(self, nova, name, options=None, die_with_parent=True):
        self.name = name
        self.dir = nova.dir / name
        self.conf_file = self.dir / 'nova-compute.conf'
        self.options = dict(options or {})
        self.process = process.Process(
            'nova-compute', [
                process.BIN / 'nova-compute', '--config-file',
                nova.conf_file, '--config-file', self.conf_file],
            self.dir, env=nova._env(), die_with_parent=die_with_parent)

    @property
    def log(self):
        return self.process.log

    def start(self):
        for name in ('instances', 'state', 'locks'):
            (self.dir / name).mkdir(parents=True, exist_ok=True)
        options = {
            ('DEFAULT', 'host'): self.name,
            ('DEFAULT', 'state_path'): self.dir / 'state',
            ('DEFAULT', 'instances_path'): self.dir / 'instances',
            ('oslo_concurrency', 'lock_path'): self.dir / 'locks'}
        options.update(self.options)
        process.write_conf(self.conf_file, options)
        self.process.start()
        return self


class ScaleNova(localnova.Nova):
    """The demo cloud's nova.conf with options of the scale cloud over it
    (LOG_LEVELS, the resource update's spacing, the boards' shell).
    """

    def __init__(self, *args, extra=None, **kwargs):
        self.extra = dict(extra or {})
        super().__init__(*args, **kwargs)

    def conf(self):
        options = super().conf()
        options.update(self.extra)
        return options


class FleetCloud(localstack.Stack):
    """A demo cloud (localstack.Stack) whose boards are a Fleet shared by
    proxies, with a FAKE_HOST compute beside them.
    """

    def __init__(self, state_dir, boards=200, proxies=('proxy-a', 'proxy-b'),
                 manifest=None, update_interval=60, association_refresh=300,
                 **kwargs):
        """boards: how many the fleet serves; manifest: the boards' shell
        (nova's [zynq] shell_manifest and the fleet's); update_interval:
        nova-compute's [DEFAULT] update_resources_interval (the proxies'
        periodic task); association_refresh: nova-compute's [compute]
        resource_provider_association_refresh (how often its periodic task
        re-reads every provider's inventories, traits and aggregates: the
        demo's 10 s makes a drain take effect quickly on 2 boards, and
        makes every update re-read 1,000 providers at 200 boards).
        """
        super().__init__(state_dir, boards=0, **kwargs)
        self.fleet_count = boards
        self.proxies = tuple(proxies)
        self.manifest = manifest
        self.update_interval = update_interval
        self.association_refresh = association_refresh

    def _new_state(self):
        state = super()._new_state()
        state['agents_bus'] = {'tls': False, 'vhost_per_board': False}
        state['mq_users'][FLEET_USER] = ['%s-%s' % (FLEET_USER, state['id']),
                                         secrets.token_hex(12)]
        return state

    def fleet(self):
        return Fleet(self.dir, self._mq_url(FLEET_USER, 'agents'),
                     self.manifest, self.fleet_count,
                     die_with_parent=self.die_with_parent)

    def nova(self, keystone):
        extra = {
            ('DEFAULT', 'default_log_levels'): LOG_LEVELS,
            ('DEFAULT', 'update_resources_interval'): self.update_interval,
            ('compute', 'resource_provider_association_refresh'):
                self.association_refresh,
            # nova's default spacing (the demo's 5 s is for its 2 boards)
            ('DEFAULT', 'sync_power_state_interval'): 600,
            ('zynq', 'shell_manifest'): str(self.manifest),
        }
        return ScaleNova(
            keystone, self.dir,
            {'api': self._db_url('nova_api'),
             'cell0': self._db_url('nova_cell0'),
             'cell1': self._db_url('nova')},
            self._mq_url('nova', 'nova'), self.fleet().names,
            self._mq_url('zynq-proxy', 'agents'),
            self.state['ports']['nova'], die_with_parent=self.die_with_parent,
            agents_bus={'vhost_per_board': False, 'tls': None}, extra=extra)

    def computes(self, nova):
        """{host: ComputeHost}: the proxies, then the fake driver's."""
        found = {name: ComputeHost(nova, name,
                                   die_with_parent=self.die_with_parent)
                 for name in self.proxies}
        found[FAKE_HOST] = ComputeHost(
            nova, FAKE_HOST, {('DEFAULT', 'compute_driver'): FAKE_DRIVER},
            die_with_parent=self.die_with_parent)
        return found

    def up(self):
        """Start the cloud; the first proxy (with the fake host), then each
        other in turn.

        Proxies started together race: each takes the boards its ring
        gives it while the other is not yet in nova's service table, and
        nova refuses to start a compute whose node another host created
        meanwhile.  So the first proxy starts alone and reports every
        board; each later one starts with none and takes its share from it
        at its first resource update, as a returning proxy does
        (doc/source/admin/proxies.rst): timings['share to <proxy>'].
        """
        began = time.monotonic()
        self.timings = {}
        keystone = self.start_services()
        fleet = self.fleet()
        client, transport = self.agent_client()
        try:
            self._step('%d boards (fleet)' % self.fleet_count,
                       fleet.process.pid_file, lambda: fleet.start(client))
        finally:
            transport.cleanup()
        nova = self.nova(keystone)
        self._step('nova set-up', None, nova.configure)
        for name in ('nova-conductor', 'nova-scheduler'):
            proc = nova.daemons[name]
            self._step(name, proc.pid_file, proc.start)
        self._step('nova-api', nova.api.pid_file, nova.api.start)
        computes = self.computes(nova)
        first, others = self.proxies[0], self.proxies[1:]
        for name in (FAKE_HOST, first):
            self._step('nova-compute %s' % name,
                       computes[name].process.pid_file, computes[name].start)
        # every board on a proxy (the first one, on a fresh cloud)
        self._step('compute nodes', None, lambda: self.wait_nodes(
            nova, {self.proxies: fleet.names, FAKE_HOST: [FAKE_HOST]}))
        started = self.proxies[:1]
        for name in others:
            started += (name,)
            self._step('nova-compute %s' % name,
                       computes[name].process.pid_file, computes[name].start)
            self._step('share to %s' % name, None, lambda: self.wait_nodes(
                nova, shares(started, fleet.names)))
        # every compute host mapped into cell1 for the conductor
        nova.discover_hosts()
        self.write_credentials(keystone)
        self.timings['total'] = time.monotonic() - began
        return self

    def nodes(self, keystone):
        """{compute host: {node}} as nova's hypervisor list has them
        (microversion 2.87: from 2.88 the list asks every compute for its
        uptime, an RPC per hypervisor, and nova's fake driver has none).
        """
        found = {}
        hypervisors = keystone.session('admin').get(
            '/os-hypervisors/detail', endpoint_filter={
                'service_type': 'compute', 'interface': 'public'},
            headers={'OpenStack-API-Version': 'compute 2.87'}).json()
        for hyp in hypervisors['hypervisors']:
            found.setdefault(hyp['service']['host'], set()).add(
                hyp['hypervisor_hostname'])
        return found

    def wait_nodes(self, nova, wanted, timeout=1800):
        """Until each compute host has its wanted nodes ({host: [node]};
        a tuple of hosts: among them) as hypervisors (mapped into cell1 by
        discover_hosts).
        """
        deadline = time.monotonic() + timeout
        while True:
            for name, compute in self.computes(nova).items():
                if compute.process.pid_file.exists() and \
                        not process.pid_file_members(
                            compute.process.pid_file):
                    raise process.ServiceError(name, 'exited', compute.log)
            try:
                found = self.nodes(nova.keystone)
                if all(set(nodes) <= set().union(*(
                        found.get(h, set()) for h in (
                            hosts if isinstance(hosts, tuple) else (hosts,))))
                       for hosts, nodes in wanted.items()):
                    return
                if sum(map(len, found.values())) < sum(
                        map(len, wanted.values())):
                    nova.discover_hosts()
            except (ks_exceptions.ClientException, KeyError, ValueError):
                pass
            if time.monotonic() > deadline:
                raise process.ServiceError(
                    'nova-compute', 'nodes not where the ring puts them '
                    'within %ss' % timeout)
            time.sleep(5)


def shares(proxies, boards):
    """{proxy: [board]}: where the Zynq driver's ring (tooz's, with
    nova_fpga.virt.ring's partitions) puts the boards among proxies.
    """
    members = {proxy.lower() for proxy in proxies}
    hashes = hashring.HashRing(members, partitions=ring.PARTITIONS)
    found = {proxy: [] for proxy in proxies}
    by_lower = {proxy.lower(): proxy for proxy in proxies}
    for board in boards:
        owner = next(iter(hashes.get_nodes(board.encode('utf-8'))))
        found[by_lower[owner]].append(board)
    return found
