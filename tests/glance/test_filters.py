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

"""nova-fpga's glance-api paste filters with the clients users have: what
openstacksdk and python-glanceclient make of the answers, and that the
paste file's pipeline loads with them."""
import json

from glanceclient import exc as glance_exc
from openstack import exceptions as sdk_exc
from paste import deploy
import pytest
import requests
import webob
import webob.dec
import webob.exc

from glance_store_bitstream import paste
from glance_store_bitstream import snapshots
from glance_store_bitstream import upload_errors
from nova_fpga_devtools.localcloud import glance as localglance

REASON = 'not a valid bitstream: CRC check word 0x1 at byte 7'


@webob.dec.wsgify
def refusing_glance(req):
    """Refuses as Glance's image data controller does."""
    raise webob.exc.HTTPBadRequest(explanation=REASON, request=req)


@webob.dec.wsgify
def accepting_glance(req):
    return webob.Response(status=201, json_body={'id': 'created'})


def as_requests(response):
    """A webob response as the requests.Response the clients read."""
    answer = requests.Response()
    answer.status_code = response.status_int
    answer.reason = response.status.split(' ', 1)[1]
    answer.headers.update(response.headerlist)
    answer._content = response.body
    answer.url = 'http://glance/v2/images/x/file'
    return answer


def upload(app, accept):
    req = webob.Request.blank('/v2/images/x/file', method='PUT',
                              body=b'\0' * 64)
    req.headers['Content-Type'] = 'application/octet-stream'
    req.headers['Accept'] = accept
    return req.get_response(app)


def test_without_the_filter_the_sdk_shows_no_reason():
    """What the issue saw: the SDK's empty Accept gets text/plain."""
    with pytest.raises(sdk_exc.BadRequestException) as exc:
        sdk_exc.raise_from_response(as_requests(upload(refusing_glance, '')))
    assert exc.value.details == 'Bad Request'  # what the CLI printed


def test_the_sdk_and_glanceclient_show_the_reason():
    response = upload(upload_errors.UploadErrors(refusing_glance), '')
    assert response.content_type == 'application/json'
    with pytest.raises(sdk_exc.BadRequestException) as exc:
        sdk_exc.raise_from_response(as_requests(response))
    assert exc.value.details == REASON  # what the CLI prints after the URL
    error = glance_exc.from_response(as_requests(response), response.body)
    assert isinstance(error, glance_exc.HTTPBadRequest)
    assert REASON in str(error)


RESERVED = "Attribute 'fpga_footprint' is reserved."


@webob.dec.wsgify
def protecting_glance(req):
    """Refuses as Glance's images controller does a protected property."""
    raise webob.exc.HTTPForbidden(explanation=RESERVED, request=req)


def create(app, accept):
    req = webob.Request.blank('/v2/images', method='POST', body=b'{}')
    req.headers['Content-Type'] = 'application/json'
    if accept is not None:
        req.headers['Accept'] = accept
    return req.get_response(app)


def test_without_the_filter_the_sdk_shows_html_escapes():
    """What issue 33 saw: requests' Accept */* gets webob's HTML page."""
    with pytest.raises(sdk_exc.ForbiddenException) as exc:
        sdk_exc.raise_from_response(as_requests(create(protecting_glance,
                                                       '*/*')))
    assert '&#x27;fpga_footprint&#x27;' in exc.value.details


@pytest.mark.parametrize('accept', ['*/*', None, ''])
def test_the_sdk_shows_glances_words_unescaped(accept):
    response = create(upload_errors.UploadErrors(protecting_glance), accept)
    assert response.content_type == 'application/json'
    with pytest.raises(sdk_exc.ForbiddenException) as exc:
        sdk_exc.raise_from_response(as_requests(response))
    assert exc.value.details == RESERVED
    error = glance_exc.from_response(as_requests(response), response.body)
    assert isinstance(error, glance_exc.HTTPForbidden)
    assert RESERVED in str(error)


def test_answers_asked_for_in_a_format_keep_it():
    app = upload_errors.UploadErrors(refusing_glance)
    assert upload(app, 'text/html').content_type == 'text/html'
    assert create(upload_errors.UploadErrors(protecting_glance),
                  'text/html').content_type == 'text/html'
    assert upload(app, 'application/json').json_body['message'].startswith(
        REASON)


