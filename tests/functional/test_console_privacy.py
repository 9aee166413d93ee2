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

"""A region server's console log and diagnostics, through nova's API, show
its own history and counters only: a second project's server in the region
a first one left sees nothing of the first (issue 14)."""

from nova.tests.functional.api import client
from nova import utils

from nova_fpga.contract import placement
from nova_fpga.contract import reports
from tests.agent import conftest as agent_fixtures
from tests.functional import base

FRAME = bytes(range(64))


class _FakePath:
    """The board's data path (datapath.DataPath, the C data mover) as
    the region manager sees it, frames steered in by the test through the
    real module (the sim backend's in-process path) and counted.
    """

    def __init__(self, backend):
        self.backend = backend
        self._routes = {}
        self._counters = {}
        self.unsteered = 0

    def program(self, routes):
        self._routes = dict(routes)

    def routes(self):
        return dict(self._routes)

    def reset(self, region):
        self._counters[region] = dict.fromkeys(reports.DATAPLANE_COUNTERS, 0)

    def counters(self, region):
        return dict(self._counters.setdefault(
            region, dict.fromkeys(reports.DATAPLANE_COUNTERS, 0)))

    def steer(self, vlan, frame):
        route = self._routes.get(vlan)
        if route is None:
            self.unsteered += 1
            return
        c = self._counters.setdefault(
            route.region, dict.fromkeys(reports.DATAPLANE_COUNTERS, 0))
        c[reports.FRAMES_IN] += 1
        c[reports.BYTES_IN] += len(frame)
        for out in self.backend.transfer(route.region, frame):
            c[reports.FRAMES_OUT] += 1
            c[reports.BYTES_OUT] += len(out)


class ConsolePrivacyTest(base.ZynqTestBase):
    # one board: both servers' images fit its rp0 only
    BOARDS = ('board0',)

    def setUp(self):
        super().setUp()
        manager = self.cloud.agents['board0'].manager
        # the board's data plane without its packet socket: the test
        # steers frames in, through the real module and counters
        self.plane = _FakePath(manager.backend)
        manager.network.dataplane = self.plane
        # a member of each of two projects
        self.projects = {}
        for name in ('project-a', 'project-b'):
            api = client.TestOpenStackClient(
                'member-%s' % name, self.api_fixture.base_url,
                project_id=name, roles=['reader', 'member'])
            api.microversion = 'latest'
            self.projects[name] = api

    def traffic(self, region, count):
        vlan = agent_fixtures.REFERENCE.region(region).vlan
        for _ in range(count):
            self.plane.steer(vlan, FRAME)

    def create(self, project, image):
        return self._create_server(
            image_uuid=image, flavor_id=self.fpga_flavor, networks='none',
            api=self.projects[project])

    def console(self, project, server):
        return self.projects[project].post_server_action(
            server['id'], {'os-getConsoleOutput': {}})['output']

    def diagnostics(self, server, microversion):
        with utils.temporary_mutation(self.admin_api,
                                      microversion=microversion):
            return self.admin_api.api_get(
                '/servers/%s/diagnostics' % server['id']).body

    def test_second_server_sees_nothing_of_the_first(self):
        image_a = self.create_bitstream_image(
            agent_fixtures.module_for('rp0'), 'loopback-a')
        image_b = self.create_bitstream_image(
            agent_fixtures.module_for('rp0', seed=1), 'loopback-b')
        first = self.create('project-a', image_a)
        where = self.region_of(first)
        self.traffic('rp0', 5)
        first = self._start_server(self._stop_server(first))
        output = self.console('project-a', first)
        self.assertIn('loaded image %s' % image_a, output)
        self.assertIn('power off', output)
        self._delete_server(first)

        second = self.create('project-b', image_b)
        self.assertEqual(where, self.region_of(second))
        output = self.console('project-b', second)
        for trace in (first['id'], image_a, 'power'):
            self.assertNotIn(trace, output)
        self.assertIn('loaded image %s (module 0x4E460001) for instance %s'
                      % (image_b, second['id']), output)
        self.assertIn('module counters: frames 0, bytes 0', output)
        self.assertIn('  %s = 0' % reports.FRAMES_IN, output)

        self.traffic('rp0', 3)
        found = self.diagnostics(second, '2.48')
        self.assertGreaterEqual(found.pop('uptime'), 0)
        nic = dict.fromkeys(('mac_address', 'rx_errors', 'rx_rate',
                             'tx_errors', 'tx_drop', 'tx_rate'))
        nic.update(rx_packets=3, rx_octets=3 * len(FRAME), rx_drop=0,
                   tx_packets=3, tx_octets=3 * len(FRAME))
        self.assertEqual({
            'state': 'running', 'driver': 'ironic',
            'hypervisor': placement.HYPERVISOR_TYPE,
            'hypervisor_os': None, 'config_drive': False,
            'num_cpus': 0, 'num_disks': 0, 'num_nics': 1,
            'cpu_details': [], 'disk_details': [], 'nic_details': [nic],
            'memory_details': {'maximum': None, 'used': None}}, found)

        legacy = self.diagnostics(second, '2.47')
        self.assertGreaterEqual(legacy.pop('uptime'), 0)
        self.assertEqual(
            dict({'dataplane_%s' % k: 0 for k in reports.DATAPLANE_COUNTERS},
                 module_frames=3, module_bytes=3 * len(FRAME),
                 dataplane_frames_in=3, dataplane_bytes_in=3 * len(FRAME),
                 dataplane_frames_out=3, dataplane_bytes_out=3 * len(FRAME)),
            legacy)

    def test_silent_board_is_a_clear_refusal(self):
        server = self.create('project-a', self.region_image('rp0'))
        self.cloud.stop('board0')
        exc = self.assertRaises(client.OpenStackApiException, self.console,
                                'project-a', server)
        self.assertEqual(409, exc.response.status_code)
        self.assertIn('Cannot read region rp0 of board board0: its agent '
                      'did not answer within 5 s', str(exc))
