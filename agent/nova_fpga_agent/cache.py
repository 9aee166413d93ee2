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

"""The board's cache of bitstreams it has loaded, by SHA-256.

A reload (hard reboot) or a new server with an image the board has run
before then needs no image transfer: the driver sends the digest only, and
the scheduler's weigher prefers boards that list the image.  Each entry is
a file named by its digest, written atomically and checked against that
digest when read, so a torn or corrupted file is a miss, never a load of
the wrong bits.  Least recently used entries go first when the cache is
over its size.
"""
import hashlib
import json
import os
import pathlib
import tempfile
import threading
import time

from oslo_log import log as logging

LOG = logging.getLogger(__name__)
INDEX = 'index.json'


class BitstreamCache:

    def __init__(self, directory, max_bytes):
        self.dir = pathlib.Path(directory)
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self.dir.mkdir(parents=True, exist_ok=True)
        self._index = self._read_index()

    def _read_index(self):
        try:
            index = json.loads((self.dir / INDEX).read_text())
        except (OSError, ValueError):
            index = {}
        # keep only entries whose file is there
        return {digest: entry for digest, entry in index.items()
                if (self.dir / ('%s.bit' % digest)).is_file()
                and _is_digest(digest)}

    def _write(self, path, data):
        fd, tmp = tempfile.mkstemp(dir=self.dir, prefix='.tmp-')
        try:
            with os.fdopen(fd, 'wb') as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise

    def _save_index(self):
        self._write(self.dir / INDEX, json.dumps(self._index).encode())

    def put(self, sha256, image_id, data):
        """Keep data (already checked to have this digest) for later."""
        if not _is_digest(sha256) or len(data) > self.max_bytes:
            return
        with self._lock:
            path = self.dir / ('%s.bit' % sha256)
            if sha256 not in self._index:
                self._write(path, data)
            self._index[sha256] = {'image_id': image_id, 'bytes': len(data),
                                   'used': time.time()}
            self._evict()
            self._save_index()

    def get(self, sha256):
        """The cached bytes with this digest, or None."""
        if not _is_digest(sha256):
            return None
        with self._lock:
            if sha256 not in self._index:
                return None
            path = self.dir / ('%s.bit' % sha256)
            try:
                data = path.read_bytes()
            except OSError:
                data = None
            if data is None or hashlib.sha256(data).hexdigest() != sha256:
                LOG.warning('cached bitstream %s is missing or corrupt: '
                            'dropped', sha256)
                self._drop(sha256)
                self._save_index()
                return None
            self._index[sha256]['used'] = time.time()
            self._save_index()
            return data

    def _drop(self, sha256):
        self._index.pop(sha256, None)
        try:
            (self.dir / ('%s.bit' % sha256)).unlink()
        except FileNotFoundError:
            pass

    def _evict(self):
        by_age = sorted(self._index, key=lambda d: self._index[d]['used'])
        total = sum(e['bytes'] for e in self._index.values())
        for digest in by_age:
            if total <= self.max_bytes:
                break
            total -= self._index[digest]['bytes']
            LOG.info('bitstream cache over %d bytes: evicted %s (image %s)',
                     self.max_bytes, digest, self._index[digest]['image_id'])
            self._drop(digest)

    def entries(self):
        """[{sha256, image_id, bytes}], most recently used first."""
        with self._lock:
            return [dict(sha256=d, image_id=e['image_id'], bytes=e['bytes'])
                    for d, e in sorted(self._index.items(),
                                       key=lambda item: -item[1]['used'])]


def _is_digest(text):
    return (isinstance(text, str) and len(text) == 64
            and all(c in '0123456789abcdef' for c in text))
