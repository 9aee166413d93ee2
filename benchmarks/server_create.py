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

"""Server create to ACTIVE on the demo cloud, by phase, against cited figures.

Brings up the demo cloud (or resumes the one in --state-dir), creates the
fpga.region flavor and loopback bitstreams for rp0 (builder-made, imported
with Glance's import flow), then runs create -> ACTIVE -> delete cycles
through the compute API with openstacksdk, polling the server every 50 ms:

- uncached: every cycle boots a bitstream no board has loaded before (its
  own image), so nova-compute downloads it from Glance and sends it;
- cached: every cycle boots the same image; after the first load the board
  caches it, the CachedBitstreamWeigher sends the server there and the
  board loads it by digest (image transfer 0);
- two ports: the cached series again on two tenant networks
  (``--nic net-id=in --nic net-id=out`` instead of ``--nic none``): nova
  creates both ports and binds them to the board (the boards' mechanism
  driver, the switch driver noop), the agent gets their VLANs with the
  load; deleted by an admin (the demo cloud's nova sends no service token,
  README "Tenant networks").

Phases of each create, from the client's clock and nova-compute's log
(same machine, millisecond timestamps; nova's action events are stored to
the second, too coarse here): API request -> claimed on a board (API,
conductor, scheduler, the cast to nova-compute and its claim), -> spawn
start, image transfer (the image's metadata and, uncached, its data from
Glance) and agent load call (the driver's "spawn timing" line; the
configuration port's modelled time, size / the emulated PCAP rate, shown
separately), load end -> ACTIVE seen by the client, and the total from the
request to ACTIVE.  Then the stack's memory (RSS of every process it
started).

Agent RPCs per create and per delete: the agents count the calls they
serve (their health answer), those sent with a request ID apart from those
without (the driver's periodic refresh sends none; this benchmark's health
calls are left out).  The counts are read from every board before the
create request, once the server is ACTIVE and once it is gone.  Calls nova
makes from other periodic tasks carry their task's request ID and count
with the request's (before the board cache: nova's power-state sync, a
describe per server every 5 s in the demo cloud).

Run: .venv/bin/python benchmarks/server_create.py [--cycles 20]
     [--state-dir DIR (kept; default: a temporary cloud, purged after)]
"""
import argparse
import collections
import datetime
import functools
import pathlib
import re
import statistics
import sys
import tempfile
import time

import openstack

from nova_fpga.bitstream import builder
from nova_fpga import catalogue
from nova_fpga.cmd import manage
from nova_fpga.contract import shell
from nova_fpga import conventions
from nova_fpga_devtools.localcloud import rabbitmq
from nova_fpga_devtools.localcloud import stack as localstack

import results

PART = '7z020clg400'
POLL = 0.05
INSTANCE = re.compile(r'\[instance: ([0-9a-f-]{36})\]')
SPAWN_TOOK = re.compile(r'Took ([\d.]+) seconds to spawn the instance')
SPAWN_TIMING = re.compile(
    r'spawn timing: image transfer (?P<transfer>[\d.]+) s, load call '
    r'(?P<load>[\d.]+) s \(configuration port (?P<port>[\d.]+) s '
    r'modelled, agent (?P<agent>[\d.]+) s\) on board (?P<board>\S+)')
#: Figures cited from elsewhere (issue 8 of this project), not measured here.
CITED = [('a libvirt/KVM VM boot through nova', '7-8.6 s'),
         ('an Ironic bare-metal deploy', 'minutes'),
         ('FPGA regions booted through OpenStack (2014)', 'about 2.6 s')]
GOAL = 1.5


def connect(cloud, user):
    rc = cloud.openrc(user)
    return openstack.connect(
        auth_url=rc['OS_AUTH_URL'], username=rc['OS_USERNAME'],
        password=rc['OS_PASSWORD'], project_name=rc['OS_PROJECT_NAME'],
        user_domain_name=rc['OS_USER_DOMAIN_NAME'],
        project_domain_name=rc['OS_PROJECT_DOMAIN_NAME'],
        region_name=rc['OS_REGION_NAME'], compute_api_version='2.88')


def _when(line):
    return datetime.datetime.strptime(' '.join(line.split()[:2]),
                                      '%Y-%m-%d %H:%M:%S.%f').timestamp()


