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

"""The driver's line to the board agents: one RPC client on the agents' bus.

The bus is not nova's: boards hold no cloud credentials, so the URL comes
from ``[zynq] transport_url`` (nova's own only when that is unset).
"""
from oslo_context import context as oslo_context
import oslo_messaging as messaging

from nova_fpga.contract import agent_api

#: Errors an agent raises that oslo.messaging re-creates on our side.
ALLOWED_EXMODS = ['nova_fpga.contract.agent_api']


def get_transport(conf):
    return messaging.get_rpc_transport(
        conf, url=conf.zynq.transport_url,
        allowed_remote_exmods=ALLOWED_EXMODS)


def get_notification_transport(conf):
    """The agents' bus, where they publish their state reports."""
    return messaging.get_notification_transport(
        conf, url=conf.zynq.transport_url)


def make_client(conf):
    return agent_api.AgentAPI(
        get_transport(conf),
        topic=conf.zynq.topic,
        timeout=conf.zynq.rpc_timeout,
    )


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
