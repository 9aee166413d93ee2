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

"""A glance-api filter that lets openstacksdk show why Glance refused a
request, in the words Glance wrote.

Glance's errors are webob's, which pick their format from the Accept
header.  openstacksdk (so the openstack CLI) sends image data and image
updates with an empty Accept header: webob then writes the explanation as
text/plain, which the SDK does not read (the user sees only "400 ... Bad
Request", not the validator's reason).  Its other requests carry
requests' ``Accept: */*``: webob writes HTML, with the explanation's
quotes escaped, and the SDK strips the tags but not the escapes (the user
sees ``Attribute &#x27;fpga_footprint&#x27; is reserved``).  This filter
rewrites both as JSON, in the form both openstacksdk and
python-glanceclient read (:func:`error_body`), for clients that did not
ask for a format (no Accept, an empty one or ``*/*``); a client that asks
for HTML or JSON gets what webob gives it.

It goes into glance-api's paste pipeline (see paste.py).
"""
import html
import json
import re

from oslo_middleware import base
import webob.dec


class UploadErrors(base.ConfigurableMiddleware):

    @webob.dec.wsgify
    def __call__(self, req):
        response = req.get_response(self.application)
        if (response.status_int >= 400
                and req.headers.get('Accept', '').strip() in UNASKED):
            text = explanation(response)
            if text is not None:
                response.content_type = 'application/json'
                response.body = error_body(response.status_int, text)
        return response


#: Accept headers of clients that asked for no format in particular
UNASKED = ('', '*/*')

#: webob's HTML error page: the status in <h1>, then the explanation
_HTML_ERROR = re.compile(r'</h1>(.*)</body>', re.DOTALL)


def explanation(response):
    """The text of a webob error response (text/plain or its HTML page),
    unescaped; None for any other body.
    """
    if response.content_type == 'text/plain':
        # the status line, a blank line, the text
        return response.text.partition('\n')[2].strip()
    if response.content_type == 'text/html':
        page = _HTML_ERROR.search(response.text)
        if page:
            lines = re.sub(r'<[^>]*>', '\n', page.group(1)).split('\n')
            return html.unescape(
                ' '.join(line.strip() for line in lines if line.strip()))
    return None


def error_body(code, message):
    """An error as JSON both clients show: each reads the ``message`` of
    the objects in the top-level object.
    """
    return json.dumps({'error': {'code': code, 'message': message}}).encode()
