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

"""The vTC's application table: what the agent writes into the module (its
NAME_TABLE words) and how the module looks a host name up in it.

A flow of class http, tls or dns is named after an application by the host
name its first inspected packets carry (the extractor's model:
hdl/tests/vtc_names.py).  The name is looked up in the application table
(vtc_applications.toml beside this file, made from nDPI's host list), with
nDPI's own rules (ac_domain_match_handler in nDPI's ndpi_main.c):

- a **suffix** entry (``netflix.com``) names a host that is it or ends in
  ``.netflix.com``: whole labels;
- a **label** entry (``youtube``, or up to LABEL_ENTRY_LABELS labels:
  ``guzzoni.apple``) names a host with those labels followed by at least
  one more (``youtube.com``, ``www.youtube.de``, ``guzzoni.apple.com``);
- the entry of most labels wins; between a label and a suffix entry of as
  many labels, the label, and between labels the leftmost (nDPI takes the
  leftmost match of equal level).

The table is what the module holds: TABLE_BUCKETS buckets of TABLE_WAYS
entries, each {valid, application, tag}, found by a CRC-32 of the entry's
key (key()).  The module walks a name backwards, a byte a cycle, so every
key is a CRC of bytes in that order: a suffix's key is the CRC of its bytes
from the last (``moc.xilften`` for ``netflix.com``), and at each dot the
CRC so far is the key of the suffix after it, one lookup a label, the last
hit the longest.  A label entry's key is the CRC of a dot and its bytes
from the last (``.ebutuoy``, ``.elppa.inozzug``): two more CRCs run
beside, one restarting at each dot, one at every other.  Only the last
NAME_BYTES bytes of a name are kept (what a suffix needs); a label cut by
that is not looked up.

Table.lookup() is the model of the module's matcher (hdl/rtl/
vtc_name_match.v follows it bit for bit); Table.words is what the agent
writes (catalogue Module.reset_writes).
"""
import pathlib
import tomllib
import zlib

TABLE_FILE = pathlib.Path(__file__).resolve().parent / 'vtc_applications.toml'
#: a name's bytes kept, from its end
NAME_BYTES = 64
TABLE_BUCKETS = 1024
TABLE_WAYS = 4
INDEX_BITS = TABLE_BUCKETS.bit_length() - 1
TAG_BITS = 32 - INDEX_BITS
#: application numbers are 1..MAX_APPLICATIONS; 0 is none; OTHER is a
#: more specific name of an application the table does not hold (nDPI's
#: ``maps.google.com`` is GoogleMaps, not Google): it names none either
APPLICATION_BITS = 6
OTHER = (1 << APPLICATION_BITS) - 1
MAX_APPLICATIONS = OTHER - 1
#: an entry word: valid << 31 | application << TAG_BITS | tag
VALID = 1 << 31

SUFFIX, LABEL = 'suffix', 'label'
#: a label entry's labels, at most
LABEL_ENTRY_LABELS = 2


def labels(name):
    """The labels of a host name (bytes; ASCII lower case, a final dot
    dropped), or None when it has an empty label.  Any other byte may be
    in a label, as nDPI matches names as they come (``*.teams.microsoft.com``
    is Teams's).
    """
    name = bytes(name).lower()
    if name.endswith(b'.'):
        name = name[:-1]
    if not name:
        return None
    parts = name.split(b'.')
    if not all(parts):
        return None
    return parts


def key(kind, parts):
    """The CRC-32 key of an entry of labels parts: of its bytes from the
    last, a LABEL's after a dot.
    """
    backwards = b'.'.join(parts)[::-1]
    return zlib.crc32(b'.' + backwards if kind == LABEL else backwards)


def _kept(name):
    """The labels the module walks of a name (None: none, an empty label):
    its last NAME_BYTES bytes, a final dot dropped, and, when bytes were
    dropped from its start and the last of them was not a dot, without the
    label they cut.
    """
    name = bytes(name).lower()
    cut = len(name) > NAME_BYTES
    dropped_dot = cut and name[-NAME_BYTES - 1] == ord('.')
    tail = name[-NAME_BYTES:]
    if tail.endswith(b'.'):
        tail = tail[:-1]
    if cut and not dropped_dot:
        tail = tail.partition(b'.')[2]
    if not tail:
        return None
    # split here, not by labels(): one final dot only is dropped
    parts = tail.split(b'.')
    return parts if all(parts) else None


