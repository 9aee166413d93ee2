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

"""Client side of the board agent's RPC API, and the errors it can return.

nova-compute (the Zynq driver) and tests call boards through this class.
It talks to the agents' own bus (never nova's), addresses one board by
server name on a per-deployment topic, and honours a version cap so a newer
cloud can talk to older boards.  Imports nothing from nova: boards install
this module too (the agent takes its API version and errors from here).

API history:
    1.0 - describe, load, unload, power, reset, stats, health
    1.1 - load without a bitstream loads the one the board cached under
          sha256 (describe lists them as 'cached'); NotCached otherwise
    1.2 - stats names the instance asking (RegionNotHeld unless it holds
          the region) and answers with its own log lines and counters only
"""
import base64
import binascii

import oslo_messaging as messaging

from nova_fpga.contract import states

API_VERSION = '1.2'
DEFAULT_TOPIC = 'nova-fpga-agent'
#: The agents' exchange, named on both sides: a transport's default
#: exchange is its process's control_exchange, which is 'nova' inside
#: nova-compute and 'openstack' in an agent.  RPC targets name it; the
#: agent makes it its control_exchange, where its reports are published.
EXCHANGE = 'nova_fpga'
REPORT_TOPIC = 'nova_fpga_reports'
REPORT_EVENT = 'fpga.board.report'
#: publisher_id of a board's state reports, % board name
REPORT_PUBLISHER = 'nova-fpga-agent.%s'
#: Largest bitstream either side sends or accepts (a full xc7z100 is ~16 MB).
DEFAULT_MAX_BITSTREAM_BYTES = 32 * 1024 * 1024
#: What a message carries besides a bitstream's base64 text: oslo.messaging's
#: envelope, the context and the other arguments of a load.
MESSAGE_OVERHEAD_BYTES = 64 * 1024


def max_message_bytes(max_bitstream_bytes=DEFAULT_MAX_BITSTREAM_BYTES):
    """The largest RPC message a board takes: a load of the largest
    bitstream it accepts (base64: 4 bytes per 3) and the envelope.
    """
    return (max_bitstream_bytes + 2) // 3 * 4 + MESSAGE_OVERHEAD_BYTES


def board_vhost(agents_vhost, board):
    """The RabbitMQ vhost of one board on the agents' bus.

    Each board's agent talks to nova-compute on a vhost of its own: RPC
    replies travel through the default exchange, which reaches every queue
    of its vhost, so a board sharing a vhost with another could publish
    into the other's queues (see nova_fpga.deployment.board_permissions).
    The name is the agents' vhost and the board's, so distinct boards
    have distinct vhosts.
    """
    return '%s.%s' % (agents_vhost, board) if agents_vhost else board


class AgentError(Exception):
    """Base of the errors an agent reports back over RPC."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message
        #: re-created on the caller's side by oslo.messaging
        self.kwargs = {}


class InvalidRequest(AgentError):
    """An RPC argument was malformed (names, sizes, digests, UUIDs)."""


class RegionBusy(AgentError):
    """The region is held by another instance or an operation is running."""


class RegionNotHeld(AgentError):
    """The instance does not hold the region it asks to operate."""


class LoadFailed(AgentError):
    """A load failed; the message names the step and the cause."""

    def __init__(self, message, step=None):
        super().__init__(message)
        self.step = step
        self.kwargs = {'step': step}


class NotCached(AgentError):
    """A load named a bitstream by digest the board does not cache."""


class HardwareError(AgentError):
    """The programmable logic did not do what was asked."""


def encode_bitstream(data):
    return base64.b64encode(bytes(data)).decode('ascii')


def decode_bitstream(text, limit):
    """Bitstream bytes from their RPC form, refusing anything over limit."""
    if not isinstance(text, str):
        raise InvalidRequest('bitstream must be base64 text')
    if len(text) > (limit + 2) // 3 * 4:
        raise InvalidRequest('bitstream larger than the %d-byte limit'
                             % limit)
    try:
        return base64.b64decode(text.encode('ascii'), validate=True)
    except (binascii.Error, UnicodeEncodeError) as exc:
        raise InvalidRequest('bitstream is not valid base64: %s' % exc)


class AgentAPI:
    """Calls to board agents.

    :param transport: an oslo.messaging RPC transport on the agents' bus.
    :param version_cap: highest API version to send (None: ours).
    """

    def __init__(self, transport, topic=DEFAULT_TOPIC, version_cap=None,
                 timeout=60, max_bitstream_bytes=DEFAULT_MAX_BITSTREAM_BYTES):
        target = messaging.Target(exchange=EXCHANGE, topic=topic,
                                  version=API_VERSION)
        self.client = messaging.get_rpc_client(
            transport, target, version_cap=version_cap or API_VERSION,
            timeout=timeout)
        self.max_bitstream_bytes = max_bitstream_bytes

    def _call(self, ctxt, board, method, timeout=None, version='1.0',
              **kwargs):
        # an explicit timeout=None would replace the client's timeout with
        # oslo.messaging's rpc_response_timeout: pass it only when given
        options = {} if timeout is None else {'timeout': timeout}
        cctxt = self.client.prepare(server=board, version=version, **options)
        return cctxt.call(ctxt, method, **kwargs)

    def describe(self, ctxt, board):
        return self._call(ctxt, board, 'describe')

    def health(self, ctxt, board, timeout=None):
        return self._call(ctxt, board, 'health', timeout=timeout)

    def can_load_cached(self):
        """Whether the version cap lets us ask for a cached bitstream."""
        return self.client.can_send_version('1.1')

    def load(self, ctxt, board, region, instance_uuid, image_id, sha256,
             bitstream, timeout=None):
        """Load bitstream (bytes) into the region; None asks the board for
        the bitstream it cached under sha256 (API 1.1).
        """
        if bitstream is None:
            if not self.can_load_cached():
                raise InvalidRequest('loading a cached bitstream needs agent '
                                     'API 1.1; the version cap is lower')
            return self._call(ctxt, board, 'load', timeout=timeout,
                              version='1.1', region=region,
                              instance_uuid=instance_uuid, image_id=image_id,
                              sha256=sha256, bitstream=None)
        if len(bitstream) > self.max_bitstream_bytes:
            raise InvalidRequest('bitstream of %d bytes exceeds the %d-byte '
                                 'limit' % (len(bitstream),
                                            self.max_bitstream_bytes))
        return self._call(ctxt, board, 'load', timeout=timeout,
                          region=region, instance_uuid=instance_uuid,
                          image_id=image_id, sha256=sha256,
                          bitstream=encode_bitstream(bitstream))

    def unload(self, ctxt, board, region, instance_uuid):
        return self._call(ctxt, board, 'unload', region=region,
                          instance_uuid=instance_uuid)

    def power(self, ctxt, board, region, instance_uuid, on):
        return self._call(ctxt, board, 'power', region=region,
                          instance_uuid=instance_uuid,
                          state=states.POWER_ON if on
                          else states.POWER_OFF)

    def reset(self, ctxt, board, region, instance_uuid):
        return self._call(ctxt, board, 'reset', region=region,
                          instance_uuid=instance_uuid)

    def stats(self, ctxt, board, region, instance_uuid):
        """What the instance holding the region may see of it (API 1.2).

        Never sent as 1.0: an older agent would answer with the region's
        whole history, other instances' included.
        """
        if not self.client.can_send_version('1.2'):
            raise InvalidRequest('stats for an instance needs agent API '
                                 '1.2; the version cap is lower')
        return self._call(ctxt, board, 'stats', version='1.2', region=region,
                          instance_uuid=instance_uuid)