def compute_log_times(log):
    """{instance uuid: fields} from nova-compute's log (its timestamps are
    the machine's local time, to the millisecond): when the claim on the
    board's node succeeded, when spawn started (nova's "Took X seconds to
    spawn" line minus X) and the driver's spawn timing line's fields.
    """
    found = {}
    for line in log.read_text().splitlines():
        match = INSTANCE.search(line)
        if not match:
            continue
        fields = found.setdefault(match.group(1), {})
        timing = SPAWN_TIMING.search(line)
        took = SPAWN_TOOK.search(line)
        if 'Claim successful on node' in line:
            fields['claimed'] = _when(line)
        elif took:
            fields['spawn_start'] = _when(line) - float(took.group(1))
        elif timing:
            fields.update({k: (v if k == 'board' else float(v))
                           for k, v in timing.groupdict().items()})
            fields['spawn_end'] = _when(line)
    return found


def agent_calls(client, boards):
    """{(kind, method): calls served} summed over the boards' agents, less
    the health calls that read them.
    """
    total = collections.Counter()
    for board in boards:
        calls = client.health({}, board).get('calls', {})
        for kind, methods in calls.items():
            total.update({(kind, m): n for m, n in methods.items()
                          if m != 'health'})
    return total


def calls_since(count_calls, before):
    calls = count_calls()
    calls.subtract(before)
    return calls


def create_once(conn, image_id, flavor_id, name, networks='none'):
    """(the ACTIVE server, request time, time ACTIVE was seen)."""
    began = time.time()
    server = conn.compute.create_server(
        name=name, image_id=image_id, flavor_id=flavor_id, networks=networks)
    while True:
        server = conn.compute.get_server(server.id)
        if server.status != 'BUILD':
            break
        time.sleep(POLL)
    active = time.time()
    if server.status != 'ACTIVE':
        raise SystemExit('server %s went %s: %s' % (server.id, server.status,
                                                    server.fault))
    return server, began, active


def run(conn, cloud, images, flavor_id, label, count_calls,
        networks='none', deleter=None):
    """One series of cycles (servers on networks, deleted by deleter, by
    default conn); a list of per-cycle phase dicts.
    """
    rows = []
    deleter = deleter or conn
    for index, image_id in enumerate(images):
        before = count_calls()
        server, began, active = create_once(
            conn, image_id, flavor_id, 'bench-%s-%d' % (label, index),
            networks)
        created = calls_since(count_calls, before)
        before = count_calls()
        deleter.compute.delete_server(server.id)
        deleter.compute.wait_for_delete(server, interval=POLL, wait=120)
        rows.append({'id': server.id, 'began': began, 'active': active,
                     'calls': {'create': created, 'delete': calls_since(
                         count_calls, before)}})
    times = compute_log_times(cloud.dir / 'nova' / 'nova-compute.log')
    phases = []
    for row in rows:
        spawn = times[row['id']]
        phases.append({
            'API request -> claimed on board': spawn['claimed'] - row['began'],
            'claimed -> spawn start': spawn['spawn_start'] - spawn['claimed'],
            'spawn start -> load start': spawn['spawn_end'] - spawn['load']
            - spawn['transfer'] - spawn['spawn_start'],
            'image transfer': spawn['transfer'],
            'agent load call': spawn['load'],
            '  of which PCAP (modelled)': spawn['port'],
            '  of which agent': spawn['agent'],
            'load end -> ACTIVE seen': row['active'] - spawn['spawn_end'],
            'total create -> ACTIVE': row['active'] - row['began'],
            'board': spawn['board'],
            'calls': row['calls']})
    return phases


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def table(title, phases):
    print('\n%s (%d cycles; boards used: %s)' % (title, len(phases), ', '.join(
        sorted({p['board'] for p in phases}))))
    print('  %-30s %9s %9s' % ('phase', 'p50 (s)', 'p95 (s)'))
    for name in phases[0]:
        if name in ('board', 'calls'):
            continue
        values = [p[name] for p in phases]
        print('  %-30s %9.3f %9.3f' % (name, statistics.median(values),
                                       percentile(values, 0.95)))
    for action in ('create', 'delete'):
        calls = collections.Counter()
        for p in phases:
            calls.update(p['calls'][action])
        for kind, why in (('request', 'for the request'),
                          ('background', 'periodic, meanwhile')):
            methods = {m: n for (k, m), n in calls.items()
                       if k == kind and n}
            print('  agent RPCs per %s, %s: %.2f (%s)' % (
                action, why, sum(methods.values()) / len(phases),
                ', '.join('%s %.2f' % (m, n / len(phases))
                          for m, n in sorted(methods.items())) or 'none'))
    return statistics.median(p['total create -> ACTIVE'] for p in phases)


