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

"""ZynqDriver: one nova-compute proxying many Zynq boards (like ironic).

Each configured board is a compute node; its reconfigurable regions are
nested providers.  A server is a partial bitstream loaded into the region
placement allocated to it.  The driver never touches hardware: every action
is an RPC call to the board's agent on the agents' own bus.  What the
agents last said is kept in a board cache (boards.py), fresh from their
state reports (listener.py), so nova's questions need no call.

A server's ports are bound as an ironic node's are: the driver names the
board as their binding host, the boards' mechanism driver (nova_fpga.ml2)
binds each to a VLAN segment of the boards' physical network, and the
load gives the agent those VLANs (network.py).
"""
import hashlib
import io
import time

from cryptography import exceptions as crypto_exc
from cryptography.hazmat.primitives import serialization
from cursive import exception as cursive_exception
from cursive import signature_utils
from keystoneauth1 import exceptions as ks_exceptions
from nova.compute import power_state
from nova.compute import task_states
from nova.compute import utils as compute_utils
from nova.compute import vm_states
from nova import context as nova_context
from nova import exception
from nova.image import glance
from nova import objects
from nova.objects import diagnostics as diagnostics_obj
from nova.scheduler.client import report
from nova.virt import driver
from nova.virt import hardware
import nova.virt.node
from oslo_log import log as logging
from oslo_utils import timeutils

from nova_fpga import catalogue
import nova_fpga.conf
from nova_fpga.contract import agent_api
from nova_fpga.contract import network as net
from nova_fpga.contract import placement
from nova_fpga.contract import reports
from nova_fpga.contract import shell
from nova_fpga.contract import signature as sig
from nova_fpga.contract import states
from nova_fpga.contract import traits
from nova_fpga.virt import agents
from nova_fpga.virt import boards as zboards
from nova_fpga.virt import console
from nova_fpga.virt import listener
from nova_fpga.virt import ownership
from nova_fpga.virt import ports as zports
from nova_fpga.virt import providers
from nova_fpga.virt import ring
from nova_fpga.virt import unsupported

LOG = logging.getLogger(__name__)
CONF = nova_fpga.conf.CONF

#: the digest a board caches and checks bitstreams by; Glance hashing with
#: it too (glance-api.conf [DEFAULT] hashing_algorithm) lets a board load
#: from its cache without a download
BOARD_DIGEST = 'sha256'
#: nova actions that power a server off before the part a region cannot do
POWER_OFF_FIRST = {task_states.RESCUING: 'rescue',
                   task_states.SHELVING: 'shelve'}
POWER_STATES = {states.ACTIVE: power_state.RUNNING,
                states.STOPPED: power_state.SHUTDOWN,
                states.FAILED: power_state.CRASHED}
#: nova's diagnostics name a driver from a closed list (its objects and
#: its API's response schema both refuse others): ironic is the proxy of
#: physical nodes this driver is modelled on; 'hypervisor' says zynq.
DIAGNOSTICS_DRIVER = 'ironic'


#: what nova's report client raises when a provider's allocations cannot
#: be read
PROVIDER_ALLOCATIONS_UNREAD = (
    ks_exceptions.ClientException,
    exception.ResourceProviderAllocationRetrievalFailed)


class BuildInterrupted(exception.NovaException):
    """The fault of a server whose build nova-compute did not live to
    finish (nova sets it to ERROR at the restart and records no fault).
    """
    msg_fmt = ('nova-compute stopped while building this server on board '
               '%(board)s and the build was not finished: %(where)s. '
               'Delete the server and create it again.')


class _DigestingWriter(io.BytesIO):
    """The downloaded image, hashed as nova writes it: with Glance's
    algorithm, and with SHA-256 for the board only when that is another.
    """

    def __init__(self, algorithm):
        super().__init__()
        self._glance = hashlib.new(algorithm)
        self._board = None if self._glance.name == BOARD_DIGEST else \
            hashlib.sha256()

    def write(self, chunk):
        self._glance.update(chunk)
        if self._board is not None:
            self._board.update(chunk)
        return super().write(chunk)

    def hexdigest(self):
        """Glance's hash of what was written."""
        return self._glance.hexdigest()

    def sha256(self):
        return (self._board or self._glance).hexdigest()


