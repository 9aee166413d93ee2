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

"""What the import plugin found in staged data, for the store to keep.

One Glance import inspects the staged data (the import plugin) and then
writes it to the store, in the same glance-api process.  The plugin
records its parse under the image's ID with the staged file's identity
(device, inode, size, modification time); the store takes the record when
it writes that image's data and the file is still the one inspected, so
the bytes of an import are parsed once.  Without a record (a plain upload,
staged data changed since its inspection), the store parses the data as
it streams, as it always did.
"""
import collections
import os
import threading

#: records kept at most (an import that never reaches the store leaves
#: its record until newer ones push it out)
MAX_RECORDS = 64

_lock = threading.Lock()
_records = collections.OrderedDict()


def _identity(path):
    st = os.stat(path)
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def remember(image_id, path, info):
    """The plugin's parse (a nova_fpga.bitstream.Bitstream) of the image's
    staged file at path.
    """
    try:
        identity = _identity(path)
    except OSError:
        return
    with _lock:
        _records.pop(image_id, None)
        _records[image_id] = (path, identity, info)
        while len(_records) > MAX_RECORDS:
            _records.popitem(last=False)


def forget(image_id):
    with _lock:
        _records.pop(image_id, None)


def take(image_id):
    """The plugin's parse of the image's staged data, if its file is
    unchanged since (the record is used once); None otherwise.
    """
    with _lock:
        record = _records.pop(image_id, None)
    if record is None:
        return None
    path, identity, info = record
    try:
        if _identity(path) != identity:
            return None
    except OSError:
        return None
    return info
