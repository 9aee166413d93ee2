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

"""The driver's line to the board agents: RPC clients on the agents' bus.

The bus is not nova's: boards hold no cloud credentials, so the URL comes
from ``[zynq] transport_url`` (nova's own only when that is unset).  With
``[zynq] vhost_per_board`` each board is on a vhost of its own
(``agent_api.board_vhost``): a client and a report listener per board.
With ``[zynq] ssl`` the agents' bus is reached over TLS with its own
oslo.messaging settings, whatever nova's own bus uses.
"""
from oslo_config import cfg
from oslo_context import context as oslo_context
from oslo_log import log as logging
import oslo_messaging as messaging
from oslo_messaging import conffixture as messaging_conffixture
from oslo_messaging import opts as messaging_opts

from nova_fpga.contract import agent_api

LOG = logging.getLogger(__name__)
#: Errors an agent raises that oslo.messaging re-creates on our side.
ALLOWED_EXMODS = ['nova_fpga.contract.agent_api']
RABBIT = 'oslo_messaging_rabbit'


def register_bus_opts(conf):
    """Every option oslo.messaging reads from a transport's conf, on a conf
    of our own (not nova's global CONF, where oslo.messaging registers them
    itself).

    oslo.messaging 18 reads [oslo_messaging_metrics] and
    [oslo_messaging_tracing] from the transport's conf at each call, but
    registers them on the global CONF only and list_opts() leaves them
    out: its ConfFixture is the public call that registers all its options
    on another conf (the fixture is never set up: nothing is overridden).
    """
    for group, opts in messaging_opts.list_opts():
        conf.register_opts(opts, group=group)
    messaging_conffixture.ConfFixture(conf)


def bus_conf(conf):
    """The configuration oslo.messaging reads for the agents' bus: nova's,
    or, with [zynq] ssl, one of its own whose [oslo_messaging_rabbit]
    carries the [zynq] TLS settings (nova's [oslo_messaging_rabbit] is its
    own bus's; the agents' bus takes oslo.messaging's defaults for the
    rest of that group).
    """
    if not conf.zynq.ssl:
        return conf
    if not conf.zynq.ssl_ca_file:
        LOG.warning('[zynq] ssl without ssl_ca_file: the agents\' bus '
                    'server certificate is not verified')
    bus = cfg.ConfigOpts()
    register_bus_opts(bus)
    bus([], project='nova-fpga-agents-bus', default_config_files=[],
        default_config_dirs=[])
    bus.set_override('ssl', True, group=RABBIT)
    for name in ('ssl_ca_file', 'ssl_cert_file', 'ssl_key_file'):
        bus.set_override(name, getattr(conf.zynq, name) or '', group=RABBIT)
    return bus


def board_url(conf, board):
    """The agents' bus URL for one board: [zynq] transport_url, on the
    board's own vhost with vhost_per_board.
    """
    url = conf.zynq.transport_url
    if not conf.zynq.vhost_per_board:
        return url
    parsed = messaging.TransportURL.parse(conf, url)
    parsed.virtual_host = agent_api.board_vhost(
        parsed.virtual_host or '', board)
    return str(parsed)


def get_transport(conf, url=None):
    return messaging.get_rpc_transport(
        bus_conf(conf), url=url or conf.zynq.transport_url,
        allowed_remote_exmods=ALLOWED_EXMODS)


def get_notification_transport(conf, url=None):
    """The agents' bus, where they publish their state reports."""
    return messaging.get_notification_transport(
        bus_conf(conf), url=url or conf.zynq.transport_url)


class BoardClients:
    """agent_api.AgentAPI's calls, each sent on its board's vhost: one
    client for all boards on a shared vhost, one per board with
    vhost_per_board (made at its first call).
    """

    def __init__(self, conf):
        self.conf = conf
        self._clients = {}
        self._shared = None
        if not conf.zynq.vhost_per_board:
            self._shared = self._client(get_transport(conf))

    def _client(self, transport):
        return agent_api.AgentAPI(transport, topic=self.conf.zynq.topic,
                                  timeout=self.conf.zynq.rpc_timeout)

    def client(self, board):
        if self._shared is not None:
            return self._shared
        if board not in self._clients:
            self._clients[board] = self._client(get_transport(
                self.conf, board_url(self.conf, board)))
        return self._clients[board]

    def cleanup(self):
        """Close every client's transport."""
        for client in [self._shared] + list(self._clients.values()):
            if client is not None:
                client.client.transport.cleanup()
        self._clients = {}

    def can_load_cached(self):
        # every client has the same version cap (ours, which can)
        client = self._shared or next(iter(self._clients.values()), None)
        return client is None or client.can_load_cached()

    def __getattr__(self, name):
        if name.startswith('_') or not callable(
                getattr(agent_api.AgentAPI, name, None)):
            raise AttributeError(name)

        def call(ctxt, board, *args, **kwargs):
            return getattr(self.client(board), name)(ctxt, board, *args,
                                                     **kwargs)
        return call


def make_client(conf):
    return BoardClients(conf)


def rpc_context(context=None):
    """What travels with a call to a board: the request ID for the logs,
    never the user's token (boards are not trusted with credentials).
    Without a context, the one nova made current for the request being
    served, if any (nova's calls such as get_info pass none).
    """
    if context is None:
        context = oslo_context.get_current()
    request_id = getattr(context, 'request_id', None)
    return {'request_id': request_id} if request_id else {}
