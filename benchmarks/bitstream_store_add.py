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

"""Cost of validating in the store: the bitstream store against glance_store's
plain filesystem store, for the same 4 MB partial bitstream.

Both run glance_store's add() as glance-api does (md5 checksum and sha512
multihash, 64 KiB writes into a data directory); the bitstream store also
validates the stream in the same pass.  The images are records in a
SQLite Glance database with status ``importing``, as Glance's import flow
leaves them (the bitstream store takes no plain upload).  Target: at
most 1.2x the plain store's time.  Figures are medians over repeated
adds.

Run: .venv/bin/python benchmarks/bitstream_store_add.py [--repeat N]
"""
import argparse
import io
import statistics
import sys
import tempfile
import time
import uuid

from glance import context as glance_context
from glance import db as glance_db
from glance.db.sqlalchemy import api as db_api
from glance.db.sqlalchemy import models
from glance_store import multi_backend
from oslo_config import cfg
from oslo_db import options as db_options

from nova_fpga.bitstream import _crc
from nova_fpga.bitstream import builder
from nova_fpga.bitstream import footprint as fp

import results

TARGET = 1.2
SIZE = 4 * 1024 * 1024


def stores(datadir):
    conf = cfg.CONF
    conf([], project='glance', default_config_files=[])
    conf.set_override('enabled_backends', {'fpga': 'bitstream',
                                           'plain': 'file'})
    multi_backend.register_store_opts(conf, reserved_stores={})
    conf.set_override('default_backend', 'plain', 'glance_store')
    for name in ('fpga', 'plain'):
        conf.set_override('filesystem_store_datadir',
                          '%s/%s' % (datadir, name), name)
    multi_backend.create_multi_stores(conf, reserved_stores={})
    db_options.set_defaults(conf)
    conf.set_override('connection', 'sqlite:///%s/glance.sqlite' % datadir,
                      'database')
    models.register_models(db_api.get_engine())
    return {name: multi_backend.get_store_from_store_identifier(name)
            for name in ('plain', 'fpga')}


def importing(context, image_id):
    """An image record as the import flow has it while data is written."""
    glance_db.get_api().image_create(context, {
        'id': image_id, 'name': image_id, 'status': 'importing',
        'owner': context.project_id, 'visibility': 'private'})
    return image_id


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=15)
    args = parser.parse_args()
    frames = SIZE // (101 * 4)
    data = builder.build_partial('7z020clg400', 'bench', 0x4E460001,
                                 fp.Footprint((fp.Block(0x00440000,
                                                        frames * 101),)))
    with tempfile.TemporaryDirectory() as datadir:
        by_name = stores(datadir)
        context = glance_context.RequestContext(project_id='bench',
                                                roles=['admin'])
        times = {name: [] for name in by_name}
        for i in range(args.repeat + 1):
            for name, store in by_name.items():
                image_id = importing(context, str(uuid.uuid4()))
                start = time.perf_counter()
                url, *_ = store.add(image_id, io.BytesIO(data), len(data),
                                    'sha512', context=context)
                times[name].append(time.perf_counter() - start)
        med = {name: statistics.median(t[1:]) for name, t in times.items()}
    mb = len(data) / 1e6
    print('glance_store add() of a %.1f MB partial bitstream, median of %d '
          '(CRC: %s)' % (mb, args.repeat, _crc.implementation()))
    for name, label in (('plain', 'filesystem store (file)'),
                        ('fpga', 'bitstream store (validating)')):
        print(
            '  %-30s %7.1f ms  %6.0f MB/s'
            % (label, 1000 * med[name], mb / med[name])
        )
    print('  (the bitstream store also reads the image\'s status from '
          'Glance\'s database, SQLite here, once per add)')
    ratio = med['fpga'] / med['plain']
    print('validating path costs %.2fx the plain one (target <= %.1fx): %s'
          % (ratio, TARGET, 'met' if ratio <= TARGET else 'NOT MET'))


if __name__ == '__main__':
    with results.recorded('bitstream_store_add'):
        sys.exit(main())
