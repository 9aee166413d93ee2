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

"""Two nova-compute proxies sharing the boards by the hash ring: when one
stops (its heartbeat ends), the other takes its boards and their servers,
which stay manageable; when it returns, its boards move back.  No region is
unloaded or reloaded by a move, and no region is held without a server."""
import time

from nova import context as nova_context
from nova import objects

from nova_fpga.virt import ring
from tests.agent import conftest as agent_fixtures
from tests.functional import base

PROXIES = ('proxy-a', 'proxy-b')
#: nova's heartbeat, shortened so a proxy is seen down within seconds
#: (its first report comes after servicegroup.api.INITIAL_REPORTING_DELAY)
REPORT_INTERVAL = 1
SERVICE_DOWN_TIME = 8
#: what the takeover must take at most: the down time and a few
#: resource updates of the surviving proxy
TAKEOVER_LIMIT = SERVICE_DOWN_TIME + 10


class ProxyRingTest(base.ZynqTestBase):
    BOARDS = tuple('board%d' % i for i in range(6))

    def setUp(self):
        # a server in every region: more than nova's default quota
        self.flags(instances=2 * len(self.BOARDS), group='quota')
        super().setUp()

    def _setup_compute_service(self):
        self.flags(report_interval=REPORT_INTERVAL,
                   service_down_time=SERVICE_DOWN_TIME)
        for host in PROXIES:
            self._start_compute(host)
        self.settle()
        return self.computes[PROXIES[0]]

    def settle(self):
        """Resource updates on every running proxy, twice: the first
        moves boards, the second sees the others' moves.
        """
        for _ in range(2):
            self._run_periodics(raise_on_error=True)

    def ctxt(self):
        return nova_context.get_admin_context()

    def node_hosts(self):
        """{board: host of its compute node}."""
        return {cn.hypervisor_hostname: cn.host for cn in
                objects.ComputeNodeList.get_all(self.ctxt())}

    def owners(self, hosts):
        r = ring.BoardRing(PROXIES[0])
        r.set_members(set(hosts))
        return {b: r.owner(b) for b in self.BOARDS}

    def load_calls(self):
        return {b: sum(kind.get('load', 0) for kind in self.cloud.client
                       .health({}, b)['calls'].values())
                for b in self.BOARDS}

    def held_regions(self):
        """{(board, region): server} as placement's allocations say."""
        driver = self.computes[PROXIES[1]].manager.driver
        found = {}
        for server in self.api.get_servers():
            for rp in self._get_allocations_by_server_uuid(server['id']):
                board, region = driver._boards.by_provider(rp)
                if board is not None:
                    found[(board.name, region)] = server['id']
        return found

    def test_takeover_and_return(self):
        self.assertEqual(self.owners(PROXIES), self.node_hosts())
        # a server in every region, so both proxies hold some
        images = {r: self.create_bitstream_image(
            agent_fixtures.opaque_for(r), 'opaque-%s' % r)
            for r in ('rp0', 'rp1')}
        servers = [self.boot(images[r]) for r in ('rp0', 'rp1')
                   for _ in self.BOARDS]
        self.assertEqual(self.loads(), self.held_regions())
        loads = self.load_calls()
        on_a = [s for s in servers
                if self.owners(PROXIES)[self.region_of(s)[0]] == PROXIES[0]]
        self.assertTrue(on_a)

        # proxy A dies: B takes its boards within the takeover time
        a = self.computes.pop(PROXIES[0])
        a.stop()
        stopped = time.monotonic()
        while set(self.node_hosts().values()) != {PROXIES[1]}:
            self.assertLess(time.monotonic() - stopped, TAKEOVER_LIMIT)
            time.sleep(0.5)
            self._run_periodics(raise_on_error=True)
        print('takeover: %.1f s (service_down_time %d s)'
              % (time.monotonic() - stopped, SERVICE_DOWN_TIME))
        for server in on_a:
            self.assertEqual(PROXIES[1],
                             self.api.get_server(server['id'])[
                                 'OS-EXT-SRV-ATTR:host'])
        # its servers are managed by B: stop, start, delete
        stopped_server = self._stop_server(on_a[0])
        self.assertEqual('SHUTOFF', stopped_server['status'])
        self._start_server(on_a[0])
        if len(on_a) > 1:
            self._delete_server(on_a[-1])
            servers.remove(on_a[-1])
            on_a.pop()
        self.assertEqual(self.loads(), self.held_regions())

        # A returns: its boards move back with their servers
        self.flags(host=PROXIES[0])
        self._start_compute(PROXIES[0])
        self.settle()
        self.assertEqual(self.owners(PROXIES), self.node_hosts())
        for server in servers:
            board = self.region_of(server)[0]
            self.assertEqual(self.owners(PROXIES)[board],
                             self.api.get_server(server['id'])[
                                 'OS-EXT-SRV-ATTR:host'])
            self.assertEqual('ACTIVE',
                             self.api.get_server(server['id'])['status'])
        self._stop_server(on_a[0])
        self._start_server(on_a[0])
        self.assertEqual(self.loads(), self.held_regions())
        # no region was reloaded by the moves
        self.assertEqual(loads, self.load_calls())
