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

"""Boards at scale: 200 behavioural boards of 4 regions, two proxies.

The boards are one nova-fpga-board-fleet process (behavioural backend) on a
private RabbitMQ, a server loaded into one region of each.  The proxies are
the Zynq driver's own code in this process, each managing its share of the
hash ring of two members, over the same bus.  Figures, and what each is
compared against:

- memory per board on the boards' side: the fleet's RSS with 200 boards
  less its RSS with 1, per board; against one agent process per board
  (the RSS of the 1-board fleet).
- the periodic task per proxy: the driver's part of nova's resource update
  for its boards (get_available_resource, a describe each, and
  update_provider_tree for the board and its regions); against nova's
  update_resources_interval default spacing of 60 s.  nova's own part
  (the resource tracker's database and placement work per node) is not in
  it.
- takeover work: what the surviving proxy's driver does when the other
  leaves the ring (a describe of each board it gains) and its next resource
  update over all 200 boards; the takeover time adds nova's detection of the
  dead proxy, [DEFAULT] service_down_time (60 s by default) and up to one
  resource update interval, which dominate.
- memory per board on the proxy's side: Python allocations of the driver's
  board cache (tracemalloc), per board.

Run: make bench-scale  (about 2 minutes; needs rabbitmq-server, installed
from Debian when missing).  --boards N for another count.
"""
import argparse
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time
import tracemalloc
import uuid

from nova.compute import provider_tree as nova_provider_tree
import nova.conf
import oslo_messaging as messaging

from nova_fpga.bitstream import builder
from nova_fpga.bitstream import footprint as fp
from nova_fpga.contract import agent_api as api
from nova_fpga.contract import shell as mf
from nova_fpga.virt import driver as zdriver
from nova_fpga.virt import ring
from nova_fpga_devtools.localcloud import process
from nova_fpga_devtools.localcloud import rabbitmq

import results

CONF = nova.conf.CONF
REGIONS = 4
PROXIES = ('proxy-a', 'proxy-b')
NOVA_PERIODIC_SECONDS = 60


def manifest(path):
    """The reference shell with two more (small) regions: four."""
    data = json.loads(mf.REFERENCE.read_text())
    for i in range(len(data['regions']), REGIONS):
        block = fp.Block((1 << 22) | ((i + 8) << 17), 101 * 20)
        data['regions'].append({
            'name': 'rp%d' % i, 'footprint': fp.Footprint((block,)).to_dict(),
            'decoupler': '0x%08X' % (0x43C00000 + i * 0x20000),
            'module': '0x%08X' % (0x43C10000 + i * 0x20000),
            'dma': '0x%08X' % (0x40400000 + i * 0x10000),
            'window': '0x10000', 'dma_channel': i, 'vlan': 300 + i})
    path.write_text(json.dumps(data))
    return mf.load(path)


def rss_kib(pid):
    found = process.rss_kib(pid)
    if not found:
        raise RuntimeError('no VmRSS for %d' % pid)
    return found


class FleetProcess:
    """nova-fpga-board-fleet with N boards, stopped by its pid."""

    def __init__(self, tmp, url, shell, boards):
        self.dir = tmp / ('fleet%d' % boards)
        (self.dir / 'sys').mkdir(parents=True)
        self.names = ['board%03d' % i for i in range(boards)]
        conf = self.dir / 'fleet.conf'
        conf.write_text(
            '[DEFAULT]\ntransport_url = %s\n'
            '[agent]\nbackend = behavioural\nmanifest = %s\n'
            'state_dir = %s\nsysfs_root = %s\n'
            '[fleet]\nboards = %d\nname_format = board%%03d\n'
            % (url, shell, self.dir / 'state', self.dir / 'sys', boards))
        self.log = open(self.dir / 'fleet.log', 'w')
        self.proc = subprocess.Popen(
            [os.path.join(sys.prefix, 'bin', 'nova-fpga-board-fleet'),
             '--config-file', str(conf)], stdout=self.log,
            stderr=subprocess.STDOUT)

    def wait_ready(self, client, timeout=600):
        """Seconds until every board answers (a call before a board's
        server listens is lost: asked again after a short timeout).
        """
        began = time.monotonic()
        for name in self.names:
            while True:
                if self.proc.poll() is not None:
                    self.log.flush()
                    raise RuntimeError('the fleet exited: %s' % pathlib.Path(
                        self.log.name).read_text()[-2000:])
                try:
                    client.describe({}, name)
                    break
                except messaging.MessagingTimeout:
                    if time.monotonic() - began > timeout:
                        raise
        return time.monotonic() - began

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def proxy(host, names, url, shell):
    """The Zynq driver as the proxy host would make it."""
    CONF.set_override('host', host)
    CONF.set_override('boards', names, group='zynq')
    CONF.set_override('transport_url', url, group='zynq')
    CONF.set_override('shell_manifest', str(shell), group='zynq')
    CONF.set_override('rpc_timeout', 30, group='zynq')
    return zdriver.ZynqDriver(None)


