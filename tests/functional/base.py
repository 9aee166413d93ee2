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

"""nova's own functional harness (real API, conductor, scheduler, placement
and compute code) with the Zynq driver and filter, and real board agents
behind oslo.messaging's in-process transport.

Test images get their properties from the shared library
(traits.image_properties of the validated builder-made bitstream), and
nova's fake image service returns those bytes on download.
"""
import hashlib
import io
import os
import pathlib
import sys

import fixtures
from nova.tests.functional import integrated_helpers

from nova_fpga import bitstream
from nova_fpga.contract import traits
from nova_fpga import conventions
from nova_fpga.virt import driver  # noqa: F401  (registers [zynq])
from tests.agent import conftest as agent_fixtures

FILTER = 'nova_fpga.scheduler.filters.ZynqFilter'
SHELL_ID = agent_fixtures.REFERENCE.shell_id
FPGA_FLAVOR_SPECS = conventions.FLAVOR_EXTRA_SPECS


class ZynqTestBase(integrated_helpers._IntegratedTestBase):
    REQUIRES_LOCKING = False
    microversion = 'latest'
    ADMIN_API = True
    BOARDS = ('board0', 'board1')
    #: per-board agent options, {board: {(group, name): value}}
    AGENT_OPTIONS = {}

    def setUp(self):
        self.flags(compute_driver='zynq.ZynqDriver')
        # nova's tests give a stopping service's manager 0 s: its
        # cleanup_host then runs on in a thread (the driver's waits for its
        # report listeners), past nova's check for leaked pollers and past
        # its patch of shutdown_all_executors, so the real one shut the
        # process's thread pools for every later test; given time, the
        # stop returns when the cleanup is done
        self.flags(manager_shutdown_timeout=20)
        self.flags(boards=list(self.BOARDS), transport_url='fake:/',
                   rpc_timeout=5, group='zynq')
        # the wheel installs nova's paste config under sys.prefix
        self.flags(api_paste_config=os.path.join(
            sys.prefix, 'etc', 'nova', 'api-paste.ini'), group='wsgi')
        self.flags(available_filters=['nova.scheduler.filters.all_filters',
                                      FILTER],
                   enabled_filters=['ComputeFilter', 'ImagePropertiesFilter',
                                    'ZynqFilter'],
                   group='filter_scheduler')
        tmp = pathlib.Path(self.useFixture(fixtures.TempDir()).path)
        self.cloud = agent_fixtures.InProcessCloud(tmp)
        self.addCleanup(self.cloud.close)
        for board in self.BOARDS:
            self.cloud.start(board, self.AGENT_OPTIONS.get(board))
        # the driver reaches the agents on their (in-process) bus
        self.useFixture(fixtures.MonkeyPatch(
            'nova_fpga.virt.agents.get_transport',
            lambda conf, url=None: self.cloud.transport))
        self.useFixture(fixtures.MonkeyPatch(
            'nova_fpga.virt.agents.get_notification_transport',
            lambda conf, url=None: self.cloud.notifications))
        super().setUp()
        self.fpga_flavor = self._create_flavor(
            name='fpga.region', memory_mb=1, vcpu=1, disk=1, ephemeral=0,
            extra_spec=FPGA_FLAVOR_SPECS)

    def _wait_for_server_parameter(self, server, expected_params,
                                   max_retries=10, **kwargs):
        # a load runs the module's emulation beside nova: seconds on a busy
        # machine, past the 5 s (10 polls) nova's helpers wait by default
        return super()._wait_for_server_parameter(
            server, expected_params, max(max_retries, 60), **kwargs)

    def restart_compute_service(self, compute, keep_hypervisor_state=True):
        # nova's helper leaves the stopped service in self.computes, so
        # _run_periodics would run the old driver's resource update
        new = super().restart_compute_service(compute,
                                              keep_hypervisor_state)
        self.computes[new.host] = new
        return new

    def _clear_attrs(self):
        # nova deletes the bound test method pytest removes afterwards
        pass

    def create_bitstream_image(self, data, name, properties=None):
        """An imported bitstream image: the properties Glance's import
        derives (or those given), and Glance's SHA-256 hash of the data.
        """
        props = properties or traits.image_properties(
            bitstream.validate(data), SHELL_ID)
        image = self.glance.create(None, {
            'name': name, 'status': 'active', 'visibility': 'public',
            'container_format': 'bare', 'disk_format': 'raw',
            'size': len(data), 'min_ram': 0, 'min_disk': 0,
            'os_hash_algo': 'sha256',
            'os_hash_value': hashlib.sha256(data).hexdigest(),
            'properties': props}, data=io.BytesIO(data))
        return image['id']

    def region_image(self, region):
        return self.create_bitstream_image(agent_fixtures.module_for(region),
                                           'loopback-%s' % region)

    def boot(self, image_id, expected_state='ACTIVE', flavor=None):
        return self._create_server(
            image_uuid=image_id, flavor_id=flavor or self.fpga_flavor,
            networks='none', expected_state=expected_state)

    def loads(self):
        """{(board, region): instance UUID} as the agents report them."""
        found = {}
        for board in self.BOARDS:
            answer = self.cloud.client.describe({}, board)
            for region in answer['regions']:
                if region['instance_uuid']:
                    found[(board, region['name'])] = region['instance_uuid']
        return found

    def region_of(self, server):
        for where, uuid in self.loads().items():
            if uuid == server['id']:
                return where
        return None
