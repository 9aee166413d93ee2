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

"""A glance-api filter that sends bitstream images' data to the bitstream
store.

The bitstream store is one of Glance's ``enabled_backends`` and never its
default: VM images go where the cloud keeps them.  An image that declares
``fpga_shell_id`` is a bitstream; when its data arrives (the import's
``POST /v2/images/{id}/import``, or a plain ``PUT /v2/images/{id}/file``)
without naming a store, this filter names the bitstream store for it with
Glance's own ``X-Image-Meta-Store`` header.  So ``openstack image create
--import --property fpga_shell_id=...`` (which cannot name a store) lands
in the bitstream store, a plain upload of a bitstream meets the store's
refusal, and a request that names its stores (``openstack image import
--store ...``) is left as it is: the import plugin refuses a bitstream
bound for another store.

It reads the image as the requesting user, through the application behind
it (a GET of the image), so it sees only what that user may see; an image
it cannot read is left to Glance to answer.
"""
import json

from oslo_config import cfg
from oslo_log import log as logging
from oslo_middleware import base
import webob.dec

from nova_fpga.contract import traits

LOG = logging.getLogger(__name__)

STORE_HEADER = 'X-Image-Meta-Store'
_PREFIX = '/v2/images/'


def bitstream_stores(conf=cfg.CONF):
    """Names of Glance's enabled backends that are bitstream stores."""
    backends = getattr(conf, 'enabled_backends', None) or {}
    return sorted(name for name, kind in backends.items()
                  if kind == traits.GLANCE_STORE_TYPE)


def _image_data_request(req):
    """The image ID of a request that sends an image's data to a store
    Glance picks (no store named), or None.
    """
    path = req.path_info.rstrip('/')
    if not path.startswith(_PREFIX) or STORE_HEADER in req.headers:
        return None
    image_id, _, action = path[len(_PREFIX):].partition('/')
    if req.method == 'PUT' and action == 'file':
        return image_id
    if req.method == 'POST' and action == 'import':
        try:
            body = json.loads(req.body)
        except ValueError:
            return None  # Glance answers malformed JSON itself
        if (isinstance(body, dict) and 'stores' not in body
                and not body.get('all_stores')
                and (body.get('method') or {}).get('name') != 'copy-image'):
            return image_id
    return None


class BitstreamStoreRoute(base.ConfigurableMiddleware):

    @webob.dec.wsgify
    def __call__(self, req):
        image_id = _image_data_request(req)
        if image_id is not None:
            stores = bitstream_stores()
            if stores and self._declares_shell(req, image_id):
                req.headers[STORE_HEADER] = stores[0]
                LOG.info('image %s declares %s: its data goes to the '
                         'bitstream store %s', image_id,
                         traits.SHELL_ID_PROPERTY, stores[0])
        return req.get_response(self.application)

    def _declares_shell(self, req, image_id):
        show = req.copy_get()
        show.path_info = _PREFIX + image_id
        show.headers['Accept'] = 'application/json'
        answer = show.get_response(self.application)
        if answer.status_int != 200:
            return False
        try:
            return traits.SHELL_ID_PROPERTY in answer.json
        except ValueError:
            return False