def tenant_networks(conn, stamp):
    """Two networks with a subnet each (nova boots on none without), as
    compute API networks.
    """
    made = []
    for index, name in enumerate(('in', 'out')):
        net = conn.network.create_network(name='bench-%s-%d' % (name, stamp))
        conn.network.create_subnet(
            network_id=net.id, ip_version=4, enable_dhcp=False,
            cidr='10.99.%d.0/24' % index, gateway_ip=None)
        made.append(net)
    return made


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--cycles', type=int, default=20)
    parser.add_argument('--state-dir',
                        help='a demo cloud to use (resumed when stopped, '
                             'kept afterwards); default: a new one in a '
                             'temporary directory, purged afterwards')
    parser.add_argument('--database-url', default='mysql+pymysql://root@'
                        '127.0.0.1/', help='MariaDB to use when it answers')
    parser.add_argument('--transport-url', default=rabbitmq.DEFAULT_URL,
                        help='RabbitMQ to use when it answers')
    args = parser.parse_args()
    state_dir = pathlib.Path(args.state_dir or tempfile.mkdtemp(
        prefix='create-bench-'))
    cloud = localstack.Stack(state_dir, database_url=args.database_url,
                             transport_url=args.transport_url,
                             output=sys.stderr)
    try:
        cloud.up()
        admin, bob = connect(cloud, 'admin'), connect(cloud, 'bob')
        flavor, _ = manage.create_flavor(admin)
        reference = shell.load(shell.REFERENCE)
        work = state_dir / 'bench-bitstreams'
        work.mkdir(exist_ok=True)
        stamp = int(time.time())
        images = []
        # one more than the cycles: the cached series' own image
        for index in range(args.cycles + 1):
            path = work / ('loopback_rp0_%d.bit' % index)
            path.write_bytes(builder.build_partial(
                PART, 'bench_loopback_rp0', catalogue.module_id('loopback'),
                reference.region('rp0').footprint, seed=stamp + index))
            images.append(manage.create_image(
                bob, 'bench-loopback-%d-%d' % (stamp, index), str(path),
                reference.shell_id).id)
        size = path.stat().st_size
        client, transport = cloud.agent_client()
        count_calls = functools.partial(agent_calls, client, cloud.boards)
        networks = []
        try:
            uncached = run(bob, cloud, images[:-1], flavor.id, 'uncached',
                           count_calls)
            cached = run(bob, cloud, [images[-1]] * args.cycles, flavor.id,
                         'cached', count_calls)
            networks.extend(tenant_networks(bob, stamp))
            two_ports = run(bob, cloud, [images[-1]] * args.cycles,
                            flavor.id, 'ports', count_calls,
                            networks=[{'uuid': n.id} for n in networks],
                            deleter=admin)
        finally:
            transport.cleanup()
            for net in networks:
                bob.network.delete_network(net, ignore_missing=True)
            for image_id in images:
                bob.image.delete_image(image_id, ignore_missing=True)
        memory = cloud.memory_kib()
        processes = sum(len(pids) for pids in cloud.pids().values())
    finally:
        if not args.state_dir:
            cloud.down(purge=True)

    print('Server create -> ACTIVE on the demo cloud (2 emulated boards, '
          'loopback bitstream for rp0, %d bytes; flavor %s; openstacksdk, '
          'polling every %d ms)' % (size, conventions.FLAVOR_NAME,
                                    POLL * 1000))
    p50_uncached = table('Uncached: a new image every cycle (downloaded '
                         'from Glance and sent to the board)', uncached)
    p50_cached = table('Cached: the same image every cycle (the board '
                       'loads it by digest after the first)', cached)
    p50_ports = table('Two ports: the cached image on two tenant networks '
                      '(--nic net-id=in --nic net-id=out)', two_ports)
    print('\nGoal: p50 under %.1f s: %s' % (GOAL, ', '.join(
        '%s %.3f s (%s)' % (label, p50, 'met' if p50 < GOAL else 'NOT met')
        for label, p50 in (('uncached', p50_uncached),
                           ('cached', p50_cached),
                           ('two ports', p50_ports)))))
    print('Stack memory: %.0f MB RSS in %d processes'
          % (memory / 1024, processes))
    print('\nCited, not measured here:')
    for what, figure in CITED:
        print('  %-46s %s' % (what, figure))


if __name__ == '__main__':
    with results.recorded('server_create'):
        main()
