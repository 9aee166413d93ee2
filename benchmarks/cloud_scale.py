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

"""Boards at scale on real services, beside nova's own floor (issue 20).

A demo cloud (localcloud.fleetcloud: keystone, glance with the bitstream
store, placement, neutron, nova-api, conductor and scheduler) whose 200
behavioural boards of 4 regions (one nova-fpga-board-fleet process) are
shared by two nova-compute proxies with the Zynq driver through the ring,
and beside them one nova-compute with nova's fake driver on a host of its
own.  Servers are created through the compute API with openstacksdk, 10 at
a time, polled every 100 ms until ACTIVE, then deleted: batches of region
servers (flavor fpga.region, a loopback bitstream for rp1) alternate with
batches of floor servers (the same flavor shape, 1 vCPU, 1 MB, 1 GB,
without a region: it lands on the fake host, the only host with VCPU,
MEMORY_MB and DISK_GB in placement; ZynqFilter also keeps its ordinary
image off the boards), the same client, user and polling for both.

Printed, each with its goal or reference, measured in this run:

- placement's providers (boards, their regions, the fake host);
- each proxy's periodic resource update (nova-compute's log): goal 10 s;
- scheduling time p50/p95 (nova-scheduler's log): goal p50 100 ms;
- create -> ACTIVE p50/p95, region against the floor: goal region p50 at
  most 1.15 x the floor's p50;
- memory per board: the fleet's RSS per board, and each proxy's RSS above
  the fake host's nova-compute (the same nova without boards) per board
  it manages;
- where a create's time goes, phase by phase for both sides (API and
  conductor, scheduler, the cast and claim on the compute, the driver's
  spawn, what follows), and the machine's load average.

Run: make bench-scale, or .venv/bin/python benchmarks/cloud_scale.py
[--boards 200] [--servers 50] [--concurrency 10] [--state-dir DIR (kept;
--keep: the cloud left running)]
(minutes: the cloud comes up first; not in CI).
"""
import argparse
import os
import pathlib
import statistics
import sys
import tempfile
import threading
import time

from nova_fpga.bitstream import builder
from nova_fpga import catalogue
from nova_fpga.cmd import manage
from nova_fpga.contract import shell as mf
from nova_fpga_devtools.localcloud import fleetcloud
from nova_fpga_devtools.localcloud import process
from nova_fpga_devtools.localcloud import rabbitmq
from nova_fpga_devtools.localcloud import vm_image

import nova_log_times as logs
import proxy_scale
import results
import server_create

PART = '7z020clg400'
REGION = 'rp1'
POLL = 0.1
FLOOR_FLAVOR = 'floor.tiny'
GOAL_SCHEDULING = 0.100
GOAL_RATIO = 1.15
GOAL_PERIODIC = 10.0


def p50_p95(values):
    return statistics.median(values), server_create.percentile(values, 0.95)


def verdict(met):
    return 'met' if met else 'NOT met'


def unlimited_quota(admin, project_id):
    """Room for every batch: nova's default is 10 instances a project."""
    admin.compute.put('/os-quota-sets/%s' % project_id, json={
        'quota_set': {'instances': -1, 'cores': -1, 'ram': -1}})


def floor_flavor(admin):
    """The region flavor's shape (1 vCPU, 1 MB, 1 GB) without its extra
    specs: standard resources only, which no board offers.
    """
    flavor = admin.compute.find_flavor(FLOOR_FLAVOR, ignore_missing=True)
    return flavor or admin.compute.create_flavor(
        name=FLOOR_FLAVOR, vcpus=1, ram=1, disk=1, is_public=True)


def floor_image(admin, work):
    """A 1 MiB raw image in Glance's file store (the fake driver reads
    nothing; the cloud's default store takes bitstreams only).
    """
    path = work / 'floor.raw'
    with open(path, 'wb') as disk:
        disk.truncate(1 << 20)
    session = admin.session
    image = session.post('/v2/images', json={
        'name': 'floor-image', 'disk_format': 'raw',
        'container_format': 'bare', 'visibility': 'public'},
        endpoint_filter=vm_image.ENDPOINT).json()
    session.put('/v2/images/%s/file' % image['id'], data=path.read_bytes(),
                endpoint_filter=vm_image.ENDPOINT,
                headers={'Content-Type': 'application/octet-stream',
                         'X-Image-Meta-Store': 'file'})
    return image['id']


