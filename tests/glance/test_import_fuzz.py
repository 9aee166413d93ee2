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

"""Mutated real bitstreams through Glance's import flow on a real
glance-api (tests.unit.bitstream.mutator, one mutant per seed).

Each import ends refused with the reason the validator gives for those
bytes, or active only when a second, independent reading proves the bytes
a valid partial for a region of the shell (tests.unit.bitstream.recheck);
nothing refused is left in the store or the staging area, what is stored
is what was sent, and glance-api answers no request with a 5xx and keeps
its processes.  NOVA_FPGA_IMPORT_FUZZ sets the count (`make fuzz`: 2,000;
CI: IMPORTS_IN_CI), NOVA_FPGA_IMPORT_FUZZ_FIRST the first seed.
"""
import collections
import hashlib
import io
import logging
import os
import time

import glanceclient
from glanceclient import exc as glance_exc
import pytest

from nova_fpga import bitstream
from nova_fpga.contract import shell
from nova_fpga.contract import traits
from tests.unit.bitstream import mutator
from tests.unit.bitstream import recheck

LOG = logging.getLogger(__name__)
IMPORTS_IN_CI = 60
IMPORTS = int(os.environ.get('NOVA_FPGA_IMPORT_FUZZ') or IMPORTS_IN_CI)
#: the first seed (a failure is replayed from its seed)
FIRST = int(os.environ.get('NOVA_FPGA_IMPORT_FUZZ_FIRST') or 0)
#: the seeds split between this many glance-apis (each its own SQLite):
#: `make fuzz` runs them side by side with pytest-xdist
SHARDS = int(os.environ.get('NOVA_FPGA_IMPORT_FUZZ_SHARDS') or 1)
REFERENCE = shell.load(shell.REFERENCE)
SHELL = REFERENCE.shell_id


def verdict(data):
    """('accepted', None) or ('refused: <why>', the words Glance must
    show): the validator's verdict and the import gate's checks, as the
    product makes them.
    """
    try:
        info = bitstream.validate(data)
        traits.image_properties(info, SHELL)
    except bitstream.BitstreamError as exc:
        return 'refused: %s' % exc.reason, str(exc)
    if info.device != REFERENCE.device:
        return 'refused: another device', 'bitstream for %s, but shell' % (
            info.device.name)
    if not any(r.footprint == info.footprint for r in REFERENCE.regions):
        return 'refused: no region', 'footprint %s matches no region' % (
            info.footprint.signature)
    return 'accepted', None


def proven_valid(data):
    """Independently of the validator: a whole, CRC-checked partial
    configuration of this shell's device whose frame writes are exactly
    one of its regions'.  Returns what is wrong, or None.
    """
    try:
        reading = recheck.read(data)
    except recheck.Invalid as exc:
        return 'recheck: %s' % exc
    if reading.idcode & 0x0FFFFFFF != REFERENCE.device.idcode:
        return 'IDCODE 0x%08X is not the shell\'s device' % reading.idcode
    if reading.setup:
        return 'carries a full bitstream\'s device set-up'
    # Vivado writes '7z020clg400'; the full part name 'xc7z020clg400' is
    # the same device
    if reading.part and not reading.part.removeprefix('xc').startswith(
            REFERENCE.device.short_name):
        return 'header part %s' % reading.part
    regions = [[(b.far, b.words) for b in r.footprint.blocks]
               for r in REFERENCE.regions]
    if reading.blocks not in regions:
        return 'frame writes %s are no region\'s' % reading.blocks[:4]
    return None


def wait(client, admin, image_id, timeout=120):
    """The image once its import task has ended (the image shows the
    outcome a little before the task has written its own: a request in
    between would meet the task's write on Glance's SQLite, locked).
    """
    deadline = time.monotonic() + timeout
    image = task = task_id = None
    while time.monotonic() < deadline:
        image = client.images.get(image_id)
        # the image names its import task only while the import runs
        task_id = image.get('os_glance_import_task') or task_id
        task = admin.tasks.get(task_id) if task_id else None
        if task and task['status'] in ('success', 'failure') and (
                image['status'] == 'active' or (
                    image['status'] == 'queued'
                    and (traits.IMPORT_ERROR_PROPERTY in image
                         or image.get('os_glance_failed_import')))):
            return image
        time.sleep(0.2)
    raise AssertionError('import of %s did not end: %s, task %s'
                         % (image_id, image, task))


