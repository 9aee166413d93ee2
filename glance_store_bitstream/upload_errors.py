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

"""A glance-api filter that lets openstacksdk show why Glance refused data.

openstacksdk (so the openstack CLI) sends image data with an empty Accept
header.  webob then writes an error's explanation as text/plain, which the
SDK does not read: the user sees only "400 ... Bad Request", not the
validator's reason.  This filter rewrites such an error as JSON, in the
form both openstacksdk and python-glanceclient read (:func:`error_body`).

It goes into glance-api's paste pipeline (see paste.py).
"""
import json

from oslo_middleware import base
import webob.dec


class UploadErrors(base.ConfigurableMiddleware):

    @webob.dec.wsgify
    def __call__(self, req):
        response = req.get_response(self.application)
        if (response.status_int >= 400 and not req.headers.get('Accept')
                and response.content_type == 'text/plain'):
            # webob's plain error: the status line, a blank line, the text
            text = response.text.partition('\n')[2].strip()
            response.content_type = 'application/json'
            response.body = error_body(response.status_int, text)
        return response


def error_body(code, message):
    """An error as JSON both clients show: each reads the ``message`` of
    the objects in the top-level object.
    """
    return json.dumps({'error': {'code': code, 'message': message}}).encode()
