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

"""The largest message the agent takes, refused before it is parsed.

Where the check sits, and why there: oslo.messaging's rabbit driver hands
each delivery to kombu, whose ``Message.payload`` decodes the body with the
decoder kombu's serializer registry holds for the message's content type,
and only then does oslo.messaging see a dict (``RabbitMessage``).  An
oslo.messaging ``Serializer`` runs after that JSON parse, too late; the
driver's options bound no message size (``frame_max`` bounds frames, and a
message spans any number of them).  kombu's registry is its documented
extension point for decoders (``kombu.serialization.register``), so the
agent registers, for JSON (the only content type kombu decodes by default:
pickle, YAML and msgpack are disabled and refused unparsed), a decoder that
measures the body first and parses it only when it is within the limit.

A refused message is logged (size, limit, the board's topic) and the
decoder raises; the rabbit driver then logs "Failed to process message ...
skipping it.", rejects the delivery (not requeued) and goes on consuming,
so the agent keeps serving.  Who sent it is not known before parsing (the
reply queue is inside the body), and the caller times out.

The body is in memory by then (py-amqp reads a whole message before kombu
sees it): the broker's own ``max_message_size`` bounds that, this bounds
what the agent parses and acts on.  The registry is the process's, which
in the agent is the agent's alone.
"""
from kombu import serialization
from kombu.utils import json as kombu_json
from oslo_log import log as logging

LOG = logging.getLogger(__name__)

JSON = 'application/json'


class MessageTooLarge(ValueError):
    """A message over the agent's limit (refused unparsed)."""


def install(limit, where):
    """Make kombu refuse JSON bodies over limit bytes in this process;
    returns a function that puts kombu's own JSON decoder back.

    where: what the log line names (the board and its topic).
    """
    def loads(data):
        size = len(data)
        if size > limit:
            LOG.error('refused an RPC message of %d bytes on %s: over the '
                      '%d-byte limit ([agent] max_message_bytes); not '
                      'parsed, dropped', size, where, limit)
            raise MessageTooLarge('message of %d bytes over the %d-byte '
                                  'limit' % (size, limit))
        return kombu_json.loads(data)

    serialization.register('json', kombu_json.dumps, loads,
                           content_type=JSON, content_encoding='utf-8')
    return serialization.register_json