class ZynqDriver(driver.ComputeDriver):
    # Regions hold logic, not disks or guests: nova's capability flags
    # (all False by default) say so where nova has one; the other actions
    # are refused below (unsupported.py).
    capabilities = dict(driver.ComputeDriver.capabilities,
                        # so that resize and cold migrate reach this
                        # driver, which refuses them in words, instead of
                        # ending in the scheduler's "No valid host"
                        supports_migrate_to_same_host=True,
                        # a bitstream is downloaded through nova's image
                        # API with the server's trusted certificates
                        # (_download), so nova validates the signer's
                        # certificate as for libvirt; the board checks it
                        # again against its own trust store
                        supports_trusted_certs=True)
    # boards move between proxies (ring.py): nova moves their compute
    # nodes' host instead of refusing a node another host had
    rebalances_nodes = True

    def __init__(self, virtapi, read_only=False):
        super().__init__(virtapi)
        self._image_api = glance.API()
        self._boards = zboards.Boards(
            CONF.zynq.boards, CONF.zynq.uuid_namespace,
            shell.load(CONF.zynq.shell_manifest), agents.make_client(CONF))
        self._ownership = ownership.Ownership(self._boards, ring.BoardRing(
            CONF.host, CONF.zynq.board_group, CONF.zynq.peer_list))
        self._catalogue = catalogue.load(CONF.zynq.module_catalogue_dirs)
        self._reports = None
        self._started = time.time()
        #: instances whose spawn was turned away before any load was sent
        #: (their board silent): nothing of theirs to unload anywhere
        self._never_loaded = set()
        LOG.info('Zynq driver: boards %s, shell %s, agents on topic %s',
                 ', '.join(CONF.zynq.boards) or '(none)',
                 CONF.zynq.shell_manifest, CONF.zynq.topic)

    # -- nodes -------------------------------------------------------------

    def init_host(self, host):
        # nova refuses to restart a non-ironic compute whose local node
        # identity file is missing; the proxy's own identity is that file,
        # the boards' identities are derived from their names.
        nova.virt.node.get_local_node_uuid()
        self._reports = listener.make(CONF, self._boards)
        self._reports.start()
        owned = self._ownership.start(nova_context.get_admin_context())
        context = nova_context.get_admin_context(read_deleted='yes')
        for board in map(self._boards.__getitem__, owned):
            self._boards.refresh(agents.rpc_context(), board)
            if not board.up:
                LOG.warning('board %s: %s; its regions are reconciled when '
                            'nova-compute next starts with it answering',
                            board.name, board.problem)
                continue
            for name, region in board.regions().items():
                if region.instance_uuid:
                    self._reconcile(context, board, name, region)

    def process_instances_at_startup(self, context, instances):
        # nova puts a server whose build the last nova-compute left
        # unfinished in ERROR without a fault; the board can say how far
        # it got, so the tenant and the operator see why
        for instance in instances:
            if (instance.deleted or instance.node not in self._boards.by_name
                    or instance.vm_state != vm_states.BUILDING):
                continue
            board = self._boards[instance.node]
            name, region = board.region_of(instance.uuid)
            where = ('its board did not answer at the restart'
                     if not board.up else
                     'no region of the board holds it' if name is None else
                     'region %s holds its bitstream (%s) until the server '
                     'is deleted' % (name, region.state))
            self._record_interrupted(context, instance, board.name, where)
        self._fault_lost_builds(context, {i.uuid for i in instances})
        return instances

    def _fault_lost_builds(self, context, on_host):
        """Record why for the builds nova errors out next at startup
        (_error_out_instances_whose_build_was_interrupted): servers still
        BUILDING with a claim on one of this proxy's boards whose build
        request died with the last nova-compute before it reached the
        board, so they are on no host.
        """
        client = report.report_client_singleton()
        for name in self._ownership.owned:
            board = self._boards[name]
            try:
                consumers = set(client.get_allocations_for_resource_provider(
                    context, board.uuid).allocations) - on_host
            except PROVIDER_ALLOCATIONS_UNREAD as exc:
                LOG.warning('board %s: its claims could not be read from '
                            'placement (%s): builds lost at the restart get '
                            'no fault', name, exc)
                continue
            if not consumers:
                continue
            for instance in objects.InstanceList.get_by_filters(
                    context, {'vm_state': vm_states.BUILDING,
                              'uuid': sorted(consumers)}, expected_attrs=[]):
                self._record_interrupted(
                    context, instance, name, 'the build request was lost '
                    'before it reached the board (the region claimed for it '
                    'is freed when the server is deleted)')

    def _record_interrupted(self, context, instance, board, where):
        fault = BuildInterrupted(board=board, where=where)
        LOG.warning('%s', fault.format_message(), instance=instance)
        compute_utils.add_instance_fault_from_exc(context, instance, fault)

    def cleanup_host(self, host):
        if self._reports is not None:
            self._reports.stop()
            self._reports.wait()
            self._reports = None

    def _reconcile(self, context, board, name, region):
        """Free a region whose server nova no longer has on this board
        (deleted while nova-compute was down, or a load nova never
        recorded); keep and report the others (those nova has on another
        proxy too: ownership.py adopts them).
        """
        uuid = region.instance_uuid
        try:
            instance = objects.Instance.get_by_uuid(context, uuid,
                                                    expected_attrs=[])
        except exception.InstanceNotFound:
            instance = None
        if (instance is not None and not instance.deleted
                and instance.node == board.name):
            LOG.info('board %s region %s holds instance %s (%s)',
                     board.name, name, uuid, region.state)
            return
        why = ('nova has no such instance' if instance is None else
               'instance is deleted' if instance.deleted else
               'nova has the instance on node %s' % instance.node)
        LOG.warning('board %s region %s holds instance %s but %s: '
                    'unloading it', board.name, name, uuid, why)
        try:
            self._unload(agents.rpc_context(), board, name, uuid)
        except (agent_api.AgentError,) + zboards.UNREACHABLE as exc:
            LOG.error('board %s region %s: unloading instance %s failed: '
                      '%s', board.name, name, uuid,
                      zboards.agent_error_text(exc))

    def get_available_nodes(self, refresh=False):
        # called by nova's periodic resource update: the ring follows the
        # live proxies there, as ironic's driver does
        return self._ownership.refresh(nova_context.get_admin_context())

    def get_nodenames_by_uuid(self, refresh=False):
        return {self._boards[name].uuid: name
                for name in self._ownership.owned}

    def node_is_available(self, nodename):
        # nova asks at every claim: the boards of the last resource update,
        # as ironic's driver answers from its node cache
        return nodename in self._ownership.owned

    def is_node_deleted(self, nodename):
        # a board that left this proxy is another's now, not gone
        return nodename not in self._boards.by_name

    def get_available_resource(self, nodename):
        # nova's periodic update: a call for no request
        board = self._boards.refresh({}, self._boards[nodename])
        zports.forget_unbound(self._boards, board)
        free = sum(1 for r in board.manifest.regions
                   if board.usable(r.name)
                   and not getattr(board.regions().get(r.name),
                                   'instance_uuid', None))
        return {
            'uuid': board.uuid,
            'hypervisor_hostname': board.name,
            'hypervisor_type': placement.HYPERVISOR_TYPE,
            'hypervisor_version': 1,
            # a board runs no guests: nothing a VM flavor could claim
            'vcpus': 0, 'memory_mb': 0, 'local_gb': 0,
            'vcpus_used': 0, 'memory_mb_used': 0, 'local_gb_used': 0,
            'disk_available_least': 0,
            'cpu_info': '',
            'supported_instances': [],
            'numa_topology': None,
            # what the scheduler filter reads (image properties nova drops)
            'stats': {placement.STAT_BOARD: board.name,
                      placement.STAT_AGENT: placement.AGENT_UP if board.up
                      else placement.AGENT_DOWN,
                      placement.STAT_SHELL_ID: board.manifest.shell_id,
                      placement.STAT_UNFIT: board.refusal() or '',
                      placement.STAT_FREE_REGIONS: str(free),
                      placement.STAT_SIGNED_ONLY: placement.SIGNED_ONLY
                      if board.signed_only() else '',
                      # what the CachedBitstreamWeigher reads
                      placement.STAT_CACHED_IMAGES: ','.join(
                          sorted(set(board.cached().values())))},
        }

    def update_provider_tree(self, provider_tree, nodename, allocations=None):
        providers.update(provider_tree, self._boards[nodename])

    def network_binding_host_id(self, context, instance):
        """The board: a region's ports are bound where its frames flow,
        as ironic binds a node's ports to the node (nova's default, the
        proxy's host, is bound by no mechanism driver).
        """
        return instance.node

    def get_host_ip_addr(self):
        # the proxy's own address, as ironic's driver answers
        return CONF.my_ip

    def get_host_uptime(self):
        return 'nova-compute for Zynq boards up %d s' % (
            time.time() - self._started)

    # -- instances ---------------------------------------------------------

    def list_instance_uuids(self):
        return [uuid for uuid, (board, _) in self._boards.instances().items()
                if board.name in self._ownership.owned]

    def list_instances(self):
        # regions know their servers by UUID only
        return self.list_instance_uuids()

    def _region_of(self, instance):
        """(board, region name, region report) of the region holding the
        instance, from the cache; asks the agent once when the cache does
        not show it (the agent checks the holder of a region on every
        call, so a stale cache cannot make it act on another's region).
        """
        board = self._boards[instance.node]
        name, region = board.region_of(instance.uuid)
        if name is None:
            self._boards.refresh(agents.rpc_context(), board)
            name, region = board.region_of(instance.uuid)
        if name is None:
            raise exception.InstanceNotFound(instance_id=instance.uuid)
        return board, name, region

    def get_info(self, instance, use_cache=True):
        board = self._boards[instance.node]
        if not use_cache and not self._just_spawned(board, instance):
            self._boards.refresh(agents.rpc_context(), board)
        if not board.up:
            # not lost, not known: nova leaves an ACTIVE server alone
            return hardware.InstanceInfo(state=power_state.NOSTATE)
        name, region = board.region_of(instance.uuid)
        if name is None:
            raise exception.InstanceNotFound(instance_id=instance.uuid)
        if region.state == states.ACTIVE and board.unfit():
            # held off the shell by the board's watchdog until it cools:
            # nova leaves an ACTIVE server that is PAUSED alone, and the
            # tenant sees "Paused" (and why in the console log)
            return hardware.InstanceInfo(state=power_state.PAUSED)
        return hardware.InstanceInfo(
            state=POWER_STATES.get(region.state, power_state.NOSTATE))

    @staticmethod
    def _just_spawned(board, instance):
        """Whether nova is reading the power state the moment spawn
        returned: the load's own answer is that state, no describe needed.
        Other callers of get_info(use_cache=False) get a describe.
        """
        return (instance.task_state == task_states.SPAWNING
                and board.answered_now(board.region_of(instance.uuid)[0]))

    def _unload(self, ctxt, board, region, instance_uuid):
        board.take_region(reports.RegionReport.from_dict(
            self._boards.client.unload(ctxt, board.name, region,
                                       instance_uuid)))

    def spawn(self, context, instance, image_meta, injected_files,
              admin_password, allocations, network_info=None,
              block_device_info=None, power_on=True, accel_info=None):
        board, region = self._allocated_region(context, instance,
                                               allocations)
        try:
            network = zports.region_network(network_info)
        except ValueError as exc:
            raise exception.BuildAbortException(instance_uuid=instance.uuid,
                                                reason=str(exc))
        if network is not None and not board.speaks(
                agent_api.NETWORK_VERSION):
            raise exception.BuildAbortException(
                instance_uuid=instance.uuid,
                reason='board %s runs agent API %s, which cannot put a '
                       'region on tenant networks (%s needed): upgrade its '
                       'agent, or create the server with --nic none'
                       % (board.name, board.api_version(),
                          agent_api.NETWORK_VERSION))
        image = self._image_api.get(context, instance.image_ref)
        try:
            settings = self._settings(board, instance, image)
        except catalogue.SettingError as exc:
            raise exception.BuildAbortException(
                instance_uuid=instance.uuid, reason=str(exc))
        silence = board.silence(CONF.zynq.report_timeout) or \
            self._unanswered(context, board)
        if silence:
            # the agent's reports stopped: no load call to wait on, and
            # another board may well take the server (nova reschedules
            # once destroy has found nothing to unload)
            zboards.Boards.lost(board, silence)
            self._never_loaded.add(instance.uuid)
            raise exception.ComputeResourcesUnavailable(reason=silence)
        try:
            self._load(context, instance, board, region, network, image,
                       settings)
        except (agent_api.LoadFailed, agent_api.RegionBusy,
                agent_api.HardwareError, agent_api.StateNotSaved) as exc:
            # another board (or region) may well take it: reschedule
            raise exception.ComputeResourcesUnavailable(
                reason=zboards.agent_error_text(exc))
        except zboards.UNREACHABLE:
            raise exception.ComputeResourcesUnavailable(
                reason='board %s did not answer the load of region %s '
                       'within %d s' % (board.name, region,
                                        CONF.zynq.load_timeout))
        except agent_api.AgentError as exc:
            raise exception.BuildAbortException(
                instance_uuid=instance.uuid,
                reason='board %s refused the load: %s'
                % (board.name, zboards.agent_error_text(exc)))
        LOG.info('loaded image %s into board %s region %s',
                 instance.image_ref, board.name, region, instance=instance)
        if not power_on:
            self._power(instance, False)

    def _unanswered(self, context, board):
        """Why the board's agent cannot take a load now, or None: a health
        call (no lock of the agent's, a few milliseconds) with [zynq]
        rpc_timeout before every load.  An agent that died since its last
        report, however recent (reports come every second), is found here,
        in rpc_timeout, not by the load's [zynq] load_timeout.
        """
        try:
            self._boards.client.health(agents.rpc_context(context),
                                       board.name)
        except zboards.UNREACHABLE:
            return ('board %s does not answer: no answer from its agent '
                    'within %d s' % (board.name, CONF.zynq.rpc_timeout))
        return None

    def _allocated_region(self, context, instance, allocations):
        """(board, region name) of the region placement allocated to the
        instance.

        nova reads the allocations for spawn with its legacy call, which
        answers None when placement cannot be reached and {} when placement
        answers with an error: without a region in them they are read
        again here, with the call that raises, so that a placement outage
        is reported as one and not as a flavor without a region.
        """
        found = _region_provider(allocations)
        if found is None:
            try:
                allocations = report.report_client_singleton(
                ).get_allocs_for_consumer(context, instance.uuid).get(
                    'allocations')
            except (ks_exceptions.ClientException,
                    exception.ConsumerAllocationRetrievalFailed) as exc:
                raise exception.BuildAbortException(
                    instance_uuid=instance.uuid,
                    reason='the allocation of instance %s could not be read '
                           'from placement (%s: %s), so the FPGA region it '
                           'was given is not known: is placement reachable?'
                           % (instance.uuid, type(exc).__name__,
                              str(exc).split('\n')[0]))
            found = _region_provider(allocations)
        if found is None:
            raise exception.BuildAbortException(
                instance_uuid=instance.uuid,
                reason='no FPGA region was allocated: the flavor must '
                       'request %s=1' % placement.REGION_EXTRA_SPEC)
        board, region = self._boards.by_provider(found)
        if board is None or board.name != instance.node:
            raise exception.BuildAbortException(
                instance_uuid=instance.uuid,
                reason='allocated region provider %s is not a region of '
                       'board %s' % (found, instance.node))
        return board, region

    def _settings(self, board, instance, image):
        """The tenant's settings of the module the image holds ({server
        property: number}, the module catalogue's tenant settings): the
        image's properties give defaults, the server's override them
        (``openstack server create --property vtc:dscp:sip=46``).

        :raises catalogue.SettingError: a property in a module's namespace
            that the image's module does not take, a value out of its
            range, or a board whose agent cannot apply settings.
        """
        properties = image.get('properties', {})
        wanted = {key: value for key, value in properties.items()
                  if self._catalogue.claims(key)}
        wanted.update(instance.metadata or {})
        settings = self._catalogue.settings_of(traits.module_id(properties),
                                               wanted)
        if settings and not board.speaks(agent_api.SETTINGS_VERSION):
            raise catalogue.SettingError(
                'board %s runs agent API %s, which cannot set a module\'s '
                'registers (%s needed): upgrade its agent, or create the '
                'server without the properties %s'
                % (board.name, board.api_version(),
                   agent_api.SETTINGS_VERSION, ', '.join(sorted(settings))))
        return settings

    def _load(self, context, instance, board, region, network, image,
              settings):
        """Load the server's image (Glance's record of it: image) into its
        region, on its ports' VLANs (network; None: the manifest's), with
        the tenant's settings of its module: by digest alone when the
        board caches it (no image transfer), else downloaded.  Logs where
        the time went (the create benchmark reads that line).
        """
        started = time.monotonic()
        algorithm, glance_hash = self._glance_hash(instance, image)
        signature = self._signature(context, instance, board, image)
        # the board's cache and checks are keyed on SHA-256
        sha256 = glance_hash if algorithm == BOARD_DIGEST else None
        client = self._boards.client
        result = None
        if sha256 in board.cached() and client.can_load_cached() and \
                not self._nova_verifies(instance, signature):
            try:
                result = client.load(
                    agents.rpc_context(context), board.name, region,
                    instance.uuid, instance.image_ref, sha256, None,
                    timeout=CONF.zynq.load_timeout, network=network,
                    settings=settings, signature=signature)
                LOG.info('board %s loaded image %s from its cache',
                         board.name, instance.image_ref, instance=instance)
            except agent_api.NotCached:
                LOG.info('board %s no longer caches image %s: sending it',
                         board.name, instance.image_ref, instance=instance)
        transfer = 0.0
        if result is None:
            data, sha256 = self._download(context, instance, algorithm,
                                          glance_hash)
            transfer = time.monotonic() - started
            result = client.load(
                agents.rpc_context(context), board.name, region,
                instance.uuid, instance.image_ref, sha256, data,
                timeout=CONF.zynq.load_timeout, network=network,
                settings=settings, signature=signature)
        board.take_region(reports.RegionReport.from_dict(result))
        report = reports.LoadReport.from_dict(result)
        LOG.info('spawn timing: image transfer %.3f s, load call %.3f s '
                 '(configuration port %.3f s modelled, agent %.3f s) on '
                 'board %s region %s', transfer,
                 time.monotonic() - started - transfer,
                 report.port_seconds, report.agent_seconds, board.name,
                 region,
                 instance=instance)

    @staticmethod
    def _signature(context, instance, board, image):
        """The signature.BitstreamSignature the board verifies before it
        programs (agent API 1.5), for an image with Glance's signature
        properties: its signer's certificate fetched from the key manager
        as nova and Glance fetch it (cursive, through castellan); None for
        an unsigned image.

        :raises cursive's SignatureVerificationError: the certificate is
            not in the key manager, or the properties are incomplete
            (nova's compute manager makes it the server's fault)
        :raises BuildAbortException: the board's agent cannot verify
        """
        properties = image.get('properties', {})
        if not sig.is_signed(properties):
            return None
        if not board.speaks(agent_api.SIGNATURE_VERSION):
            raise exception.BuildAbortException(
                instance_uuid=instance.uuid,
                reason='board %s runs agent API %s, which cannot verify a '
                       'signed image (%s needed): upgrade its agent'
                       % (board.name, board.api_version(),
                          agent_api.SIGNATURE_VERSION))
        missing = [name for name in sig.PROPERTIES
                   if not properties.get(name)]
        if missing:
            raise cursive_exception.SignatureVerificationError(
                reason='image %s is signed but lacks the properties %s'
                % (instance.image_ref, ', '.join(missing)))
        certificate = signature_utils.get_certificate(
            context, properties[sig.CERTIFICATE_PROPERTY])
        try:
            return sig.BitstreamSignature.from_properties(
                properties, certificate.public_bytes(
                    serialization.Encoding.PEM).decode('ascii'))
        except sig.MalformedSignature as exc:
            raise cursive_exception.SignatureVerificationError(
                reason='image %s: %s' % (instance.image_ref, exc))

    @staticmethod
    def _nova_verifies(instance, signature):
        """Whether nova verifies this image's signature as it downloads
        it ([glance] verify_glance_signatures, or the server's trusted
        certificates): then it is downloaded, not loaded from the board's
        cache, so nova's check runs at every load as for any other driver.
        """
        return signature is not None and bool(
            CONF.glance.verify_glance_signatures or instance.trusted_certs
            or (CONF.glance.enable_certificate_validation
                and CONF.glance.default_trusted_certificate_ids))

    @staticmethod
    def _glance_hash(instance, image):
        """(algorithm, hex digest) of the image's data as Glance hashed it
        when storing it (os_hash_algo, os_hash_value).  What a region runs
        is identified by this: no API user, admin included, can change it,
        unlike an image property.
        """
        algorithm = image.get('os_hash_algo')
        glance_hash = image.get('os_hash_value')
        if not glance_hash or algorithm not in hashlib.algorithms_available:
            raise exception.BuildAbortException(
                instance_uuid=instance.uuid,
                reason='image %s has no data hash from Glance (os_hash_algo '
                       '%s): upload its bitstream again with openstack '
                       'image create --import' % (instance.image_ref,
                                                  algorithm))
        return algorithm, glance_hash

    def _download(self, context, instance, algorithm, glance_hash):
        """(The image's bits, their SHA-256) through nova's image API with
        the request's context (private images, nova's signature checks),
        checked against Glance's hash of the data as they stream in: one
        digest when Glance hashes with SHA-256 (BOARD_DIGEST), which is the
        one the board gets.
        """
        buf = _DigestingWriter(algorithm)
        try:
            # nova's own signature and certificate checks, as it makes
            # them for any driver's download
            self._image_api.download(context, instance.image_ref, data=buf,
                                     trusted_certs=instance.trusted_certs)
        except crypto_exc.InvalidSignature:
            raise cursive_exception.SignatureVerificationError(
                reason='the signature of image %s does not match its data'
                % instance.image_ref)
        data = buf.getvalue()
        actual = buf.hexdigest()
        if actual != glance_hash:
            raise exception.BuildAbortException(
                instance_uuid=instance.uuid,
                reason='image %s downloaded with %s %s, but Glance stored '
                       'data with %s' % (instance.image_ref, algorithm,
                                         actual, glance_hash))
        return data, buf.sha256()

    def destroy(self, context, instance, network_info, block_device_info=None,
                destroy_disks=True, destroy_secrets=True):
        if instance.uuid in self._never_loaded:
            # spawn sent no load: the board holds nothing of it
            self._never_loaded.discard(instance.uuid)
            return
        board = self._boards[instance.node]
        region, _ = board.region_of(instance.uuid)
        if region is None or not board.up:
            # the cache may lag a load, or the board be back: ask once
            self._boards.refresh(agents.rpc_context(context), board)
            region, _ = board.region_of(instance.uuid)
        if board.up and region is None:
            return  # nothing loaded (spawn failed early, or already freed)
        if board.up:
            try:
                self._unload(agents.rpc_context(context), board, region,
                             instance.uuid)
                return
            except zboards.UNREACHABLE as exc:
                self._boards.lost(board, exc)
        # it may still hold the server's region: freeing nova's record now
        # would leave that region held with nobody to free it
        raise exception.NovaException(
            'board %s: %s; cannot unload instance %s from it now'
            % (board.name, board.problem, instance.uuid))

    def cleanup(self, context, instance, network_info, block_device_info=None,
                destroy_disks=True, migrate_data=None, destroy_vifs=True,
                destroy_secrets=True):
        """Nothing is left on the compute host after destroy."""

    def _power(self, instance, on):
        board, region, _ = self._region_of(instance)
        failure = (exception.InstancePowerOnFailure if on
                   else exception.InstancePowerOffFailure)
        try:
            board.take_region(reports.RegionReport.from_dict(
                self._boards.client.power(agents.rpc_context(), board.name,
                                          region, instance.uuid, on)))
        except agent_api.AgentError as exc:
            raise failure(reason=zboards.agent_error_text(exc))
        except zboards.UNREACHABLE as exc:
            self._boards.lost(board, exc)
            raise failure(reason='board %s: %s, so the server could not '
                                 'be %s; try again once the board answers'
                                 % (board.name, board.problem,
                                    'started' if on else 'stopped'))

    def power_off(self, instance, timeout=0, retry_interval=0):
        # nova's rescue and shelve power the server off before they ask the
        # driver for what a region cannot do: refuse before the region is
        # touched, so the server keeps running
        refused = POWER_OFF_FIRST.get(instance.task_state)
        if refused:
            raise unsupported.error(refused)
        self._power(instance, False)

    def power_on(self, context, instance, network_info,
                 block_device_info=None, accel_info=None, share_info=None):
        self._power(instance, True)

    def reboot(self, context, instance, network_info, reboot_type,
               block_device_info=None, bad_volumes_callback=None,
               accel_info=None, share_info=None):
        """Soft: reset the module (its logic restarts, the bitstream stays).
        Hard: load the bitstream again, which also recovers a region whose
        load failed or whose logic is suspect, with the server's settings
        as they are now (a soft reboot keeps those of its last load).
        """
        board, region, state = self._region_of(instance)
        try:
            if reboot_type == 'SOFT' and state.state == states.ACTIVE:
                board.take_region(reports.RegionReport.from_dict(
                    self._boards.client.reset(agents.rpc_context(context),
                                              board.name, region,
                                              instance.uuid)))
                LOG.info('module in board %s region %s reset', board.name,
                         region, instance=instance)
                return
            image = self._image_api.get(context, instance.image_ref)
            # on the ports it has now (one may have been detached since)
            self._load(context, instance, board, region,
                       net.RegionNetwork.from_dict(state.network)
                       if state.network is not None else None, image,
                       self._settings(board, instance, image))
        except (agent_api.AgentError, catalogue.SettingError) as exc:
            raise exception.InstanceRebootFailure(
                reason=zboards.agent_error_text(exc))
        except (cursive_exception.SignatureVerificationError,
                exception.CertificateValidationFailed) as exc:
            raise exception.InstanceRebootFailure(
                reason=exc.format_message())
        except zboards.UNREACHABLE:
            raise exception.InstanceRebootFailure(
                reason='board %s does not answer' % board.name)
        LOG.info('bitstream reloaded into board %s region %s', board.name,
                 region, instance=instance)

    def detach_interface(self, context, instance, vif):
        """Forget the port's VLAN on the board (nova detaches it, or
        Neutron deleted it): its frames no longer reach the region.
        """
        board, region, _ = self._region_of(instance)
        try:
            zports.detach(self._boards, board, region, instance.uuid,
                          vif['id'], agents.rpc_context(context))
        except (agent_api.AgentError,) + zboards.UNREACHABLE as exc:
            raise exception.InterfaceDetachFailed(
                instance_uuid=instance.uuid) from exc

    def snapshot(self, context, instance, image_id, update_task_state):
        raise unsupported.error('snapshot')

    def migrate_disk_and_power_off(self, context, instance, dest, flavor,
                                   network_info, block_device_info=None,
                                   timeout=0, retry_interval=0):
        raise unsupported.rollback('migrate or resize')

    def suspend(self, context, instance):
        raise unsupported.rollback('suspend')

    def pause(self, instance):
        raise unsupported.error('pause')

    def rescue(self, context, instance, network_info, image_meta,
               rescue_password, block_device_info, share_info):
        raise unsupported.error('rescue')

    def get_volume_connector(self, instance):
        raise unsupported.error('attach volumes to')

    def attach_volume(self, context, connection_info, instance, mountpoint,
                      disk_bus=None, device_type=None, encryption=None):
        raise unsupported.error('attach volumes to')

    def _stats(self, context, instance):
        """(board, the instance's RegionStats) as the instance may see them:
        its own history and counters only (the agent checks it holds the
        region).  A board that cannot answer is a nova error that says so.
        """
        board, region, _ = self._region_of(instance)
        try:
            return board, reports.RegionStats.from_dict(
                self._boards.client.stats(agents.rpc_context(context),
                                          board.name, region, instance.uuid))
        except zboards.UNREACHABLE as exc:
            self._boards.lost(board, exc)
            reason = ('its agent did not answer within %d s'
                      % CONF.zynq.rpc_timeout)
        except agent_api.AgentError as exc:
            reason = zboards.agent_error_text(exc)
        raise exception.InstanceNotReady(
            instance_id=instance.uuid,
            message='Cannot read region %s of board %s: %s'
            % (region, board.name, reason))

    def get_console_output(self, context, instance):
        board, stats = self._stats(context, instance)
        return console.render(board.name, stats, self._catalogue)

    def get_instance_diagnostics(self, instance):
        _, stats = self._stats(None, instance)
        diagnostics = diagnostics_obj.Diagnostics(
            state=power_state.STATE_MAP[POWER_STATES.get(
                stats.state, power_state.NOSTATE)],
            driver=DIAGNOSTICS_DRIVER, hypervisor=placement.HYPERVISOR_TYPE,
            config_drive=False, uptime=_uptime(instance))
        plane = stats.dataplane
        # the region's VLAN on the board's data interface; all None when
        # the board has none
        diagnostics.add_nic(rx_packets=plane.get(reports.FRAMES_IN),
                            rx_octets=plane.get(reports.BYTES_IN),
                            rx_drop=plane.get(reports.DROPPED),
                            tx_packets=plane.get(reports.FRAMES_OUT),
                            tx_octets=plane.get(reports.BYTES_OUT))
        return diagnostics

    def get_diagnostics(self, instance):
        """Legacy diagnostics (microversions before 2.48): the counters of
        get_instance_diagnostics and the module's, flat.
        """
        _, stats = self._stats(None, instance)
        flat = {'uptime': _uptime(instance)}
        flat.update(('module_%s' % k, v) for k, v in stats.module.items())
        flat.update(('dataplane_%s' % k, v)
                    for k, v in stats.dataplane.items())
        return flat


def _region_provider(allocations):
    """The provider UUID of the region in a consumer's allocations (nova's
    {provider UUID: {'resources': {class: amount}}}), or None.
    """
    for rp_uuid, alloc in (allocations or {}).items():
        if placement.REGION_RESOURCE_CLASS in alloc.get('resources', {}):
            return rp_uuid
    return None


def _uptime(instance):
    """Seconds since the instance was launched (its load), as libvirt's
    diagnostics count them.
    """
    if instance.launched_at is None:
        return None
    return int(timeutils.delta_seconds(
        timeutils.normalize_time(instance.launched_at), timeutils.utcnow()))
