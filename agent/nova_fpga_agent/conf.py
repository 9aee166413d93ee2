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

"""Configuration options of the board agent (oslo.config).

The agent's transport_url ([DEFAULT], registered by oslo.messaging) points
at the agents' own bus: its own RabbitMQ vhost and per-board credentials,
never nova's bus.
"""
import copy

from oslo_config import cfg
from oslo_privsep import capabilities
from oslo_privsep import priv_context

from nova_fpga.contract import agent_api
from nova_fpga import optgroups
from nova_fpga_agent import datapath
from nova_fpga_agent import memory
from nova_fpga_agent import privsep
from nova_fpga_agent import trust

agent_group = cfg.OptGroup('agent', title='Board agent')
watchdog_group = cfg.OptGroup(
    'watchdog', title='Temperature and power watchdog',
    help='The agent reads the die temperature and supply voltages from '
         'the XADC (IIO device xadc under [agent] sysfs_root; without one '
         'there is no watchdog, and the agent logs so at start). At '
         'trip_temperature, or with a supply out of range, it decouples '
         'every region, holds its module in reset and reports the board '
         'unfit, so nova sends new servers elsewhere; below '
         'trip_temperature - hysteresis with the supplies in range it '
         'couples the regions that were running, starts their modules '
         'again and reports the board fit.')

#: where the board's kernel interfaces are: what the privileged helper
#: confines its writes to
ROOT_OPTS = [
    cfg.StrOpt('sysfs_root', default='/sys',
               help='Root of the sysfs tree the backend probes (a fake tree '
                    'in tests). The privileged helper writes attributes '
                    'only below it or configfs_root.'),
    cfg.StrOpt('configfs_root', default='/sys/kernel/config',
               help='Root of configfs: the privileged helper creates and '
                    'removes device-tree overlays only in '
                    'device-tree/overlays below it.'),
    cfg.StrOpt('firmware_dir', default='/lib/firmware',
               help='Firmware search path of the kernel, where a backend '
                    'puts the bitstream the FPGA manager loads by name; '
                    'the privileged helper writes files only below it.'),
    cfg.StrOpt('dev_root', default='/dev',
               help='Root of the device nodes (/dev/xdevcfg): the '
                    'privileged helper writes only to existing nodes below '
                    'it.'),
]

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
    cfg.IntOpt('report_interval', default=10, min=1,
               help='Seconds between state reports to the cloud; a '
                    'region\'s state change also publishes one at once.'),
    cfg.IntOpt('max_bitstream_bytes',
               default=agent_api.DEFAULT_MAX_BITSTREAM_BYTES, min=1024,
               help='Largest bitstream a load accepts (the RPC message-size '
                    'limit for bitstreams).'),
    cfg.IntOpt('max_message_bytes', min=1024,
               help='Largest RPC message the agent takes: a larger one is '
                    'refused before it is parsed (logged with its size and '
                    'this limit, dropped) and the agent goes on serving. '
                    'Unset: what a load of a max_bitstream_bytes bitstream '
                    'needs (its base64 text and 64 KiB).'),
    cfg.IntOpt('bitstream_cache_mb', default=64, min=0,
               help='Size of the cache of loaded bitstreams in state_dir '
                    '(MiB; 0 disables it). A reload or a new server with a '
                    'cached image needs no image transfer, and the '
                    'scheduler prefers boards that cache the image.'),
    cfg.ListOpt('module_catalogue_dirs', default=[],
                help='Directories of extra module catalogue entries (one '
                     'TOML file per reconfigurable module, its Verilog '
                     'beside it), added to the modules nova-fpga ships: '
                     'the agent reads their counters (and the emulator '
                     'runs their HDL) by module ID.'),
]


WATCHDOG_OPTS = [
    cfg.FloatOpt('trip_temperature', default=85.0,
                 help='Die temperature (degrees Celsius) at which the board '
                      'takes its regions off the shell and reports itself '
                      'unfit. 85 is the junction limit of commercial-grade '
                      'Zynq-7000 parts; 100 for extended and industrial '
                      'grades.'),
    cfg.FloatOpt('hysteresis', default=10.0, min=0.0,
                 help='Degrees Celsius the board must cool below '
                      'trip_temperature before its regions run again, so a '
                      'board near the limit does not flap.'),
    cfg.FloatOpt('supply_tolerance', default=5.0, min=0.0,
                 help='Percent the supplies of the logic and the processing '
                      'system (VCCINT, VCCAUX, VCCBRAM, VCCPINT, VCCPAUX) '
                      'may differ from nominal (1.0 V, 1.8 V) before the '
                      'board is unfit as when too hot; it is fit again when '
                      'all are back in range. 5 is the recommended '
                      'operating range of Zynq-7000 parts; 0 checks no '
                      'supply.'),
    cfg.IntOpt('poll_interval', default=5, min=1,
               help='Seconds between temperature readings (in the agent\'s '
                    'report loop).'),
]


def register_opts(conf):
    optgroups.register(conf, agent_group, AGENT_OPTS + ROOT_OPTS)
    memory.register_opts(conf, agent_group)
    trust.register_opts(conf, agent_group)
    memory.rpc_thread_default(conf)
    datapath.register_opts(conf)
    optgroups.register(conf, watchdog_group, WATCHDOG_OPTS)


def register_root_opts(conf):
    """The roots alone, for the privileged helper (whose configuration is
    the agent's file, but which needs none of the agent's other options:
    registering those on its global CONF would make them required in
    every process that imports the helper's module).
    """
    optgroups.register(conf, agent_group, ROOT_OPTS)


def _privileged_opts(caps):
    """oslo.privsep's options as one of the agent's contexts sets them,
    with capabilities ``caps`` (the context registers them; this is for
    the sample).
    """
    opts = copy.deepcopy(priv_context.OPTS)
    for opt in opts:
        if opt.name == 'capabilities':
            opt.sample_default = ','.join(
                capabilities.CAPS_BYVALUE[cap] for cap in caps)
    return opts


def list_opts():
    """For oslo-config-generator (entry point oslo.config.opts)."""
    return [(agent_group, AGENT_OPTS + ROOT_OPTS + memory.MEMORY_OPTS
             + trust.TRUST_OPTS),
            (datapath.datapath_group, datapath.DATAPATH_OPTS),
            (watchdog_group, WATCHDOG_OPTS),
            (privsep.board_pctxt.cfg_section,
             _privileged_opts(privsep.CAPABILITIES)),
            (privsep.datapath_pctxt.cfg_section,
             _privileged_opts(privsep.DATAPATH_CAPABILITIES))]
