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
    1.3 - load takes the region's network (the VLANs of its ports);
          detach_port
    1.4 - load takes the tenant's settings of the module's registers
          ({server property: number}, nova_fpga.catalogue), written after
          every reset of the module, before frames flow
    1.5 - load takes the image's signature and its signer's certificate
          (nova_fpga.contract.signature), which the board verifies against
          its own trusted CAs over the bytes it writes, from its cache too;
          SignatureRefused (also for an unsigned load where the board
          requires signatures)
"""
import base64
import binascii

from nova_fpga.contract import states

API_VERSION = '1.5'
#: the first version with region networks (ports on tenant networks)
NETWORK_VERSION = '1.3'
#: the first version with tenant settings of a module's registers
SETTINGS_VERSION = '1.4'
#: the first version with a bitstream's signature, which the board checks
#: before it programs (nova_fpga.contract.signature)
SIGNATURE_VERSION = '1.5'
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


#: What an agent serves: each method's API version and its arguments
#: beside the context, each with the version that brought it.  An
#: argument newer than its method is optional (an older caller sends none);
#: the others are required.  The agent refuses a call that differs
#: (check_arguments); tests enumerate the API from here.
METHODS = {
    'describe': ('1.0', {}),
    'health': ('1.0', {}),
    'load': ('1.0', {'region': '1.0', 'instance_uuid': '1.0',
                     'image_id': '1.0', 'sha256': '1.0', 'bitstream': '1.0',
                     'network': NETWORK_VERSION,
                     'settings': SETTINGS_VERSION,
                     'signature': SIGNATURE_VERSION}),
    'unload': ('1.0', {'region': '1.0', 'instance_uuid': '1.0'}),
    'power': ('1.0', {'region': '1.0', 'instance_uuid': '1.0',
                      'state': '1.0'}),
    'reset': ('1.0', {'region': '1.0', 'instance_uuid': '1.0'}),
    'stats': ('1.0', {'region': '1.0', 'instance_uuid': '1.2'}),
    'detach_port': (NETWORK_VERSION, {'region': NETWORK_VERSION,
                                      'instance_uuid': NETWORK_VERSION,
                                      'port_id': NETWORK_VERSION}),
}


def check_arguments(method, names):
    """Refuse a call of method whose argument names (beside the context)
    are not what METHODS says: InvalidRequest names the ones missing or
    unknown.
    """
    since, arguments = METHODS[method]
    required = {name for name, version in arguments.items()
                if version == since}
    missing = sorted(required - set(names))
    unknown = sorted(set(names) - set(arguments))
    if missing or unknown:
        raise InvalidRequest('%s takes %s; %s' % (
            method, ', '.join(sorted(arguments)) or 'no arguments',
            '; '.join(part for part in (
                missing and 'missing: %s' % ', '.join(missing),
                unknown and 'unknown: %s' % ', '.join(
                    repr(name[:64]) for name in unknown)) if part)))


def version_at_least(version, wanted):
    """Whether an API version string (an agent's) is wanted or a later
    minor version of the same major one; None is older than any.
    """
    if not version:
        return False
    mine = tuple(int(p) for p in version.split('.'))
    other = tuple(int(p) for p in wanted.split('.'))
    return mine[0] == other[0] and mine >= other


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


class SignatureRefused(AgentError):
    """The board will not program the bitstream: its signature does not
    verify against the board's trusted CAs, or the board loads only signed
    bitstreams and it has none.  Nothing was written; the region is as it
    was.
    """


class StateNotSaved(AgentError):
    """The board could not record a region's new state (its state
    directory full or read-only), so it did not begin the operation.
    """


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
        # here, not at the top: the contract's names are read by light
        # tools (nova-fpga-config, run dozens of times by the DevStack
        # plugin) that must not pay oslo.messaging's import (~1.5 s)
        import oslo_messaging as messaging
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

    def can_network(self):
        """Whether the version cap lets us give a region its ports."""
        return self.client.can_send_version(NETWORK_VERSION)

    def can_set(self):
        """Whether the version cap lets us send a module's settings."""
        return self.client.can_send_version(SETTINGS_VERSION)

    def can_sign(self):
        """Whether the version cap lets us send a bitstream's signature."""
        return self.client.can_send_version(SIGNATURE_VERSION)

    def load(self, ctxt, board, region, instance_uuid, image_id, sha256,
             bitstream, timeout=None, network=None, settings=None,
             signature=None):
        """Load bitstream (bytes) into the region; None asks the board for
        the bitstream it cached under sha256 (API 1.1).  network (a
        network.RegionNetwork, API 1.3): the VLANs of the region's ports;
        None: the manifest's VLAN (``--nic none``).  settings ({server
        property: number}, API 1.4): the tenant's settings of the module's
        registers; none: every register keeps its reset value.
        signature (a signature.BitstreamSignature, API 1.5): the image's
        signature and its signer's certificate, which the board verifies
        before it programs; None: an unsigned image.
        """
        kwargs = {}
        version = '1.0'
        if bitstream is None:
            if not self.can_load_cached():
                raise InvalidRequest('loading a cached bitstream needs agent '
                                     'API 1.1; the version cap is lower')
            version = '1.1'
        elif len(bitstream) > self.max_bitstream_bytes:
            raise InvalidRequest('bitstream of %d bytes exceeds the %d-byte '
                                 'limit' % (len(bitstream),
                                            self.max_bitstream_bytes))
        if network is not None:
            # never sent without it: an older agent would steer the
            # region's manifest VLAN, not the server's networks
            if not self.can_network():
                raise InvalidRequest(
                    'board %s cannot put a region on tenant networks: that '
                    'needs agent API %s, the version cap is lower (upgrade '
                    'the board\'s agent, or create the server with --nic '
                    'none)' % (board, NETWORK_VERSION))
            version = NETWORK_VERSION
            kwargs['network'] = network.to_dict()
        if settings:
            # never sent without them: an older agent would run the module
            # with its reset values, not what the tenant asked for
            if not self.can_set():
                raise InvalidRequest(
                    'board %s cannot set a module\'s registers: that needs '
                    'agent API %s, the version cap is lower (upgrade the '
                    'board\'s agent, or create the server without the '
                    'properties %s)' % (board, SETTINGS_VERSION,
                                        ', '.join(sorted(settings))))
            version = SETTINGS_VERSION
            kwargs['settings'] = dict(settings)
        if signature is not None:
            # never sent without it: an older agent would program a signed
            # bitstream without checking who signed it
            if not self.can_sign():
                raise InvalidRequest(
                    'board %s cannot verify a bitstream\'s signature: that '
                    'needs agent API %s, the version cap is lower (upgrade '
                    'the board\'s agent)' % (board, SIGNATURE_VERSION))
            version = SIGNATURE_VERSION
            kwargs['signature'] = signature.to_dict()
        return self._call(ctxt, board, 'load', timeout=timeout,
                          version=version, region=region,
                          instance_uuid=instance_uuid, image_id=image_id,
                          sha256=sha256,
                          bitstream=None if bitstream is None
                          else encode_bitstream(bitstream), **kwargs)

    def detach_port(self, ctxt, board, region, instance_uuid, port_id):
        """Forget the VLAN of a port of the region (API 1.3): its frames
        no longer enter or leave the region.
        """
        if not self.can_network():
            raise InvalidRequest('detaching a port needs agent API %s; the '
                                 'version cap is lower' % NETWORK_VERSION)
        return self._call(ctxt, board, 'detach_port',
                          version=NETWORK_VERSION, region=region,
                          instance_uuid=instance_uuid, port_id=port_id)

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