class Table:
    """The module's application table: load() as the operator's tool
    writes it, lookup() as the module walks a name.
    """

    def __init__(self):
        #: [bucket][way] = entry word (0: empty)
        self.words = [[0] * TABLE_WAYS for _ in range(TABLE_BUCKETS)]
        self.applications = []
        #: nDPI's name of an application -> its number (load())
        self.ndpi = {}

    @staticmethod
    def split(value):
        return value & (TABLE_BUCKETS - 1), value >> INDEX_BITS

    def add(self, kind, name, application):
        """One entry; ValueError when its bucket is full or the name is not
        whole labels.
        """
        parts = labels(name.encode() if isinstance(name, str) else name)
        if parts is None or (kind == LABEL
                             and len(parts) > LABEL_ENTRY_LABELS):
            raise ValueError('%s %r: not %s' % (
                kind, name, 'at most %d labels' % LABEL_ENTRY_LABELS
                if kind == LABEL else 'a host name'))
        bucket, tag = self.split(key(kind, parts))
        ways = self.words[bucket]
        for way, word in enumerate(ways):
            if word and word & ((1 << TAG_BITS) - 1) == tag:
                raise ValueError('%s %r: its key is already in bucket %d'
                                 % (kind, name, bucket))
        for way, word in enumerate(ways):
            if not word:
                ways[way] = VALID | application << TAG_BITS | tag
                return bucket, way
        raise ValueError('%s %r: bucket %d is full (%d ways)' % (
            kind, name, bucket, TABLE_WAYS))

    def load(self, applications, others=None):
        """applications: [{'name', 'suffixes', 'labels'}], numbered from 1
        in their order; others: {'suffixes', 'labels'} loaded as OTHER.
        """
        if len(applications) > MAX_APPLICATIONS:
            raise ValueError('%d applications: the table numbers at most %d'
                             % (len(applications), MAX_APPLICATIONS))
        self.applications = [app['name'] for app in applications]
        numbered = list(enumerate(applications, 1))
        if others:
            numbered.append((OTHER, others))
        for number, app in numbered:
            for suffix in app.get('suffixes', ()):
                self.add(SUFFIX, suffix, number)
            for label in app.get('labels', ()):
                self.add(LABEL, label, number)
        return self

    def _find(self, value):
        bucket, tag = self.split(value)
        for word in self.words[bucket]:
            if word & VALID and word & ((1 << TAG_BITS) - 1) == tag:
                return word >> TAG_BITS & OTHER
        return 0

    def lookup(self, name):
        """The application number a host name gets (0: none), what the
        module's walk finds: from the last label, a suffix lookup a label;
        at each label but the last, a label lookup of it and of it with the
        next one (while a label follows them).  The match of most labels
        wins, a label entry's over a suffix's of as many, the leftmost label
        entry over the others.
        """
        parts = _kept(name)
        if parts is None:
            return 0
        # a match's score: 2 a label, and 1 more for a label entry
        best, score = 0, 0
        for count in range(1, len(parts) + 1):
            found = self._find(key(SUFFIX, parts[-count:]))
            if found:
                best, score = found, 2 * count
        for start in range(len(parts) - 1):
            for count in range(1, LABEL_ENTRY_LABELS + 1):
                if start + count >= len(parts):
                    break
                found = self._find(key(LABEL, parts[start:start + count]))
                if found and 2 * count + 1 > score:
                    best, score = found, 2 * count + 1
        return best

    def name(self, number):
        """The application's name (None for 0 and OTHER)."""
        return self.applications[number - 1] \
            if 0 < number <= len(self.applications) else None


def table_data(path=TABLE_FILE):
    """The catalogue's application file as read: {'applications': [{name,
    ndpi, suffixes, labels}], 'others': {suffixes, labels}, ...}.
    """
    with open(path, 'rb') as stream:
        return tomllib.load(stream)


def load(path=TABLE_FILE):
    """The Table of the catalogue's application file; its ndpi: {nDPI's
    name of an application: its number}.
    """
    data = table_data(path)
    table = Table().load(data['applications'], data.get('others'))
    table.ndpi = {app['ndpi']: number
                  for number, app in enumerate(data['applications'], 1)
                  if 'ndpi' in app}
    return table
