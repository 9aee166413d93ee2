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

"""The names under which a bitstream is known to Glance, placement and nova.

One function makes the image properties and placement traits of a
bitstream, another the traits of a region provider; both use the same trait
names, so an image's ``trait:…=required`` properties select exactly the
regions it fits.  Glance's import plugin and nova's driver call these and
never spell a name themselves.
"""
import re
import uuid

from nova_fpga.bitstream import errors

PROPERTY_PREFIX = 'fpga_'
MODULE_ID = re.compile(r'0x[0-9A-F]{8}')
TRAIT_PREFIX = 'CUSTOM_FPGA_'

#: the derived property naming the module a bitstream declares ('0x%08X',
#: or MODULE_NOT_DECLARED)
MODULE_ID_PROPERTY = 'fpga_module_id'
MODULE_NOT_DECLARED = 'none'
#: Image properties that are derived from the bitstream; users must not set
#: or change them (Glance property protections enforce it).
DERIVED_PROPERTIES = (
    'fpga_bitstream', 'fpga_device', 'fpga_idcode', 'fpga_partial',
    'fpga_footprint', 'fpga_footprint_blocks', 'fpga_frames', 'fpga_design',
    MODULE_ID_PROPERTY, 'fpga_sha256', 'fpga_crc_checks',
    'fpga_tool_version',
)
SHELL_ID_PROPERTY = 'fpga_shell_id'
#: The bitstream store's type in Glance's ``enabled_backends`` (its
#: glance_store.drivers entry point): images declaring SHELL_ID_PROPERTY
#: keep their data in a backend of this type, and only they do.
GLANCE_STORE_TYPE = 'bitstream'
#: Why Glance's import refused the data of a bitstream image.
IMPORT_ERROR_PROPERTY = 'fpga_import_error'
#: On a board's root provider: the operator drained the board
#: (nova-fpga-manage board drain). It lives in placement, so it outlives
#: nova-compute and the agent; while it is there the driver keeps every
#: region reserved and running servers finish.
BOARD_DRAINED_TRAIT = TRAIT_PREFIX + 'BOARD_DRAINED'


def _trait(kind, value):
    name = ''.join(c if c.isalnum() else '_' for c in value.upper())
    return '%s%s_%s' % (TRAIT_PREFIX, kind, name)


def normalize_shell_id(shell_id):
    """The canonical form of a shell ID (a UUID)."""
    try:
        return str(uuid.UUID(str(shell_id)))
    except ValueError:
        raise errors.BitstreamError('shell ID %r is not a UUID' % (shell_id,))


def part_trait(device_name):
    return _trait('PART', device_name)


def shell_trait(shell_id):
    return _trait('SHELL', uuid.UUID(normalize_shell_id(shell_id)).hex)


def footprint_trait(signature):
    return _trait('FOOTPRINT', signature)


def region_traits(device_name, shell_id, signature):
    """The traits of a region provider of a board running this shell."""
    return sorted({part_trait(device_name), shell_trait(shell_id),
                   footprint_trait(signature)})


def module_id(properties):
    """The module ID an image's properties say its bitstream declares;
    None when it declares none (or the property is not ours).
    """
    value = properties.get(MODULE_ID_PROPERTY)
    if not isinstance(value, str) or not MODULE_ID.fullmatch(value):
        return None
    return int(value, 16)


def image_properties(bitstream, shell_id):
    """Image properties for a partial bitstream built for ``shell_id``.

    :param bitstream: a validated :class:`~nova_fpga.bitstream.Bitstream`.
    :raises KindError: for a full bitstream, which no region can take.
    """
    if not bitstream.partial:
        raise errors.KindError(
            'full bitstream for %s: only partial bitstreams can be deployed '
            'into a reconfigurable region' % bitstream.device.name)
    shell_id = normalize_shell_id(shell_id)
    signature = bitstream.footprint.signature
    props = {
        'fpga_bitstream': 'partial',
        'fpga_device': bitstream.device.name,
        'fpga_idcode': '0x%08X' % bitstream.idcode,
        'fpga_partial': 'true',
        'fpga_footprint': signature,
        'fpga_footprint_blocks': str(len(bitstream.footprint.blocks)),
        'fpga_frames': str(bitstream.frames),
        'fpga_design': bitstream.design,
        MODULE_ID_PROPERTY: ('0x%08X' % bitstream.module_id
                             if bitstream.module_declared
                             else MODULE_NOT_DECLARED),
        'fpga_sha256': bitstream.sha256,
        'fpga_crc_checks': str(bitstream.crc_checks),
        'fpga_tool_version': bitstream.tool_version,
        SHELL_ID_PROPERTY: shell_id,
    }
    for trait in region_traits(bitstream.device.name, shell_id, signature):
        props['trait:%s' % trait] = 'required'
    return props
