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

"""The bitstream store as glance_store drives it: like the filesystem store,
but only valid partial bitstreams get in, checked while they stream."""
import hashlib
import io
import os
import uuid

from glance import context as glance_context
# glance.db registers glance-api's command-line options: imported before
# any test parses the configuration, as glance-api imports it
from glance import db as glance_db
from glance.db.sqlalchemy import api as db_api
from glance.db.sqlalchemy import models
import glance_store
from glance_store import exceptions
from glance_store import location
from glance_store import multi_backend
from oslo_config import cfg
from oslo_db import options as db_options
import pytest

from glance_store_bitstream import store as bitstream_store
from nova_fpga import bitstream
from tests.agent.conftest import module_for
from tests.unit.bitstream import mutate
from tests.unit.bitstream import realfiles


def context(project_id, roles):
    """What glance-api passes to a store: its own request context."""
    return glance_context.RequestContext(project_id=project_id, roles=roles)


class Reader(io.BytesIO):
    """An upload stream that counts how much was read at once."""

    def __init__(self, data):
        super().__init__(data)
        self.largest = 0

    def read(self, size=-1):
        chunk = super().read(size)
        self.largest = max(self.largest, len(chunk))
        return chunk


@pytest.fixture
def fpga_store(tmp_path):
    # glance_store and oslo.policy read the global CONF, as in glance-api.
    conf = cfg.CONF
    if 'enabled_backends' not in conf:
        # Glance registers enabled_backends itself; glance_store reads it.
        conf.register_opt(cfg.DictOpt('enabled_backends'))
    conf.set_override('enabled_backends', {'fpga': 'bitstream'})
    multi_backend.register_store_opts(conf, reserved_stores={})
    overrides = [('default_backend', 'fpga', 'glance_store'),
                 ('filesystem_store_datadir', str(tmp_path / 'fpga'), 'fpga'),
                 ('bitstream_allowed_devices', ['xc7z020'], 'fpga')]
    for name, value, group in overrides:
        conf.set_override(name, value, group)
    multi_backend.create_multi_stores(conf, reserved_stores={})
    store = multi_backend.get_store_from_store_identifier('fpga')
    assert isinstance(store, bitstream_store.Store)
    yield store, tmp_path / 'fpga'
    for name, _, group in overrides:
        conf.clear_override(name, group)
    conf.clear_override('enabled_backends')


@pytest.fixture(scope='module', autouse=True)
def image_tables(tmp_path_factory):
    """Glance's image tables (SQLite): the store reads there whether the
    import flow is writing an image.
    """
    db_options.set_defaults(cfg.CONF)
    path = tmp_path_factory.mktemp('glance-db') / 'glance.sqlite'
    cfg.CONF.set_override('connection', 'sqlite:///%s' % path, 'database')
    models.register_models(db_api.get_engine())
    yield db_api
    cfg.CONF.clear_override('connection', 'database')


def image(image_id, status='importing', project='p-admin'):
    """An image record as Glance has it while data is written to it."""
    glance_db.get_api().image_create(context(project, ['admin']), {
        'id': image_id, 'name': image_id, 'status': status,
        'owner': project, 'visibility': 'private'})
    return image_id


def add(store, image_id, data, project='p-admin', roles=('admin',),
        status='importing'):
    return store.add(image(image_id, status, project), Reader(data),
                     len(data), 'sha512',
                     context=context(project, list(roles)))


def test_partial_is_stored_and_read_back_like_a_file(fpga_store):
    store, datadir = fpga_store
    data = realfiles.read('pr_0_add.bit')
    url, size, md5, multihash, meta = add(store, 'img-1', data)
    assert url == 'bitstream://%s' % (datadir / 'img-1')
    assert size == len(data)
    assert md5 == hashlib.md5(data).hexdigest()
    assert multihash == hashlib.sha512(data).hexdigest()
    assert meta['store'] == 'fpga'
    loc = location.get_location_from_uri_and_backend(url, 'fpga')
    chunks, length = store.get(loc)
    assert b''.join(chunks) == data and length == len(data)
    part, length = store.get(loc, offset=1000, chunk_size=500)
    assert b''.join(part) == data[1000:1500] and length == 500
    assert store.get_size(loc) == len(data)
    store.delete(loc)
    assert not os.listdir(datadir)
    with pytest.raises(exceptions.NotFound):
        store.get_size(loc)


