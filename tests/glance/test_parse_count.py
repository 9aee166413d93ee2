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

"""One parse per import on the cloud side: what the import plugin found
in the staged data is what the store keeps, with no second parse of the
same bytes; a plain upload (or staged data changed after the inspection)
is still parsed by the store.  And one digest of the image on the compute
host: the driver checks Glance's hash while the image streams in and
sends that digest to the board.
"""
import hashlib
import types

from glance_store import exceptions
import pytest

from glance_store_bitstream import conf as bitstream_conf
from glance_store_bitstream import import_plugin
from nova_fpga.contract import shell
from nova_fpga.contract import traits
from nova_fpga.virt import driver
from tests.agent.conftest import module_for
from tests.glance.test_store import context
from tests.glance.test_store import fpga_store  # noqa: F401 (a fixture)
from tests.glance.test_store import image
from tests.glance.test_store import image_tables  # noqa: F401 (a fixture)
from tests.unit import counting


class Action:
    def __init__(self, properties):
        self.image_extra_properties = properties

    def set_image_extra_properties(self, properties):
        self.image_extra_properties.update(properties)

    def pop_extra_property(self, name):
        self.image_extra_properties.pop(name, None)


class Wrapper:
    def __init__(self, image_id, properties):
        self.image_id = image_id
        self.action = Action(properties)

    def __enter__(self):
        return self.action

    def __exit__(self, *exc):
        return False


@pytest.fixture
def shells():
    bitstream_conf.CONF.set_override('shell_manifests', [str(shell.REFERENCE)],
                                     'bitstream_import')
    yield shell.load(shell.REFERENCE)
    bitstream_conf.CONF.clear_override('shell_manifests', 'bitstream_import')


def inspect(image_id, staged, manifest):
    """The import plugin's task on the staged data, as Glance runs it."""
    wrapper = Wrapper(image_id, {traits.SHELL_ID_PROPERTY: manifest.shell_id})
    task = import_plugin._InspectBitstream(
        context('p-admin', ['admin']), 'task-1', 'api_image_import', wrapper,
        ['fpga'])
    task.execute('file://%s' % staged)
    return wrapper.action.image_extra_properties


def store_staged(store, image_id, staged):
    """Glance's next task: the staged data to the store."""
    with open(staged, 'rb') as f:
        return store.add(image(image_id), f, staged.stat().st_size, 'sha256',
                         context=context('p-admin', ['admin']))


def test_an_import_parses_its_bitstream_once(fpga_store, shells,  # noqa
                                             tmp_path, monkeypatch):
    store, datadir = fpga_store
    data = module_for('rp0')
    staged = tmp_path / 'img-count'
    staged.write_bytes(data)
    counts = counting.install(monkeypatch)
    props = inspect('img-count', staged, shells)
    assert props['fpga_sha256'] == hashlib.sha256(data).hexdigest()
    url, size, *_ = store_staged(store, 'img-count', staged)
    assert (datadir / 'img-count').read_bytes() == data
    # the plugin's parse, which gives the image its fpga_sha256
    assert (counts.parses, counts.sha256) == (1, 1), counts


def test_staged_data_changed_after_inspection_is_parsed_again(
        fpga_store, shells, tmp_path, monkeypatch):  # noqa: F811
    store, datadir = fpga_store
    staged = tmp_path / 'img-changed'
    staged.write_bytes(module_for('rp0'))
    inspect('img-changed', staged, shells)
    staged.write_bytes(b'\x00' * 4096)
    counts = counting.install(monkeypatch)
    with pytest.raises(exceptions.Invalid, match='not a valid bitstream'):
        store_staged(store, 'img-changed', staged)
    assert counts.parses == 1
    assert not (datadir / 'img-changed').exists()


class ImageAPI:
    """nova's image API as the driver calls it: the data in chunks."""

    def __init__(self, data):
        self.data = data

    def download(self, context, image_id, data=None, trusted_certs=None):
        for start in range(0, len(self.data), 65536):
            data.write(self.data[start:start + 65536])


@pytest.mark.parametrize('algorithm', ['sha256', 'sha512'])
def test_the_driver_digests_a_downloaded_image_once(algorithm, monkeypatch):
    data = module_for('rp1')
    counts = counting.install(monkeypatch)
    zynq = types.SimpleNamespace(_image_api=ImageAPI(data))
    instance = types.SimpleNamespace(image_ref='img-1', uuid='i-1',
                                     trusted_certs=None)
    glance_hash = hashlib.new(algorithm, data).hexdigest()
    got, sha256 = driver.ZynqDriver._download(zynq, None, instance,
                                              algorithm, glance_hash)
    assert got == data and sha256 == hashlib.sha256(data).hexdigest()
    assert counts.sha256 == 1, counts
