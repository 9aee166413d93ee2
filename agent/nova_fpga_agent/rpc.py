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

"""The agent's RPC endpoint: the versioned API nova_fpga.contract.agent_api
calls.

Arguments arrive from the network: each is checked before it reaches the
region manager (which checks names, UUIDs, digests and sizes again where it
uses them); nothing from a request becomes a filesystem path.
"""
import collections
import functools
import threading
import time

import oslo_messaging as messaging

from nova_fpga.contract import agent_api as api
from nova_fpga.contract import signature as sig


def _served(method):
    """Serve an RPC method: count the call, refuse arguments the contract
    does not give the method, and mark the API's own errors as expected.

    Counted on behalf of a request (a caller acting for one sends its
    request ID) or in the background (periodic tasks send none).  The
    arguments are checked before Python binds them, so a call with one
    missing, an unknown one, or one named like the context is refused in
    words instead of failing with a TypeError.  An AgentError is an
    answer, not a fault: oslo.messaging logs it at debug level, not as
    "Exception during message handling" with a traceback (which is left
    for what really went wrong).
    """
    name = method.__name__

    @functools.wraps(method)
    @messaging.expected_exceptions(api.AgentError)
    def wrapper(*args, **kwargs):
        endpoint, ctxt = args
        kind = 'request' if (ctxt or {}).get('request_id') else 'background'
        with endpoint._calls_lock:
            endpoint._calls[kind][name] += 1
        api.check_arguments(name, kwargs)
        return method(endpoint, ctxt, **kwargs)
    return wrapper


class AgentEndpoint:
    target = messaging.Target(version=api.API_VERSION)

    def __init__(self, manager):
        self.manager = manager
        # how chatty nova is with this board: health answers with it
        self._calls_lock = threading.Lock()
        self._calls = {'request': collections.Counter(),
                       'background': collections.Counter()}

    @_served
    def describe(self, ctxt):
        return self.manager.describe()

    @_served
    def health(self, ctxt):
        with self._calls_lock:
            calls = {k: dict(v) for k, v in self._calls.items()}
        return dict(self.manager.health(), calls=calls)

    @_served
    def load(self, ctxt, region, instance_uuid, image_id, sha256, bitstream,
             network=None, settings=None, signature=None):
        received = time.monotonic()
        # 1.1: no bitstream means "the one you cached under sha256"
        data = None if bitstream is None else api.decode_bitstream(
            bitstream, self.manager.max_bitstream_bytes)
        # 1.5: the image's signature; none (older callers too): unsigned
        if signature is not None:
            try:
                signature = sig.BitstreamSignature.from_dict(signature)
            except sig.MalformedSignature as exc:
                raise api.InvalidRequest(str(exc))
        # 1.3: the region's ports; none (older callers too): the manifest
        # 1.4: the tenant's settings of the module's registers
        result = self.manager.load(region, instance_uuid, image_id, sha256,
                                   data, network, settings, signature)
        # receive to ready, less the configuration port's own time
        result['agent_seconds'] = (time.monotonic() - received
                                   - result['port_seconds'])
        return result

    @_served
    def unload(self, ctxt, region, instance_uuid):
        return self.manager.unload(region, instance_uuid)

    @_served
    def detach_port(self, ctxt, region, instance_uuid, port_id):
        return self.manager.detach_port(region, instance_uuid, port_id)

    @_served
    def power(self, ctxt, region, instance_uuid, state):
        return self.manager.power(region, instance_uuid, state)

    @_served
    def reset(self, ctxt, region, instance_uuid):
        return self.manager.reset(region, instance_uuid)

    @_served
    def stats(self, ctxt, region, instance_uuid=None):
        # 1.2: the instance asking; a caller before 1.2 names none and is
        # refused (it would have read the region's whole history)
        return self.manager.stats(region, instance_uuid)
