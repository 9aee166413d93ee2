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

"""What every nova-fpga test stands on: the flavor and bitstream image of
``[fpga]`` resolved by name or ID, region servers created with their
clean-up, the waits, and the server's allocation in placement.

A test that takes regions takes a lock first, so that the plugin's tests,
which tempest runs in parallel workers, hold one region at a time between
them: a small cloud (DevStack's two emulated boards have two regions a vTC
fits) would otherwise answer one of them "No valid host".  The test that
fills every region runs serially (tempest's @serial), alone in the cloud.
"""
import os
import re
import time

from fasteners import process_lock
from oslo_concurrency import lockutils
from oslo_log import log as logging
from tempest.api.compute import base as compute_base
from tempest.common import waiters
from tempest import config
from tempest.lib.common.utils import data_utils
from tempest.lib.common.utils import test_utils
from tempest.lib import exceptions as lib_exc

CONF = config.CONF
LOG = logging.getLogger(__name__)

#: the first line of a region server's console log (nova_fpga.virt.console):
#: "board zynq0 region rp1: ACTIVE, module 0x4E460002"
CONSOLE_HEADLINE = re.compile(
    r'^board (?P<board>\S+) region (?P<region>\S+): (?P<state>[A-Z_]+), '
    r'module (?P<module>\S+)$', re.MULTILINE)
#: the image property the import derives from the bitstream's UserID
MODULE_ID_PROPERTY = 'fpga_module_id'
#: the image property naming the shell a bitstream was built for
SHELL_ID_PROPERTY = 'fpga_shell_id'
#: the image property saying why an import was refused
IMPORT_ERROR_PROPERTY = 'fpga_import_error'
#: image properties asking placement for a trait of a region
TRAIT_PROPERTY = re.compile(r'^trait:(CUSTOM_FPGA_\w+)$')
#: a region provider's name: board and region (nova_fpga.contract.placement)
REGION_PROVIDER_NAME = '%s:%s'
#: a region port's binding:vif_type (nova_fpga.contract.network.VIF_TYPE)
REGION_VIF_TYPE = 'fpga_region'
#: nova's fault when the scheduler found nowhere to put a server
NO_VALID_HOST = 'No valid host was found'
#: the lock the plugin's tests take while they hold regions
REGIONS_LOCK = 'nova-fpga-tempest-regions'


