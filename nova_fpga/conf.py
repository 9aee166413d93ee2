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

"""Configuration options of the nova side: the [zynq] group of nova.conf.

The boards' agents live on a bus of their own (own RabbitMQ vhost, per-board
credentials), so the driver has a transport URL separate from nova's
[DEFAULT] transport_url.  The driver and the scheduler plugins take CONF
from here; registered for oslo-config-generator through the
``oslo.config.opts`` entry point ``nova_fpga``.
"""
from oslo_config import cfg

from nova_fpga.contract import agent_api
from nova_fpga.contract import shell
from nova_fpga import optgroups

#: nova's configuration (nova.conf.CONF is oslo.config's global CONF)
CONF = cfg.CONF

zynq_group = cfg.OptGroup(
    'zynq', title='Zynq FPGA boards',
    help='The boards one nova-compute (compute_driver = zynq.ZynqDriver) '
         'manages, each a compute node whose reconfigurable regions are '
         'nested resource providers.')

ZYNQ_OPTS = [
    cfg.ListOpt('boards', default=[],
                help='Names of the boards this nova-compute may manage: '
                     'each is the RPC server name of its agent ([agent] '
                     'board_name on the board) and the node name nova '
                     'shows. Several proxies configured with the same '
                     'boards share them by a hash ring (board_group). A '
                     'board is a node from its first start on, whether or '
                     'not its agent answers.'),
    cfg.StrOpt('board_group', max_length=255, regex=r'^[a-zA-Z0-9_.-]*$',
               help='Name of the board group this nova-compute serves '
                    'with the other proxies of peer_list (as ironic\'s '
                    'conductor_group partitions nodes): the boards option '
                    'of every proxy of a group lists the group\'s boards, '
                    'and only the group\'s proxies share them. Unset: the '
                    'boards are shared by every live nova-compute running '
                    'this driver. Either way a board is managed by the '
                    'proxy a consistent hash ring of the live proxies maps '
                    'it to; a proxy that is down (no heartbeat for nova\'s '
                    '[DEFAULT] service_down_time) or disabled leaves the '
                    'ring, and its boards and their servers move to the '
                    'others at their next resource update ([DEFAULT] '
                    'update_resources_interval), and back when it returns.'),
    cfg.ListOpt('peer_list', default=[],
                help='Hosts ([DEFAULT] host) of every nova-compute serving '
                     'board_group, this one included. Required with '
                     'board_group, ignored without it.'),
    cfg.StrOpt('transport_url', secret=True,
               help='oslo.messaging URL of the agents\' bus (its own vhost '
                    'and credentials, never nova\'s bus). Unset: nova\'s '
                    'own transport_url.'),
    cfg.BoolOpt('vhost_per_board', default=False,
                help='Each board on a RabbitMQ vhost of its own, named '
                     'after transport_url\'s vhost and the board ("<vhost>.'
                     '<board>"; nova-compute connects to each with '
                     'transport_url\'s credentials) instead of one vhost '
                     'for all. A board\'s user then has rights on its own '
                     'vhost only: on a shared vhost, the rights an agent '
                     'needs to answer (publishing to the default '
                     'exchange) reach every board\'s queues.'),
    cfg.BoolOpt('ssl', default=False,
                help='TLS to the agents\' bus (its own [oslo_messaging_'
                     'rabbit] ssl; nova\'s own bus keeps nova\'s '
                     'settings). Needs transport_url.'),
    cfg.StrOpt('ssl_ca_file',
               help='CA certificate(s) the agents\' bus server certificate '
                    'must chain to (verified, with the host name, when '
                    'set).'),
    cfg.StrOpt('ssl_cert_file',
               help='Client certificate nova-compute presents to the '
                    'agents\' bus.'),
    cfg.StrOpt('ssl_key_file',
               help='Private key of ssl_cert_file.'),
    cfg.StrOpt('topic', default=agent_api.DEFAULT_TOPIC,
               help='RPC topic the boards of this deployment listen on '
                    '([agent] topic on the boards).'),
    cfg.StrOpt('shell_manifest', default=str(shell.REFERENCE),
               help='Shell manifest (JSON) of the static shell the boards '
                    'boot: it names the regions and their traits, so a '
                    'board keeps its providers while its agent is silent.'),
    cfg.IntOpt('rpc_timeout', default=10, min=1,
               help='Seconds to wait for an agent\'s answer to describe, '
                    'power, unload and stats calls, and to the health call '
                    'a create makes before every load. A board that does '
                    'not answer is reported down and its regions reserved; '
                    'a create it does not answer is rescheduled to another '
                    'board.'),
    cfg.IntOpt('report_timeout', default=25, min=0,
               help='Seconds without a state report or an answer from a '
                    'board\'s agent (agents report every [agent] '
                    'report_interval, 10 s by default) after which '
                    'nova-compute counts the board silent: a server the '
                    'scheduler still sends there is turned away at once '
                    '(rescheduled to another board, or ERROR naming the '
                    'board) instead of waiting load_timeout for a load the '
                    'agent cannot answer; the board goes down at the next '
                    'resource update. A load already sent is waited for: '
                    'the agent may still apply it. 0: not watched.'),
    cfg.IntOpt('load_timeout', default=120, min=1,
               help='Seconds to wait for a load (download excluded): the '
                    'configuration port writes at about 128 MB/s, so this '
                    'is mostly the agent\'s validation and bus time.'),
    cfg.FloatOpt('cached_bitstream_weight_multiplier', default=1.0,
                 help='Weight the scheduler\'s CachedBitstreamWeigher gives '
                      'a board that caches the requested image (it loads '
                      'without an image transfer). Negative values prefer '
                      'other boards; 0 turns the preference off.'),
    cfg.StrOpt('uuid_namespace',
               default='5e1b4c1e-8a57-4f3c-9d0e-2f6a9c7b1d40',
               help='UUID namespace for board and region provider UUIDs '
                    '(uuid5 of this and the board name): stable across '
                    'restarts and re-installs of nova-compute.'),
    cfg.ListOpt('module_catalogue_dirs', default=[],
                help='Directories of extra module catalogue entries (one '
                     'TOML file per reconfigurable module), added to the '
                     'modules nova-fpga ships: a region server\'s console '
                     'log shows their counters as the entry describes '
                     'them. Give the boards\' agents the same entries '
                     '([agent] module_catalogue_dirs).'),
]


def register_opts(conf):
    optgroups.register(conf, zynq_group, ZYNQ_OPTS)


# registered on import, as nova.conf registers nova's own options
register_opts(CONF)


def list_opts():
    """For oslo-config-generator (entry point oslo.config.opts)."""
    return [(zynq_group, ZYNQ_OPTS)]
