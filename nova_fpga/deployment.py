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

"""What a deployment writes into nova.conf, placement.conf, glance-api.conf,
neutron's ML2 configuration and each board agent's configuration file, in
one place.

The demo cloud (nova_fpga_devtools.localcloud) and the DevStack plugin
(devstack/plugin.sh, through ``nova-fpga-manage config``) both write these,
so a developer's DevStack runs what the tests run.  Each function returns
``[(section, option, value)]``; a value is a string, a bool, a list (an
oslo.config ListOpt, written comma-separated) or a :class:`Multi` (a
MultiStrOpt, one line per value).  Paths of the files a deployment copies
from the distribution are here too.
"""
import collections
import importlib.resources
import pathlib
import re

from nova_fpga.contract import agent_api
from nova_fpga.contract import shell
from nova_fpga.contract import traits

#: nova-fpga's rule for nova's policy.d (see the file for why)
NOVA_POLICY = pathlib.Path(__file__).parent / 'etc' / 'nova-policy.yaml'
#: Glance property protections for bitstream images (roles format)
PROPERTY_PROTECTIONS = pathlib.Path(str(importlib.resources.files(
    'glance_store_bitstream') / 'etc' / 'property-protections-roles.conf'))
#: the reference static shell's manifest
REFERENCE_SHELL = pathlib.Path(shell.REFERENCE)

COMPUTE_DRIVER = 'zynq.ZynqDriver'
FILTER = 'nova_fpga.scheduler.filters.ZynqFilter'
WEIGHER = 'nova_fpga.scheduler.weights.CachedBitstreamWeigher'
#: Glance store name of the bitstream store (a backend of enabled_backends)
GLANCE_STORE = 'fpga'
GLANCE_IMPORT_PLUGIN = 'fpga_bitstream_inspection'
#: the boards' ML2 mechanism driver (its setup.cfg entry point)
MECHANISM_DRIVER = 'fpga_board'
#: the physical network the boards' data interfaces are cabled to
BOARD_PHYSNET = 'fpga'
#: the VLANs tenant networks on it get, apart from the VLANs the reference
#: shell's manifest gives its regions (100, 101: ``--nic none`` servers)
BOARD_VLANS = (200, 299)


class Multi(tuple):
    """The values of a multi-valued option (one ``option = value`` line
    each).
    """


def nova(boards, agents_transport_url, policy_dir, vhost_per_board=True,
         tls=None):
    """nova.conf of a single-file cloud (the demo's): the Zynq
    nova-compute's options (:func:`nova_compute`) and the scheduler's and
    API's (:func:`nova_scheduler`) in one file; each service reads its
    part.
    """
    return nova_compute(boards, agents_transport_url,
                        vhost_per_board=vhost_per_board, tls=tls) + \
        nova_scheduler(policy_dir)


def nova_compute(boards, agents_transport_url, vhost_per_board=True,
                 tls=None):
    """The Zynq nova-compute's options: its driver and the boards it
    proxies.  A file of their own beside a cloud's nova-compute
    configuration (DevStack: nova-cpu.conf, then this), so a libvirt
    nova-compute on the same host keeps its driver.

    agents_transport_url: the agents' bus as nova-compute's user, on the
    agents' vhost (each board's is named after it: vhost_per_board).
    tls: a :class:`Tls` for nova-compute on the agents' bus, or None.
    """
    options = [
        ('DEFAULT', 'compute_driver', COMPUTE_DRIVER),
        ('zynq', 'boards', list(boards)),
        ('zynq', 'transport_url', agents_transport_url),
        ('zynq', 'vhost_per_board', vhost_per_board)]
    if tls is not None:
        options += [('zynq', 'ssl', True),
                    ('zynq', 'ssl_ca_file', str(tls.ca_file)),
                    ('zynq', 'ssl_cert_file', str(tls.cert_file)),
                    ('zynq', 'ssl_key_file', str(tls.key_file))]
    return options


def nova_scheduler(policy_dir):
    """nova.conf of the scheduler, conductor and API: the Zynq filter and
    weigher, and the policy members read refusals by.
    """
    return [
        # resize reaches the Zynq driver, which refuses it in words
        ('DEFAULT', 'allow_resize_to_same_host', True),
        ('filter_scheduler', 'available_filters',
         Multi(['nova.scheduler.filters.all_filters', FILTER])),
        ('filter_scheduler', 'enabled_filters',
         ['ComputeFilter', 'ImagePropertiesFilter', 'ZynqFilter']),
        ('filter_scheduler', 'weight_classes',
         ['nova.scheduler.weights.all_weighers', WEIGHER]),
        # members read why their server's action was refused (NOVA_POLICY)
        ('oslo_policy', 'policy_dirs', Multi([str(policy_dir)])),
    ]


#: placement's server-side retries of an allocation write that met a
#: provider generation conflict: none (see placement())
PLACEMENT_ALLOCATION_CONFLICT_RETRIES = 1