class FpgaBaseTest(compute_base.BaseV2ComputeTest):
    """A compute test with the primary user and an admin, no network made
    for the project (region servers take ``networks='none'``, from compute
    microversion 2.37), and helpers for region servers.
    """

    credentials = ['primary', 'admin']
    # networks='none' needs 2.37; the fault of an ERROR server is shown
    # to its owner from 2.1 on
    min_microversion = '2.37'
    create_default_network = False

    @classmethod
    def skip_checks(cls):
        super(FpgaBaseTest, cls).skip_checks()
        if not CONF.service_available.nova_fpga:
            raise cls.skipException(
                'nova-fpga is not available ([service_available] '
                'nova_fpga = False)')
        if not CONF.service_available.glance:
            raise cls.skipException('Glance is not available')

    @classmethod
    def setup_credentials(cls):
        cls.set_network_resources()
        super(FpgaBaseTest, cls).setup_credentials()

    @classmethod
    def setup_clients(cls):
        super(FpgaBaseTest, cls).setup_clients()
        cls.admin_servers_client = cls.os_admin.servers_client
        cls.admin_flavors_client = cls.os_admin.flavors_client
        cls.admin_images_client = cls.os_admin.image_client_v2
        cls.admin_placement_client = cls.os_admin.placement_client
        cls.admin_providers_client = cls.os_admin.resource_providers_client

    @classmethod
    def resource_setup(cls):
        super(FpgaBaseTest, cls).resource_setup()
        cls.fpga_flavor = cls.find_flavor(CONF.fpga.flavor)
        cls.fpga_image = cls.find_image(CONF.fpga.image)
        if cls.fpga_image['status'] != 'active':
            raise lib_exc.InvalidConfiguration(
                '[fpga] image %s (%s) is %s, not active: import it again '
                '(nova-fpga-manage image create)' % (
                    CONF.fpga.image, cls.fpga_image['id'],
                    cls.fpga_image['status']))
        if not cls.image_traits(cls.fpga_image):
            raise lib_exc.InvalidConfiguration(
                '[fpga] image %s (%s) has no trait:CUSTOM_FPGA_* '
                'properties: it was not imported through Glance\'s import '
                'flow, so no board would take it' % (
                    CONF.fpga.image, cls.fpga_image['id']))
        cls.region_class = CONF.fpga.region_resource_class

    # -- what [fpga] names

    @classmethod
    def find_flavor(cls, name_or_id):
        try:
            return cls.admin_flavors_client.show_flavor(name_or_id)['flavor']
        except lib_exc.NotFound:
            pass
        found = [f for f in cls.admin_flavors_client.list_flavors(
            detail=True, is_public='None')['flavors']
            if f['name'] == name_or_id]
        if len(found) != 1:
            raise lib_exc.InvalidConfiguration(
                '[fpga] flavor %r names %d flavors, not one (create it with '
                'nova-fpga-manage flavor create)' % (name_or_id, len(found)))
        return found[0]

    @classmethod
    def find_image(cls, name_or_id):
        try:
            return cls.admin_images_client.show_image(name_or_id)
        except (lib_exc.NotFound, lib_exc.BadRequest):
            pass
        found = cls.admin_images_client.list_images(
            params={'name': name_or_id})['images']
        if len(found) != 1:
            raise lib_exc.InvalidConfiguration(
                '[fpga] image %r names %d images, not one (the DevStack '
                'plugin imports vtc-bitstream; nova-fpga-manage image '
                'create imports others)' % (name_or_id, len(found)))
        return found[0]

    @staticmethod
    def image_traits(image):
        """The placement traits a bitstream image requires."""
        traits = []
        for key, value in image.items():
            match = TRAIT_PROPERTY.match(key)
            if match and value == 'required':
                traits.append(match.group(1))
        return sorted(traits)

    # -- region servers

    def take_regions_lock(self):
        """Hold the plugin's regions lock until this test's clean-up has
        deleted its servers (the clean-ups run last-in first-out, so call
        this before creating any).
        """
        path = os.path.join(lockutils.get_lock_path(CONF), REGIONS_LOCK)
        lock = process_lock.InterProcessLock(path)
        lock.acquire()
        self.addCleanup(lock.release)

    def create_region_server(self, image_id=None, flavor_id=None,
                             networks='none', wait_until='ACTIVE',
                             client=None, **kwargs):
        """A server from the bitstream image on the region flavor, deleted
        (and waited for) at the test's clean-up.

        wait_until: 'ACTIVE' waits for it to load (a fault fails the test
        with its message), 'ERROR' for it to end in ERROR, None returns it
        as created.
        """
        client = client or self.servers_client
        name = data_utils.rand_name(prefix=CONF.resource_name_prefix,
                                    name='fpga-region')
        server = client.create_server(
            name=name,
            imageRef=image_id or self.fpga_image['id'],
            flavorRef=flavor_id or self.fpga_flavor['id'],
            networks=networks, **kwargs)['server']
        self.addCleanup(waiters.wait_for_server_termination, client,
                        server['id'])
        self.addCleanup(test_utils.call_and_ignore_notfound_exc,
                        client.delete_server, server['id'])
        if wait_until == 'ACTIVE':
            return self.wait_for_active(server['id'], client)
        if wait_until == 'ERROR':
            return self.wait_for_error(server['id'], client)
        return server

    def wait_for_active(self, server_id, client=None):
        client = client or self.servers_client
        return waiters.wait_for_server_status(
            client, server_id, 'ACTIVE',
            extra_timeout=max(0, CONF.fpga.build_timeout -
                              client.build_timeout))

    def wait_for_error(self, server_id, client=None):
        """Wait for the server to leave BUILD, and fail unless it is in
        ERROR then; returns the server (with its ``fault``).
        """
        client = client or self.servers_client
        server = self.wait_while_building(server_id, client)
        self.assertEqual('ERROR', server['status'],
                         'server %s is %s, not ERROR: %s' % (
                             server_id, server['status'], server))
        return server

    def wait_while_building(self, server_id, client=None):
        client = client or self.servers_client
        deadline = time.monotonic() + CONF.fpga.build_timeout
        while True:
            server = client.show_server(server_id)['server']
            if server['status'] != 'BUILD':
                return server
            if time.monotonic() > deadline:
                raise lib_exc.TimeoutException(
                    'server %s still BUILD after %d s ([fpga] '
                    'build_timeout)' % (server_id, CONF.fpga.build_timeout))
            time.sleep(client.build_interval)

    def board_of(self, server_id):
        """The board (nova's hypervisor host name) a server is on."""
        server = self.admin_servers_client.show_server(server_id)['server']
        return server['OS-EXT-SRV-ATTR:hypervisor_hostname']

    # -- placement

    def allocations_of(self, server_id):
        """{provider UUID: {resource class: amount}} of a server."""
        allocations = self.admin_placement_client.list_allocations(
            server_id)['allocations']
        return {provider: dict(allocation['resources'])
                for provider, allocation in allocations.items()}

    def region_allocation(self, server_id):
        """(provider UUID, units) of each provider giving the server the
        region resource class.
        """
        return sorted(
            (provider, resources[self.region_class])
            for provider, resources in self.allocations_of(server_id).items()
            if self.region_class in resources)

    def wait_for_no_allocation(self, server_id):
        if not test_utils.call_until_true(
                lambda: not self.allocations_of(server_id),
                CONF.fpga.build_timeout, 1):
            self.fail('server %s is deleted, but placement still holds '
                      'allocations for it after %d s: %s' % (
                          server_id, CONF.fpga.build_timeout,
                          self.allocations_of(server_id)))

    def provider_name(self, provider_uuid):
        body = self.admin_providers_client.show_resource_provider(
            provider_uuid)
        return body.get('resource_provider', body)['name']

    def free_regions_for(self, image):
        """The region providers with a free region the image's traits
        fit (placement microversion 1.18: ``required``).
        """
        params = {'resources': '%s:1' % self.region_class}
        traits = self.image_traits(image)
        if traits:
            params['required'] = ','.join(traits)
        return self.admin_providers_client.list_resource_providers(
            **params)['resource_providers']
