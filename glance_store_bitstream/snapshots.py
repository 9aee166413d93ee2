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

"""A glance-api filter that refuses snapshots of servers in FPGA regions.

nova's snapshot creates the server's image in Glance before it asks the
compute driver, and reports the driver's refusal nowhere a user looks (the
action's event says Success).  The image nova asks for inherits the
bitstream image's properties, so Glance can tell and refuse it at once:
nova then answers ``openstack server image create`` with this reason
(HTTP 400), and the server and Glance stay as they were.

Shelve's image is left alone: nova marks the server shelving before it
asks Glance, and a refusal there would leave it stuck so; the driver
refuses shelve instead, and the user reads why in the action's event.
"""
import json

from oslo_log import log as logging
from oslo_middleware import base
import webob
import webob.dec

from glance_store_bitstream import upload_errors
from nova_fpga.contract import traits

LOG = logging.getLogger(__name__)

REFUSAL = ('Cannot snapshot a server in an FPGA region: a region holds '
           'logic, not a disk; the bitstream it runs is image %s already: '
           'create servers from that image')
#: how nova names the image of a server it shelves
SHELVED_SUFFIX = '-shelved'


def _server_image_of_a_region(req):
    """The body of nova's request for a snapshot whose base image is a
    bitstream (nova copies the base image's properties into it), or None.
    """
    if req.method != 'POST' or req.path_info.rstrip('/') != '/v2/images':
        return None
    try:
        body = json.loads(req.body)
    except ValueError:
        return None  # Glance answers malformed JSON itself
    if (isinstance(body, dict) and body.get('image_type') == 'snapshot'
            and traits.SHELL_ID_PROPERTY in body
            and not str(body.get('name')).endswith(SHELVED_SUFFIX)):
        return body
    return None


class RegionSnapshots(base.ConfigurableMiddleware):

    @webob.dec.wsgify
    def __call__(self, req):
        body = _server_image_of_a_region(req)
        if body is None:
            return req.get_response(self.application)
        message = REFUSAL % body.get('base_image_ref', '(unknown)')
        LOG.info('refused image %r of server %s: %s', body.get('name'),
                 body.get('instance_uuid'), message)
        return webob.Response(status=400, content_type='application/json',
                              body=upload_errors.error_body(400, message))
