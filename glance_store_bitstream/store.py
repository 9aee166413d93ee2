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

"""A glance_store driver that accepts only valid partial bitstreams.

It is the filesystem store (same locations, reads with ranges, sizes,
deletes and capabilities) with one difference: the data is validated by
:mod:`nova_fpga.bitstream` while it streams into the file, in the same pass
and with bounded memory.  Invalid data fails the write with a message that
names the problem (Glance answers 400), and the partial file is removed by
the filesystem store's own clean-up.

Valid data is kept only when Glance's import flow is writing it: the import
plugin has then inspected it against a shell and described it to nova, and
its parse of the staged data is the store's (:mod:`.inspected`): the bytes
of one import are parsed once.  A
plain upload (``PUT /v2/images/{id}/file``) could never be scheduled, so it
is refused with the command that works.
"""

from oslo_config import cfg
from oslo_log import log as logging

from glance.common import exception as glance_exception
from glance_store._drivers import filesystem
from glance_store import exceptions

from glance_store_bitstream import inspected
from glance_store_bitstream import policy
from glance_store_bitstream import shells
from nova_fpga import bitstream
from nova_fpga.bitstream import devices
from nova_fpga.contract import agent_api
from nova_fpga.contract import shell

LOG = logging.getLogger(__name__)

_OPTS = [
    cfg.ListOpt('bitstream_allowed_devices', default=[],
                help='Devices (e.g. xc7z020) whose bitstreams this store '
                     'accepts; empty accepts every Zynq device.'),
]


SCHEME = 'bitstream'


class StoreLocation(filesystem.StoreLocation):
    """bitstream:///path: a file, under the scheme glance_store knows this
    driver by (a driver's scheme is its entry-point name).
    """

    def process_specs(self):
        self.scheme = SCHEME
        self.path = self.specs.get('path')

    def get_uri(self):
        return '%s://%s' % (SCHEME, self.path)

    def parse_uri(self, uri):
        self.validate_schemas(uri, valid_schemas=('%s://' % SCHEME,))
        path = uri[len('%s://' % SCHEME):].strip()
        if not path.startswith('/'):
            raise exceptions.BadStoreUri(
                message='no absolute path in %s' % uri)
        self.scheme = SCHEME
        self.path = path


class BitstreamRejected(exceptions.Invalid):
    """The data is not a bitstream this store accepts (Glance: 400)."""

    def __init__(self, message):
        super().__init__(message=message)


#: Glance's image status while its import flow writes the data to a store.
IMPORTING = 'importing'
PLAIN_UPLOAD = (
    'bitstreams must be uploaded with --import, which inspects them against '
    'the shell and describes them to nova (a plain upload could not be '
    'scheduled): openstack image create --import --property '
    'fpga_shell_id=%s --file BITSTREAM NAME')


