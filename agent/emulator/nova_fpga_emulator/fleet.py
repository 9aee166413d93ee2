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

"""nova-fpga-board-fleet: many emulated boards served by one process.

Hundreds of boards for tests and benchmarks of the proxies cannot each be
an agent process on a small machine.  Each board here is still the agent's
own code (nova_fpga_agent.service.Agent: its RPC server named after the
board on the agents' topic, its state reports, its state directory), made
from the agent's configuration file with its name and state directory set;
they share the process's two transports.  With ``[agent] backend =
behavioural`` no board runs Verilog.
"""
import os
import signal
import sys
import threading

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_messaging import opts as messaging_opts

from nova_fpga.contract import agent_api as api
from nova_fpga import optgroups
from nova_fpga_agent import conf as agent_conf
from nova_fpga_agent import service

LOG = logging.getLogger(__name__)
CONF = cfg.CONF
RABBIT_GROUP = 'oslo_messaging_rabbit'

fleet_group = cfg.OptGroup('fleet', title='Emulated boards of one process')

FLEET_OPTS = [
    cfg.IntOpt('boards', default=1, min=1,
               help='How many boards this process serves.'),
    cfg.StrOpt('name_format', default='board%03d',
               help='Board names: this %-format of the numbers 0 to '
                    'boards - 1 (each board\'s [agent] board_name).'),
]


def register_opts(conf):
    optgroups.register(conf, fleet_group, FLEET_OPTS)


def list_opts():
    """For oslo-config-generator (entry point oslo.config.opts)."""
    return [(fleet_group, FLEET_OPTS)]


def size_connection_pool(conf, boards):
    """Every board publishes its state reports (and answers its calls) on
    the process's one transport of each kind: the transports' connection
    pools hold one connection a board, not oslo.messaging's default 30
    (the 200-board fleet logged "Connection pool limit exceeded" under its
    reports).  Before the transports are made.
    """
    for group, opts in messaging_opts.list_opts():
        if group == RABBIT_GROUP:
            conf.register_opts(opts, group=group)
    default = conf[RABBIT_GROUP].rpc_conn_pool_size
    conf.set_default('rpc_conn_pool_size', max(default, boards),
                     group=RABBIT_GROUP)


def board_names(conf):
    return [conf.fleet.name_format % i for i in range(conf.fleet.boards)]


def board_conf(args, name, state_root):
    """One board's agent configuration: the fleet's files, then a file of
    the board's own in its state directory under the fleet's, naming it
    (overrides would not do: ConfigOpts objects share the agent's option
    groups, so one's override is every board's).
    """
    state_dir = os.path.join(state_root, name)
    os.makedirs(state_dir, exist_ok=True)
    own = os.path.join(state_dir, 'board.conf')
    with open(own, 'w', encoding='utf-8') as f:
        f.write('[agent]\nboard_name = %s\nstate_dir = %s\n'
                % (name, state_dir))
    conf = cfg.ConfigOpts()
    agent_conf.register_opts(conf)
    register_opts(conf)
    conf(list(args) + ['--config-file', own], project='nova-fpga',
         default_config_files=[], default_config_dirs=[])
    return conf


class Fleet:
    """The boards' agents on shared transports."""

    def __init__(self, args, names, state_root, transport,
                 notification_transport):
        self.agents = []
        for name in names:
            self.agents.append(service.Agent(
                board_conf(args, name, state_root), transport,
                notification_transport))

    def start(self):
        for agent in self.agents:
            agent.start()

    def stop(self):
        # each agent waits for its RPC server to drain: together, not in
        # turn (a board's stop takes about half a second)
        threads = [threading.Thread(target=agent.stop)
                   for agent in self.agents]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    # reports go to the agents' exchange, where nova-compute listens
    messaging.set_transport_defaults(api.EXCHANGE)
    agent_conf.register_opts(CONF)
    register_opts(CONF)
    # the process is no one board (each board's name is board_conf's)
    CONF.set_default('board_name', 'fleet', group='agent')
    logging.register_options(CONF)
    CONF(args, project='nova-fpga', prog='nova-fpga-board-fleet')
    logging.setup(CONF, 'nova-fpga-board-fleet')
    size_connection_pool(CONF, CONF.fleet.boards)
    fleet = Fleet(args, board_names(CONF), CONF.agent.state_dir,
                  messaging.get_rpc_transport(CONF),
                  messaging.get_notification_transport(CONF))
    stopped = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stopped.set())
    fleet.start()
    LOG.info('%d boards serving', len(fleet.agents))
    stopped.wait()
    fleet.stop()
    return 0


if __name__ == '__main__':
    sys.exit(main())