def placement():
    """placement.conf: no server-side retry of a claim that lost a race.

    Placement retries an allocation write that met a resource provider
    generation conflict (another claim committed meanwhile) inside the
    write's own database transaction.  On MySQL/MariaDB, whose transactions
    read one snapshot (REPEATABLE READ), the retry checks capacity against
    usage from before the other claim, so it passes: a region (capacity 1)
    wanted by several servers at once, as the scheduler's claims of a
    cached board are, is given to two of them, and the board's agent
    refuses the second ("region rp1 is held by instance ...", issue 20).
    With one attempt the losing claim is answered 409 (a conflict) and
    nova's scheduler claims again in a new request, which sees the winner
    (each allocation write of nova's report client retries on that code).
    """
    return [('placement', 'allocation_conflict_retry_count',
             PLACEMENT_ALLOCATION_CONFLICT_RETRIES)]


def neutron_ml2(boards, physnet=BOARD_PHYSNET, vlans=BOARD_VLANS,
                switch_driver=None):
    """neutron-server's ML2 options for boards: VLAN tenant networks on
    the boards' physical network, bound by the boards' mechanism driver;
    switch_driver: the top-of-rack switch driver it tells of each VLAN a
    board gains and loses (None: the option's default, noop).
    """
    switch = [('ml2_zynq', 'switch_driver', switch_driver)] \
        if switch_driver else []
    return [
        ('ml2', 'type_drivers', ['flat', 'vlan']),
        ('ml2', 'project_network_types', ['vlan']),
        ('ml2', 'mechanism_drivers', [MECHANISM_DRIVER]),
        ('ml2_type_vlan', 'network_vlan_ranges',
         ['%s:%d:%d' % (physnet, vlans[0], vlans[1])]),
        ('ml2_zynq', 'boards', ['%s:%s' % (board, physnet)
                                for board in boards]),
    ] + switch


def glance(store_dir, shell_manifests, property_protections,
           allowed_devices=('xc7z020',)):
    """glance-api.conf for bitstream images: the bitstream store's
    options, the import plugin and its shells, the property protections,
    and SHA-256 as Glance's data hash (the boards' cache key).
    ``enabled_backends`` must also list ``fpga:bitstream``
    (:func:`glance_backends`); Glance's default backend stays the
    deployment's (VM images), and the paste filter
    ``bitstream_store_route`` sends bitstream images to the bitstream store.
    """
    return [
        ('DEFAULT', 'hashing_algorithm', 'sha256'),
        ('DEFAULT', 'property_protection_file', str(property_protections)),
        ('DEFAULT', 'property_protection_rule_format', 'roles'),
        (GLANCE_STORE, 'filesystem_store_datadir', str(store_dir)),
        (GLANCE_STORE, 'bitstream_allowed_devices', list(allowed_devices)),
        ('image_import_opts', 'image_import_plugins',
         '[%s]' % GLANCE_IMPORT_PLUGIN),
        ('bitstream_import', 'shell_manifests',
         [str(path) for path in shell_manifests]),
    ]


def glance_backends(existing=''):
    """Glance's ``enabled_backends`` with the bitstream store added to the
    backends already there ("name:type, ...").
    """
    backends = [b.strip() for b in existing.split(',') if b.strip()]
    ours = '%s:%s' % (GLANCE_STORE, traits.GLANCE_STORE_TYPE)
    if ours not in backends:
        backends.append(ours)
    return ', '.join(backends)


def glance_policy(creator_projects=()):
    """The line of Glance's policy file saying who creates bitstream
    images: admins, and members of the given projects.
    """
    from_projects = ''.join(' or project_id:%s' % project
                            for project in creator_projects)
    return '"fpga:bitstream:create": "role:admin%s"\n' % from_projects


def agent(board, transport_url, state_dir, manifest=REFERENCE_SHELL,
          backend='sim', hdl_dir=None, tls=None):
    """A board agent's configuration file (the emulator's HDL directory
    for the sim backend).

    transport_url: the board's own user on its own vhost
    (:func:`board_vhost`); tls: a :class:`Tls` (the board's
    certificate and key, the bus's CA), or None.  Nothing else: no cloud
    credentials, no nova, glance or keystone endpoint.
    """
    options = [
        ('DEFAULT', 'transport_url', transport_url),
        ('agent', 'board_name', board),
        ('agent', 'manifest', str(manifest)),
        ('agent', 'state_dir', str(state_dir)),
        ('agent', 'backend', backend),
    ]
    if hdl_dir is not None:
        options.append(('emulator', 'hdl_dir', str(hdl_dir)))
    if tls is not None:
        options += [('oslo_messaging_rabbit', 'ssl', True),
                    ('oslo_messaging_rabbit', 'ssl_ca_file',
                     str(tls.ca_file)),
                    ('oslo_messaging_rabbit', 'ssl_cert_file',
                     str(tls.cert_file)),
                    ('oslo_messaging_rabbit', 'ssl_key_file',
                     str(tls.key_file))]
    return options


#: TLS files of one side of the agents' bus: the CA its peer's certificate
#: must chain to, its own certificate and key
Tls = collections.namedtuple('Tls', 'ca_file cert_file key_file')
#: the agents' bus over TLS: AMQP's IANA port for AMQPS
RABBITMQ_TLS_PORT = 5671