def region_image(conn, shell, work):
    """A loopback bitstream for the region, through Glance's import flow."""
    path = work / ('loopback_%s.bit' % REGION)
    path.write_bytes(builder.build_partial(
        PART, 'bench_loopback_%s' % REGION, catalogue.module_id('loopback'),
        shell.region(REGION).footprint))
    return manage.create_image(conn, 'scale-loopback', str(path),
                               shell.shell_id).id


def create_and_wait(conn, name, image_id, flavor_id, results):
    began = time.time()
    server = conn.compute.create_server(
        name=name, image_id=image_id, flavor_id=flavor_id, networks='none')
    while True:
        server = conn.compute.get_server(server.id)
        if server.status != 'BUILD':
            break
        time.sleep(POLL)
    results.append({'id': server.id, 'began': began, 'active': time.time(),
                    'status': server.status,
                    'fault': (server.fault or {}).get('message')})


def batch(conns, label, image_id, flavor_id):
    """len(conns) servers created at once, each by its own connection,
    waited for, then deleted; their results.
    """
    results = []
    threads = [threading.Thread(target=create_and_wait, args=(
        conn, '%s-%d' % (label, i), image_id, flavor_id, results))
        for i, conn in enumerate(conns)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for row in results:
        conns[0].compute.delete_server(row['id'])
    deadline = time.monotonic() + 300
    for row in results:
        # one that outlives the deadline is reported, not the run's end
        row['deleted'] = False
        while time.monotonic() < deadline:
            if not conns[0].compute.find_server(row['id'],
                                                ignore_missing=True):
                row['deleted'] = True
                break
            time.sleep(0.5)
    return results


def providers(admin):
    """(boards, regions, others) among placement's resource providers."""
    rps = admin.session.get(
        '/resource_providers', endpoint_filter={
            'service_type': 'placement', 'interface': 'public'},
        headers={'OpenStack-API-Version': 'placement 1.14'}).json()[
            'resource_providers']
    children = [rp for rp in rps if rp['parent_provider_uuid']]
    parents = {rp['parent_provider_uuid'] for rp in children}
    boards = [rp for rp in rps if rp['uuid'] in parents]
    return len(boards), len(children), len(rps) - len(boards) - len(children)


def rss_kib(proc):
    """The service's resident memory (its processes by its pid file)."""
    return sum(proxy_scale.rss_kib(pid)
               for pid in process.pid_file_members(proc.pid_file))


def phases(rows, scheduled, computes):
    """{phase: [seconds]} of the ACTIVE servers in rows."""
    found = {}
    for row in rows:
        sched = scheduled.get(row['id'])
        comp = computes.get(row['id'], {})
        if row['status'] != 'ACTIVE' or sched is None or \
                'spawn_end' not in comp or 'claimed' not in comp:
            continue
        steps = [
            ('API request -> scheduler starts', sched[0] - row['began']),
            ('scheduling', sched[1] - sched[0]),
            ('selected -> claimed on compute', comp['claimed'] - sched[1]),
            ('claimed -> spawn start', comp['spawn_start'] - comp['claimed']),
            ('spawn (driver)', comp['spawn_end'] - comp['spawn_start'])]
        if 'transfer' in comp:
            steps += [('  of which image transfer', comp['transfer']),
                      ('  of which agent load call', comp['load'])]
        steps += [('spawn end -> ACTIVE seen', row['active']
                   - comp['spawn_end']),
                  ('create -> ACTIVE', row['active'] - row['began'])]
        for name, seconds in steps:
            found.setdefault(name, []).append(seconds)
    return found


def measure(cloud, args, work):
    """Everything the report prints, from the running cloud."""
    keystone = cloud.keystone
    admin, bob = server_create.connect(cloud, 'admin'), server_create.connect(
        cloud, 'bob')
    unlimited_quota(admin, bob.current_project_id)
    region_flavor, _ = manage.create_flavor(admin)
    flavor_floor = floor_flavor(admin)
    shell = mf.load(args.manifest)
    images = {'region': region_image(bob, shell, work),
              'floor': floor_image(admin, work)}
    flavors = {'region': region_flavor.id, 'floor': flavor_floor.id}
    conns = [server_create.connect(cloud, 'bob')
             for _ in range(args.concurrency)]
    started = time.time()
    load_before = os.getloadavg()
    rows = {'region': [], 'floor': []}
    for index in range(args.servers // args.concurrency):
        # alternate which side goes first: neither always meets a cloud
        # still busy with the other's deletes
        order = ('region', 'floor')
        if index % 2:
            order = order[::-1]
        for side in order:
            rows[side] += batch(conns, 'scale-%s-%d' % (side, index),
                                images[side], flavors[side])
    load_after = os.getloadavg()
    nova = cloud.nova(keystone)
    computes = cloud.computes(nova)
    # a periodic run of each proxy complete after the creates
    deadline = time.monotonic() + 3 * args.update_interval
    while time.monotonic() < deadline and not all(
            logs.periodic_runs(computes[p].log, since=started)
            for p in cloud.proxies):
        time.sleep(5)
    scheduled = logs.scheduling(nova.daemons['nova-scheduler'].log)
    compute_times = {}
    for compute in computes.values():
        compute_times.update(logs.compute_times(compute.log))
    return {
        'providers': providers(admin),
        'nodes': {host: len(nodes) for host, nodes in
                  cloud.nodes(keystone).items()},
        'periodic': {p: logs.periodic_runs(computes[p].log, since=started)
                     for p in cloud.proxies},
        'rows': rows,
        'scheduled': scheduled,
        'phases': {side: phases(rows[side], scheduled, compute_times)
                   for side in rows},
        'rss': {name: rss_kib(compute.process)
                for name, compute in computes.items()},
        'fleet_rss': rss_kib(cloud.fleet().process),
        'load': (load_before, load_after),
        'memory': cloud.memory_kib()}


def report(cloud, args, found):
    print('Scale on real services: %d behavioural boards x %d regions '
          '(one fleet process), proxies %s (Zynq driver), floor: %s with '
          "nova's %s; %d servers a side, %d at a time, openstacksdk polling "
          'every %d ms' % (
              cloud.fleet_count, len(mf.load(args.manifest).regions),
              ', '.join(cloud.proxies), fleetcloud.FAKE_HOST,
              fleetcloud.FAKE_DRIVER, args.servers, args.concurrency,
              POLL * 1000))
    before, after = found['load']
    print('machine load average (1, 5, 15 min): %.2f %.2f %.2f before the '
          'creates, %.2f %.2f %.2f after (%d cores)' % (
              before + after + (os.cpu_count(),)))
    boards, regions, others = found['providers']
    print('\nplacement providers: %d (%d boards, %d regions, %d other: the '
          'fake host)' % (boards + regions + others, boards, regions, others))
    print('compute nodes per host: %s' % ', '.join(
        '%s %d' % item for item in sorted(found['nodes'].items())))

    print('\nperiodic resource update per proxy (goal <= %.0f s at %d '
          'boards; every %d s, provider associations re-read every %s):' % (
              GOAL_PERIODIC, cloud.fleet_count, args.update_interval,
              '%d s' % args.association_refresh
              if args.association_refresh else 'never after start'))
    for proxy, runs in found['periodic'].items():
        if not runs:
            print('  %s: no complete run after the creates' % proxy)
            continue
        worst = max(runs, key=lambda run: run[0])
        print('  %s: %s (%d runs, nodes %s; worst %.2f s: %s)' % (
            proxy, ', '.join('%.2f s' % run[0] for run in runs), len(runs),
            '/'.join(str(run[1]) for run in runs), worst[0],
            verdict(worst[0] <= GOAL_PERIODIC)))
        print('    worst run by part, over its %d nodes: %s' % (
            worst[1], ', '.join('%s %.2f s (%.0f ms a node)' % (
                part, seconds, 1000 * seconds / worst[1])
                for part, seconds in worst[2].items())))

    sides = {}
    for side, rows in found['rows'].items():
        bad = [row for row in rows if row['status'] != 'ACTIVE']
        ok = [row['active'] - row['began'] for row in rows
              if row['status'] == 'ACTIVE']
        sides[side] = (ok, bad)
        for row in bad[:3]:
            print('  %s server %s went %s: %s' % (
                side, row['id'], row['status'], row['fault']))
        for row in rows:
            if not row['deleted']:
                print('  %s server %s (%s) was not deleted within 300 s of '
                      'its batch\'s deletes' % (
                          side, row['id'], row['status']))
    print('\nscheduling time (nova-scheduler log, select_destinations '
          'start -> host selected):')
    sched_p50 = {}
    for side, rows in found['rows'].items():
        times = [found['scheduled'][row['id']][1]
                 - found['scheduled'][row['id']][0]
                 for row in rows if row['id'] in found['scheduled']]
        if not times:
            print('  %s: none found' % side)
            continue
        sched_p50[side], p95 = p50_p95(times)
        print('  %-6s p50 %.3f s, p95 %.3f s (%d servers)' % (
            side, sched_p50[side], p95, len(times)))
    if 'region' in sched_p50:
        print('  goal: region p50 <= %.3f s: %s; ratio to the floor\'s '
              'scheduling: %.2f' % (
                  GOAL_SCHEDULING,
                  verdict(sched_p50['region'] <= GOAL_SCHEDULING),
                  sched_p50['region'] / sched_p50.get('floor', float('nan'))))

    print('\ncreate -> ACTIVE (client side, %d at a time):'
          % args.concurrency)
    p50 = {}
    for side, (ok, bad) in sides.items():
        if ok:
            p50[side], p95 = p50_p95(ok)
            print('  %-6s p50 %.3f s, p95 %.3f s (%d ACTIVE, %d not)' % (
                side, p50[side], p95, len(ok), len(bad)))
    if len(p50) == 2:
        ratio = p50['region'] / p50['floor']
        print('  ratio region/floor p50: %.2f (goal <= %.2f: %s)' % (
            ratio, GOAL_RATIO, verdict(ratio <= GOAL_RATIO)))

    print('\nwhere a create\'s time goes, p50 (s), region | floor:')
    for name in found['phases']['region']:
        values = [statistics.median(found['phases'][side][name])
                  if found['phases'][side].get(name) else None
                  for side in ('region', 'floor')]
        print('  %-34s %8s | %8s' % (name, *[
            '%.3f' % v if v is not None else '-' for v in values]))

    rss = found['rss']
    fake = rss[fleetcloud.FAKE_HOST]
    print('\nmemory per board:')
    print('  boards\' side: fleet RSS %d MiB for %d boards: %.0f KiB a '
          'board, the process\'s own start-up memory included '
          '(proxy_scale.py gives the increment per board)' % (
              found['fleet_rss'] // 1024, cloud.fleet_count,
              found['fleet_rss'] / cloud.fleet_count))
    for proxy in cloud.proxies:
        owned = found['nodes'].get(proxy, 0)
        print('  proxy %s: RSS %d MiB for %d boards, %d MiB above the fake '
              'host\'s nova-compute (%d MiB, nova without boards): %s' % (
                  proxy, rss[proxy] // 1024, owned,
                  (rss[proxy] - fake) // 1024, fake // 1024,
                  '%.0f KiB a board' % ((rss[proxy] - fake) / owned)
                  if owned else 'no boards'))
    print('  the whole cloud: %d MiB RSS' % (found['memory'] // 1024))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--boards', type=int, default=200)
    parser.add_argument('--servers', type=int, default=50,
                        help='servers a side (region, floor)')
    parser.add_argument('--concurrency', type=int, default=10)
    parser.add_argument('--update-interval', type=int, default=60,
                        help="the computes' update_resources_interval")
    parser.add_argument('--association-refresh', type=int, default=300,
                        help="the computes' [compute] resource_provider_"
                             "association_refresh (nova's default 300 s; 0: "
                             "never re-read after start)")
    parser.add_argument('--state-dir',
                        help='kept afterwards, the cloud stopped (default: '
                             'a temporary cloud, purged)')
    parser.add_argument('--keep', action='store_true',
                        help='with --state-dir: leave the cloud running')
    parser.add_argument('--database-url', default='mysql+pymysql://root@'
                        '127.0.0.1/', help='MariaDB to use when it answers')
    parser.add_argument('--transport-url', default=rabbitmq.DEFAULT_URL,
                        help='RabbitMQ to use when it answers')
    args = parser.parse_args()
    state_dir = pathlib.Path(args.state_dir or tempfile.mkdtemp(
        prefix='scale-bench-'))
    work = state_dir / 'bench'
    work.mkdir(parents=True, exist_ok=True)
    args.manifest = work / 'shell.json'
    proxy_scale.manifest(args.manifest)
    cloud = fleetcloud.FleetCloud(
        state_dir / 'cloud', boards=args.boards, manifest=args.manifest,
        update_interval=args.update_interval,
        association_refresh=args.association_refresh,
        database_url=args.database_url, transport_url=args.transport_url,
        output=sys.stderr)
    try:
        cloud.up()
        found = measure(cloud, args, work)
    finally:
        if not args.state_dir:
            cloud.down(purge=True)
        elif not args.keep:
            cloud.down()
    report(cloud, args, found)
    print('\ncloud up in %.0f s (%s)' % (cloud.timings['total'], ', '.join(
        '%s %.0f s' % item for item in cloud.timings.items()
        if item[0] != 'total')))
    return 0


if __name__ == '__main__':
    with results.recorded('cloud_scale'):
        sys.exit(main())
