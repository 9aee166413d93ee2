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

"""Options of the image-import plugin: the [bitstream_import] group of
glance-api.conf, registered on Glance's configuration when this module is
imported (as nova.conf registers nova's).  The store's own options are
registered by glance_store for each backend group (Store.OPTIONS)."""
from oslo_config import cfg

CONF = cfg.CONF

bitstream_import_group = cfg.OptGroup(
    'bitstream_import', title='Bitstream image import',
    help='The fpga_bitstream_inspection import plugin: which static shells '
         'bitstreams may be imported for.')

BITSTREAM_IMPORT_OPTS = [
    cfg.ListOpt('shell_manifests', default=[],
                help='Shell manifests (JSON, as shell builds ship them; glob '
                     'patterns allowed) of the static shells bitstreams may '
                     'be imported for.'),
]

CONF.register_group(bitstream_import_group)
CONF.register_opts(BITSTREAM_IMPORT_OPTS, group=bitstream_import_group)


def list_opts():
    """For oslo-config-generator (entry point oslo.config.opts)."""
    return [(bitstream_import_group, BITSTREAM_IMPORT_OPTS)]