class _ValidatingReader:
    """Hands the data on to the filesystem store and, as it passes, to the
    validator; at the end of the stream, the validator's verdict.

    ``inspected``: the import plugin's parse of the same bytes in the same
    import (inspected.take): then they are not parsed again, only counted,
    and the verdict is on the plugin's parse.
    """

    def __init__(self, source, allowed, imported, inspected=None):
        self.source = source
        self.allowed = allowed
        self.imported = imported
        self.inspected = inspected
        self.size = 0
        # Glance hashes what it stores itself: no second digest here.
        self.validator = None if inspected is not None else \
            bitstream.Validator(digest=False)

    def read(self, size=-1):
        chunk = self.source.read(size)
        try:
            if self.validator is None:
                self.size += len(chunk)
                if not chunk:
                    self._verdict(self._as_inspected())
            elif chunk:
                self.validator.feed(chunk)
            else:
                self._verdict(self.validator.finish())
        except bitstream.BitstreamError as exc:
            self._drain()
            raise BitstreamRejected('not a valid bitstream: %s' % exc)
        return chunk

    def _as_inspected(self):
        if self.size != self.inspected.size:
            raise BitstreamRejected(
                'the data has %d bytes, the bitstream its import inspected '
                '%d' % (self.size, self.inspected.size))
        return self.inspected

    def _drain(self):
        """Read the rest of the upload (nothing is kept): a client still
        sending when the answer comes would see a reset, not the message.
        """
        while self.source.read(64 * 1024):
            pass

    def _verdict(self, info):
        if not info.partial:
            raise BitstreamRejected(
                'full bitstream for %s: only partial bitstreams for a '
                'reconfigurable region are accepted' % info.device.name)
        if self.allowed and info.device.name not in self.allowed:
            raise BitstreamRejected(
                'bitstream for %s: this cloud takes bitstreams for %s only'
                % (info.device.name, ', '.join(sorted(self.allowed))))
        if not self.imported:
            raise BitstreamRejected('valid partial bitstream for %s, but %s'
                                    % (info.device.name, PLAIN_UPLOAD
                                       % _shell_ids(info.device)))
        LOG.info('valid partial bitstream for %s, footprint %s, module %s '
                 '(%s)', info.device.name, info.footprint.signature,
                 '0x%08X' % info.module_id if info.module_declared
                 else 'not declared', INSPECTED if self.inspected is not None
                 else PARSED)


#: how the store's log says where its verdict came from
INSPECTED = "the import plugin's parse of the same staged bytes"
PARSED = 'parsed as the data streamed in'


class Store(filesystem.Store):
    OPTIONS = filesystem._FILESYSTEM_CONFIGS + _OPTS

    def configure_add(self):
        super().configure_add()
        allowed = set(self.store_conf.bitstream_allowed_devices)
        for name in allowed:
            try:
                devices.supported(devices.by_part(name))
            except bitstream.BitstreamError as exc:
                raise exceptions.BadStoreConfiguration(
                    store_name='bitstream', reason=str(exc))
        self.allowed_devices = allowed

    def get_schemes(self):
        return (SCHEME,)

    def add(self, image_id, image_file, image_size, hashing_algo,
            context=None, verifier=None):
        if context is None:
            # Glance passes the request's context on every write it makes
            raise exceptions.StorageWriteDenied(
                'the bitstream store takes data only from a Glance request')
        try:
            policy.enforce_create(context)
        except glance_exception.Forbidden:
            _drain(image_file)
            raise
        imported = _being_imported(context, image_id)
        reader = _ValidatingReader(
            image_file, self.allowed_devices, imported,
            inspected.take(image_id) if imported else None)
        url, *rest = super().add(image_id, reader, image_size, hashing_algo,
                                 context=context, verifier=verifier)
        return ('%s://%s' % (SCHEME, url[len('file://'):]), *rest)


def _shell_ids(device):
    """The registered shells for the device, as the user would name them
    (the import checks them; here they only help the message).
    """
    try:
        found = [shell_id for shell_id, manifest in shells.registered().items()
                 if manifest.device == device]
    except shell.ManifestError:
        found = []
    return ' or '.join(sorted(found)) or 'SHELL_ID'


def _being_imported(context, image_id):
    """Whether Glance's import flow is writing the image (its status in
    Glance's database; a plain upload's image is queued or saving).
    glance.db is imported here, not with the module: importing it
    registers glance-api's command-line options, which fails in a
    process that loads the store after parsing its configuration
    (glance_store's own tools, the store benchmark); glance-api has
    imported it long before an upload reaches the store.
    """
    from glance import db as glance_db

    image = glance_db.get_api().image_get(context.elevated(), image_id)
    return image['status'] == IMPORTING


def _drain(image_file, limit=agent_api.DEFAULT_MAX_BITSTREAM_BYTES):
    """Read a refused upload's body (up to the largest bitstream there is)
    before refusing it, so the client reads Glance's 403 and its reason
    instead of a connection closed while it was still sending.
    """
    read = 0
    while read < limit:
        chunk = image_file.read(min(65536, limit - read))
        if not chunk:
            return
        read += len(chunk)