def periodic(driver, names):
    """The driver's part of one resource update over the boards; seconds."""
    tree = nova_provider_tree.ProviderTree()
    began = time.monotonic()
    for name in names:
        resources = driver.get_available_resource(name)
        if not tree.exists(name):
            tree.new_root(name, resources['uuid'])
        driver.update_provider_tree(tree, name)
    return time.monotonic() - began


def owned(members, host, names):
    r = ring.BoardRing(host)
    r.set_members(set(members))
    return [n for n in names if r.owns(n)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--boards', type=int, default=200)
    args = parser.parse_args()
    CONF([], project='nova', default_config_files=[], default_config_dirs=[])
    messaging.set_transport_defaults(api.EXCHANGE)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        shell_path = tmp / 'shell.json'
        shell = manifest(shell_path)
        node = rabbitmq.PrivateRabbitMQ(tmp, process.free_port(),
                                        process.free_port(),
                                        process.free_port()).start()
        fleets = []
        try:
            broker = node.broker
            broker.add_vhost('agents')
            url = broker.add_user('bench', uuid.uuid4().hex, 'agents')
            transport = messaging.get_rpc_transport(CONF, url=url)
            client = api.AgentAPI(transport, timeout=30)
            ping = api.AgentAPI(transport, timeout=2)
            one = FleetProcess(tmp, url, shell_path, 1)
            fleets.append(one)
            one.wait_ready(ping)
            time.sleep(2)
            rss_one = rss_kib(one.proc.pid)
            one.stop()
            fleets.remove(one)

            many = FleetProcess(tmp, url, shell_path, args.boards)
            fleets.append(many)
            ready = many.wait_ready(ping)
            names = many.names
            region = shell.regions[-1]
            data = builder.build_partial('7z020clg400', 'bench', 0xFFFFFFFF,
                                         region.footprint)
            digest = hashlib.sha256(data).hexdigest()
            began = time.monotonic()
            for name in names:
                client.load({}, name, region.name, str(uuid.uuid4()),
                            'img', digest, data)
            loading = time.monotonic() - began
            time.sleep(2)
            rss_many = rss_kib(many.proc.pid)

            tracemalloc.start()
            a = proxy(PROXIES[0], names, url, shell_path)
            before = tracemalloc.take_snapshot()
            share_a = owned(PROXIES, PROXIES[0], names)
            first = periodic(a, names)   # every board described once
            after = tracemalloc.take_snapshot()
            tracemalloc.stop()
            cache = sum(s.size_diff for s in after.compare_to(
                before, 'filename'))
            per_proxy = periodic(a, share_a)
            gained = [n for n in names if n not in share_a]
            began = time.monotonic()
            for name in gained:
                a._boards.refresh({}, a._boards[name])
            takeover = time.monotonic() - began
            alone = periodic(a, owned(PROXIES[:1], PROXIES[0], names))
            a._boards.client.cleanup()
            transport.cleanup()
        finally:
            for fleet in fleets:
                fleet.stop()
            node.stop()

    n = len(names)
    print('boards: %d behavioural boards x %d regions in one fleet process '
          '(ready in %.1f s), a server in region %s of each (%d loads in '
          '%.1f s)' % (n, REGIONS, ready, region.name, n, loading))
    print('memory per board, boards\' side: %.0f KiB (fleet RSS %d MiB '
          'with %d boards, %d MiB with 1); against one agent process per '
          'board: %d MiB each'
          % ((rss_many - rss_one) / (n - 1), rss_many // 1024, n,
             rss_one // 1024, rss_one // 1024))
    print('memory per board, proxy\'s side: %.1f KiB of Python allocations '
          'in the driver\'s board cache' % (cache / 1024 / n))
    print('periodic task per proxy (driver\'s part, 2 proxies): %.2f s for '
          '%d boards (%.1f ms a board); all %d boards from one proxy: '
          '%.2f s; first update (cold cache): %.2f s; against nova\'s %d s '
          'update_resources_interval'
          % (per_proxy, len(share_a), 1000 * per_proxy / len(share_a), n,
             alone, first, NOVA_PERIODIC_SECONDS))
    print('takeover work when the other proxy leaves: %.2f s to describe '
          'its %d boards, then %.2f s for the resource update of all %d; '
          'the takeover time adds nova\'s service_down_time (60 s default) '
          'and up to one update interval'
          % (takeover, len(gained), alone, n))
    return 0


if __name__ == '__main__':
    with results.recorded('proxy_scale'):
        sys.exit(main())
