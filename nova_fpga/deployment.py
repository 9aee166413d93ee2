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

"""What a deployment writes into nova.conf, glance-api.conf and each board
agent's configuration file, in one place.

The demo cloud (nova_fpga_devtools.localcloud) and the DevStack plugin
(devstack/plugin.sh, through ``nova-fpga-manage config``) both write these,
so a developer's DevStack runs what the tests run.  Each function returns
``[(section, option, value)]``; a value is a string, a bool, a list (an
oslo.config ListOpt, written comma-separated) or a :class:`Multi` (a
MultiStrOpt, one line per value).  Paths of the files a deployment copies
from the distribution are here too.
"""
import importlib.resources
import pathlib

from nova_fpga.contract import shell

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


class Multi(tuple):
    """The values of a multi-valued option (one ``option = value`` line
    each).
    """


def nova(boards, agents_transport_url, policy_dir):
    """nova.conf of the compute proxy, the scheduler and the API (one file
    in a single-node cloud; each service reads its part).
    """
    return [
        ('DEFAULT', 'compute_driver', COMPUTE_DRIVER),
        # resize reaches the Zynq driver, which refuses it in words
        ('DEFAULT', 'allow_resize_to_same_host', True),
        ('zynq', 'boards', list(boards)),
        ('zynq', 'transport_url', agents_transport_url),
        ('filter_scheduler', 'available_filters',
         Multi(['nova.scheduler.filters.all_filters', FILTER])),
        ('filter_scheduler', 'enabled_filters',
         ['ComputeFilter', 'ImagePropertiesFilter', 'ZynqFilter']),
        ('filter_scheduler', 'weight_classes',
         ['nova.scheduler.weights.all_weighers', WEIGHER]),
        # members read why their server's action was refused (NOVA_POLICY)
        ('oslo_policy', 'policy_dirs', Multi([str(policy_dir)])),
    ]


def glance(store_dir, shell_manifests, property_protections,
           allowed_devices=('xc7z020',)):
    """glance-api.conf for bitstream images: the bitstream store as the
    default backend, the import plugin and its shells, the property
    protections, and SHA-256 as Glance's data hash (the boards' cache key).
    ``enabled_backends`` must also list ``fpga:bitstream``
    (:func:`glance_backends`).
    """
    return [
        ('DEFAULT', 'hashing_algorithm', 'sha256'),
        ('DEFAULT', 'property_protection_file', str(property_protections)),
        ('DEFAULT', 'property_protection_rule_format', 'roles'),
        ('glance_store', 'default_backend', GLANCE_STORE),
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
    ours = '%s:bitstream' % GLANCE_STORE
    if ours not in backends:
        backends.insert(0, ours)
    return ', '.join(backends)


def glance_policy(creator_projects=()):
    """The line of Glance's policy file saying who creates bitstream
    images: admins, and members of the given projects.
    """
    from_projects = ''.join(' or project_id:%s' % project
                            for project in creator_projects)
    return '"fpga:bitstream:create": "role:admin%s"\n' % from_projects


def agent(board, transport_url, state_dir, manifest=REFERENCE_SHELL,
          backend='sim', hdl_dir=None):
    """A board agent's configuration file (the emulator's HDL directory
    for the sim backend).
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
    return options


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