def rabbitmq_tls(listener, tls):
    """rabbitmq.conf's TLS listener for the agents' bus (listener: a
    port, or address:port; tls: the broker's :class:`Tls`): every client
    must present a certificate of the CA, as boards and nova-compute do.
    """
    return ('listeners.ssl.nova_fpga = %s\n'
            'ssl_options.cacertfile = %s\n'
            'ssl_options.certfile = %s\n'
            'ssl_options.keyfile = %s\n'
            'ssl_options.verify = verify_peer\n'
            'ssl_options.fail_if_no_peer_cert = true\n'
            'ssl_options.versions.1 = tlsv1.3\n'
            'ssl_options.versions.2 = tlsv1.2\n' % (
                listener, tls.ca_file, tls.cert_file, tls.key_file))


#: rabbitmqctl set_permissions' three regexes
Permissions = collections.namedtuple('Permissions', 'configure write read')

#: nova-compute's user on each board's vhost: it declares its reply queue
#: and its report pool's queue, consumes those and the notifier's, and
#: publishes requests
PROXY_PERMISSIONS = Permissions('.*', '.*', '.*')


def board_vhost(agents_vhost, board):
    """The board's own vhost on the agents' bus (the contract's name)."""
    return agent_api.board_vhost(agents_vhost, board)


def board_permissions(board, topic=agent_api.DEFAULT_TOPIC):
    """What a board's RabbitMQ user may do on its own vhost
    (``rabbitmqctl set_permissions -p VHOST USER CONFIGURE WRITE READ``):
    serve its RPC topic and publish its reports, nothing else.

    What oslo.messaging's rabbit driver (18.x) declares and uses for the
    agent (an RPC server on Target(exchange=EXCHANGE, topic, server=board)
    and a Notifier on REPORT_TOPIC):

    - the topic exchange ``nova_fpga`` (declared by both; the agent binds
      to it and publishes its reports there);
    - queues ``<topic>`` and ``<topic>.<board>`` bound to it, and the
      fanout exchange ``<topic>_fanout`` with a queue
      ``<topic>_fanout_<32 hex>`` (uuid4; use_queue_manager off);
    - the notifier's queue ``nova_fpga_reports.info``, declared and bound
      so reports wait for a listener (each nova-compute consumes it, and a
      pool queue of its own bound to the same key: nova_fpga.virt.listener);
    - replies: published to the default exchange (``amq.default``) with
      the caller's ``reply_<hex>`` queue as routing key.  Write on
      amq.default reaches every queue of the vhost: that is why each
      board has a vhost of its own, where the only other queues are
      nova-compute's reply and report queues for this board.

    The board reads only its own RPC queues: not nova-compute's reply or
    report queues, and it declares nothing else.
    """
    t, b = _escape(topic), _escape(board)
    exchange = _escape(agent_api.EXCHANGE)
    reports = _escape('%s.info' % agent_api.REPORT_TOPIC)
    fanout_queue = '%s_fanout_[0-9a-f]{32}' % t
    queues = [t, '%s\\.%s' % (t, b), fanout_queue]

    def regex(names):
        return '^(%s)$' % '|'.join(names)
    return Permissions(
        configure=regex([exchange, '%s_fanout' % t] + queues + [reports]),
        write=regex(['amq\\.default', exchange] + queues + [reports]),
        read=regex([exchange, '%s_fanout' % t] + queues))


def _escape(name):
    """A name as a literal in RabbitMQ's (PCRE) regexes; board names and
    topics have no other special character than '.'.
    """
    return re.sub(r'([.^$|?*+()\[\]{}\\])', r'\\\1', name)


def board_user(board, prefix='nova-fpga-'):
    """A board's RabbitMQ user name."""
    return prefix + board


#: catalogued module -> (sample image name, the region it is built for)
SAMPLES = {'vtc': ('vtc-bitstream', 'rp1'),
           'loopback': ('loopback-bitstream', 'rp0')}


def samples(manifest=REFERENCE_SHELL):
    """[(image name, partial bitstream)] of the sample modules, each built
    for its region of the shell (what a developer's cloud starts with).
    """
    from nova_fpga.bitstream import builder
    from nova_fpga import catalogue
    shell_manifest = shell.load(manifest)
    part = shell_manifest.part.removeprefix('xc').split('-')[0]
    return [(name, builder.build_partial(
        part, name.replace('-', '_'), catalogue.module_id(module),
        shell_manifest.region(region).footprint))
        for module, (name, region) in SAMPLES.items()]


def lines(options):
    """The options as ``section<TAB>option<TAB>value`` lines, what the
    DevStack plugin applies with iniset (a repeated option: iniadd).
    """
    out = []
    for section, option, value in options:
        values = value if isinstance(value, Multi) else [value]
        out += ['%s\t%s\t%s' % (section, option, text(v)) for v in values]
    return out


def text(value):
    """An option value as oslo.config reads it from a file."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (list, tuple)):
        return ','.join(map(str, value))
    return str(value)
