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