def test_capabilities_are_the_filesystem_stores(fpga_store):
    from glance_store._drivers import filesystem
    store, _ = fpga_store
    assert store._CAPABILITIES == filesystem.Store._CAPABILITIES
    assert store.is_capable(glance_store.capabilities.BitMasks.READ_RANDOM)


def test_validation_streams_with_bounded_reads(fpga_store):
    store, _ = fpga_store
    reader = Reader(realfiles.read('pr_0_sub.bit'))
    store.add(image('img-2'), reader, 0, 'sha256',
              context=context('p-admin', ['admin']))
    assert reader.largest <= store.WRITE_CHUNKSIZE


@pytest.mark.parametrize('data,message', [
    (lambda: realfiles.read('NEGATIVE_microblaze_pmod_mailbox.bin'),
     'not a Xilinx bitstream'),
    (lambda: realfiles.read('pr_0_add.bit')[:400000],
     'declares 682404 bytes of configuration data but the file has'),
    (lambda: mutate.flip_bit(realfiles.read('pr_0_add.bit'), 300000),
     'CRC check word'),
    (lambda: realfiles.read('prio.bit'), 'full bitstream for xc7z020'),
    (lambda: module_for('rp0', part='7z010clg400'),
     'bitstream for xc7z010: this cloud takes bitstreams for xc7z020 only'),
])
def test_invalid_data_is_refused_and_nothing_stays(fpga_store, data, message):
    store, datadir = fpga_store
    with pytest.raises(bitstream_store.BitstreamRejected) as exc:
        add(store, str(uuid.uuid4()), data())
    assert message in str(exc.value)
    assert isinstance(exc.value, glance_store.Invalid)  # glance: 400
    assert not os.listdir(datadir)


def test_policy_limits_who_creates_bitstreams(fpga_store):
    """Refused, nothing stored, and the body read first: glance-api
    answers the 403 to a client that is no longer sending (else the
    client may see the connection closed mid-upload, not the reason).
    """
    from glance.common import exception
    store, datadir = fpga_store
    body = io.BytesIO(realfiles.read('pr_0_add.bit'))
    with pytest.raises(exception.Forbidden, match='fpga:bitstream:create'):
        store.add(image('img-3'), body, 0, 'sha256',
                  context=context('p-demo', ['member']))
    assert not os.listdir(datadir)
    assert body.read() == b''


@pytest.mark.parametrize('status', ['queued', 'saving', 'active'])
def test_plain_upload_is_refused_with_the_import_command(
        fpga_store, status):
    """Valid data not written by the import flow (a plain upload, or a
    copy of an active image) is refused: nothing would describe it to nova.
    """
    store, datadir = fpga_store
    with pytest.raises(bitstream_store.BitstreamRejected) as exc:
        add(store, 'plain-%s' % status, module_for('rp1'), status=status)
    assert 'valid partial bitstream for xc7z020, but bitstreams must be ' \
        'uploaded with --import' in str(exc.value)
    assert 'openstack image create --import --property fpga_shell_id=' \
        in str(exc.value)
    assert not os.listdir(datadir)


def test_a_write_without_a_request_is_refused(fpga_store):
    store, datadir = fpga_store
    with pytest.raises(exceptions.StorageWriteDenied):
        store.add('no-request', Reader(module_for('rp1')), 0, 'sha256')
    assert not os.listdir(datadir)


def test_description_matches_the_library(fpga_store):
    """What the store accepted is what the library says it is."""
    store, datadir = fpga_store
    data = module_for('rp1')
    add(store, 'img-4', data)
    stored = bitstream.validate_file(datadir / 'img-4')
    assert stored.sha256 == hashlib.sha256(data).hexdigest()