def nova_snapshot_request(**changes):
    """The image nova asks Glance for when a region server is snapshot:
    the bitstream image's properties are copied into it.
    """
    body = dict({'name': 'snap', 'image_type': 'snapshot',
                 'instance_uuid': 'c1196302-6b91-4cb0-b8c7-7da6aba4878f',
                 'base_image_ref': '983b0aea-afd5-46cc-851f-57d2aefda5c2',
                 'fpga_shell_id': '6f0c7d1e-2b8a-4c51-9d3e-5a7b0e4c2f10',
                 'fpga_module_id': '0x4E460001', 'container_format': 'bare',
                 'disk_format': 'raw', 'visibility': 'private'}, **changes)
    req = webob.Request.blank('/v2/images', method='POST',
                              body=json.dumps(body).encode())
    req.headers['Content-Type'] = 'application/json'
    return req


def test_a_region_servers_snapshot_is_refused_with_the_image_to_use():
    app = snapshots.RegionSnapshots(accepting_glance)
    response = nova_snapshot_request().get_response(app)
    assert response.status_int == 400
    error = glance_exc.from_response(as_requests(response), response.body)
    # nova's API answers the user with str(error) (ImageBadRequest)
    assert str(error) == 'HTTP ' + snapshots.REFUSAL % (
        '983b0aea-afd5-46cc-851f-57d2aefda5c2')


@pytest.mark.parametrize('changes', [
    {'image_type': 'image'},          # an ordinary image create
    {'fpga_shell_id': None},          # a VM's snapshot
    {'name': 'vtc1-shelved'},         # shelve: refused by the driver
])
def test_other_images_pass(changes):
    changes = dict(changes)
    req = nova_snapshot_request(**changes)
    if changes.get('fpga_shell_id', '') is None:
        body = json.loads(req.body)
        del body['fpga_shell_id']
        req.body = json.dumps(body).encode()
    response = req.get_response(snapshots.RegionSnapshots(accepting_glance))
    assert response.status_int == 201


def test_the_paste_pipeline_loads_with_the_filters(tmp_path):
    ini = tmp_path / 'glance-api-paste.ini'
    ini.write_text(paste.add_to_paste(localglance.PASTE_INI.read_text()))
    pipelines = {line.partition(' = ')[0]: line.split()[2:]
                 for line in ini.read_text().splitlines()
                 if line.startswith('keystone')}
    # every flavor that authenticates: DevStack runs keystone+cachemanagement
    assert set(pipelines) == {'keystone', 'keystone+caching',
                              'keystone+cachemanagement'}
    for flavor, pipeline in pipelines.items():
        # after authentication, just before the application
        assert pipeline.index('context') < pipeline.index(
            next(iter(paste.FILTERS))), flavor
        assert pipeline[-len(paste.FILTERS) - 1:] == \
            list(paste.FILTERS) + ['rootapp'], flavor
    assert paste.has_filters(ini.read_text())
    for name in paste.FILTERS:
        factory = deploy.loadfilter('config:%s' % ini, name=name)
        assert callable(factory(accepting_glance))


def test_the_store_type_the_route_looks_for_is_the_stores_entry_point():
    """deployment and the route filter name the bitstream store's type by
    traits.GLANCE_STORE_TYPE; glance_store loads a backend of that type by
    the glance_store.drivers entry point setup.cfg declares.
    """
    from importlib import metadata

    from glance_store_bitstream import store
    from glance_store_bitstream import store_route
    from nova_fpga.contract import traits
    from nova_fpga import deployment

    drivers = metadata.entry_points(group='glance_store.drivers',
                                    name=traits.GLANCE_STORE_TYPE)
    assert [ep.load() for ep in drivers] == [store.Store]
    backends = dict(b.split(':') for b in
                    deployment.glance_backends('file:file').split(', '))
    conf = type('Conf', (), {'enabled_backends': backends})
    assert store_route.bitstream_stores(conf) == [deployment.GLANCE_STORE]
