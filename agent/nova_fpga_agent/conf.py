"""Configuration options of the board agent (oslo.config).

The agent's transport_url ([DEFAULT], registered by oslo.messaging) points
at the agents' own bus: its own RabbitMQ vhost and per-board credentials,
never nova's bus.
"""
from oslo_config import cfg

from nova_fpga.contract import agent_api

agent_group = cfg.OptGroup('agent', title='Board agent')
dataplane_group = cfg.OptGroup('dataplane', title='Data plane')

AGENT_OPTS = [
    cfg.StrOpt('board_name', required=True,
               regex=r'^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$',
               help='Name of this board: the RPC server name nova-compute '
                    'addresses and the node name nova shows.'),
    cfg.StrOpt('topic', default=agent_api.DEFAULT_TOPIC,
               help='RPC topic shared by the boards of one deployment.'),
    cfg.StrOpt('manifest', required=True,
               help='Shell manifest (JSON) of the static shell this board '
                    'boots: device, shell ID, regions and their footprints.'),
    cfg.StrOpt('state_dir', required=True,
               help='Directory for the region state file (rewritten '
                    'atomically; reloaded and reconciled at start).'),
    cfg.StrOpt('backend', default='auto',
               help='How to reach the programmable logic: the name of an '
                    'installed backend plugin (entry-point group '
                    'nova_fpga_agent.backends: fpga_manager and xdevcfg on '
                    'boards, sim for the board emulator), or auto for the '
                    'first installed backend that finds its hardware under '
                    'sysfs_root.'),
    cfg.StrOpt('sysfs_root', default='/sys',
               help='Root of the sysfs tree the backend probes (a fake tree '
                    'in tests).'),
    cfg.IntOpt('report_interval', default=10, min=1,
               help='Seconds between state reports to the cloud; a '
                    'region\'s state change also publishes one at once.'),
    cfg.IntOpt('max_bitstream_bytes',
               default=agent_api.DEFAULT_MAX_BITSTREAM_BYTES, min=1024,
               help='Largest bitstream a load accepts (the RPC message-size '
                    'limit for bitstreams).'),
    cfg.IntOpt('bitstream_cache_mb', default=64, min=0,
               help='Size of the cache of loaded bitstreams in state_dir '
                    '(MiB; 0 disables it). A reload or a new server with a '
                    'cached image needs no image transfer, and the '
                    'scheduler prefers boards that cache the image.'),
]

DATAPLANE_OPTS = [
    cfg.StrOpt('interface',
               help='The data interface frames arrive on and leave by (PS '
                    'Ethernet on a board, a veth in the emulator). Unset: no '
                    'data plane.'),
    cfg.StrOpt('netns',
               help='Network namespace the interface lives in (emulator).'),
]


def register_opts(conf):
    conf.register_group(agent_group)
    conf.register_opts(AGENT_OPTS, group=agent_group)
    conf.register_group(dataplane_group)
    conf.register_opts(DATAPLANE_OPTS, group=dataplane_group)


def list_opts():
    """For oslo-config-generator (entry point oslo.config.opts)."""
    return [(agent_group, AGENT_OPTS), (dataplane_group, DATAPLANE_OPTS)]