def import_one(client, admin, seed):
    """(mutant, image, HTTP 5xx seen or None) for one seed."""
    m = mutator.mutant(seed)
    image = client.images.create(
        name='fuzz-%d' % seed, disk_format='raw', container_format='bare',
        fpga_shell_id=SHELL)
    try:
        client.images.stage(image['id'], io.BytesIO(m.data))
        client.images.image_import(image['id'], method='glance-direct')
    except glance_exc.HTTPException as exc:
        if exc.code >= 500:
            return m, image, 'HTTP %s: %s' % (exc.code, exc)
        raise
    return m, wait(client, admin, image['id']), None


def check(glance, m, image, expected, words):
    """What is wrong with the outcome of one import, given the verdict on
    its data (None: nothing).
    """
    image_id = image['id']
    stored = glance.store_dir('fpga') / image_id
    if list((glance.dir / 'staging').glob('*%s*' % image_id)):
        return 'staged data left behind'
    if expected == 'accepted':
        if image['status'] != 'active':
            return 'refused a valid bitstream: %s' % image.get(
                traits.IMPORT_ERROR_PROPERTY)
        if not stored.is_file() or stored.read_bytes() != m.data:
            return 'stored data is not what was sent'
        if image.get('fpga_sha256') != hashlib.sha256(m.data).hexdigest():
            return 'fpga_sha256 is not the data\'s'
        return proven_valid(m.data)
    if image['status'] != 'queued':
        return 'accepted what the validator refuses (%s)' % expected
    error = image.get(traits.IMPORT_ERROR_PROPERTY, '')
    if words[:120] not in error:
        return 'reason %r does not say %r' % (error, words)
    if stored.exists():
        return 'refused data stored'
    if any(k.startswith('trait:') or k == 'fpga_footprint' for k in image):
        return 'refused image has derived properties'
    return None


@pytest.mark.parametrize('shard', range(SHARDS))
def test_mutated_bitstreams_through_the_import_flow(glance, keystone,
                                                    report, shard):
    # connect_retries: a kept-alive connection that gunicorn closes as a
    # request goes out on it is reset ("Connection reset by peer"); a
    # glance-api that really died shows in its processes, checked below
    client = glanceclient.Client('2', endpoint=glance.url, connect_retries=3,
                                 session=keystone.session('bob'))
    admin = glanceclient.Client('2', endpoint=glance.url, connect_retries=3,
                                session=keystone.session('admin'))
    processes = set(glance.process.pids())
    counts = collections.Counter()
    problems = []
    accepted = set()
    started = time.monotonic()
    # one at a time: glance-api here keeps its database in SQLite, which
    # concurrent imports lock ("database is locked", a 500 of Glance's)
    seeds = range(FIRST + shard, FIRST + IMPORTS, SHARDS)
    for seed in seeds:
        m, image, crash = import_one(client, admin, seed)
        counts['inputs'] += 1
        expected, words = verdict(m.data)
        counts[expected] += 1
        if crash:
            counts['crashes'] += 1
            problems.append((m, crash))
            continue
        problem = check(glance, m, image, expected, words)
        if problem:
            problems.append((m, problem))
        if image['status'] == 'active':
            accepted.add(image['id'])
        else:
            client.images.delete(image['id'])
        if counts['inputs'] % 100 == 0:
            LOG.info('import fuzz shard %d: %d of %d, %s', shard,
                     counts['inputs'], len(seeds), dict(counts))
    seconds = time.monotonic() - started
    store = {p.name for p in glance.store_dir('fpga').iterdir()}
    # nothing but the accepted ones, each still proven valid on disk
    stored_invalid = sorted(store - accepted) + [
        name for name in store & accepted
        if proven_valid((glance.store_dir('fpga') / name).read_bytes())]
    staged = [p.name for p in (glance.dir / 'staging').iterdir()]
    for image_id in accepted:
        client.images.delete(image_id)
    report('import fuzz shard %d/%d: %d inputs in %.0f s, %s; crashes %d, '
           'stored-invalid %d' % (
               shard, SHARDS, counts['inputs'], seconds, ', '.join(
                   '%s %d' % kv for kv in sorted(counts.items())
                   if kv[0] not in ('inputs', 'crashes')),
               counts['crashes'], len(stored_invalid)))
    assert not problems, ['seed %d (%s from %s: %s): %s' % (
        m.seed, m.kind, m.base, m.detail, why) for m, why in problems[:20]]
    assert stored_invalid == [] and staged == []
    assert set(glance.process.pids()) == processes, 'glance-api restarted'
    assert counts['inputs'] == len(seeds)
    # the run reached both sides of the gate
    assert counts['accepted'] and counts['inputs'] - counts['accepted']
