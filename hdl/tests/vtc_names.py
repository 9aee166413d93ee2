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

"""The vTC's application names: the reference model of the name extractor.

A flow of class http, tls or dns is named after an application by the host
name its first inspected packets carry: the HTTP request's Host header, the
TLS ClientHello's server name (SNI), or the DNS question's name, read from
a frame's first NAME_WINDOW bytes.  The name is looked up in the
application table (nova_fpga/catalogue/applications.py: the table, its
lookup and its rules; re-exported here for the tests).

This module is the model; the RTL follows it bit for bit (hdl/README.md,
"Applications").
"""
import re
import struct

from nova_fpga.catalogue import applications

# the table's names, as the tests know them
APPLICATION_BITS = applications.APPLICATION_BITS
INDEX_BITS = applications.INDEX_BITS
LABEL = applications.LABEL
LABEL_ENTRY_LABELS = applications.LABEL_ENTRY_LABELS
MAX_APPLICATIONS = applications.MAX_APPLICATIONS
NAME_BYTES = applications.NAME_BYTES
OTHER = applications.OTHER
SUFFIX = applications.SUFFIX
TABLE_BUCKETS = applications.TABLE_BUCKETS
TABLE_FILE = applications.TABLE_FILE
TABLE_WAYS = applications.TABLE_WAYS
TAG_BITS = applications.TAG_BITS
VALID = applications.VALID
Table = applications.Table
key = applications.key
labels = applications.labels
load = applications.load
table_data = applications.table_data

#: a frame's bytes a name is read from, from its start (what the module keeps
#: of a frame: its name extractor's buffer slots)
NAME_WINDOW = 1024

TLS_HANDSHAKE = 0x16
TLS_CLIENT_HELLO = 0x01
TLS_SERVER_NAME = 0x0000
DNS_HEADER = 12
DNS_PORT = 53
HTTP_HOST = b'\r\nhost:'
#: what ends a Host header's name (after its leading spaces and tabs); the
#: line must still end (a CR) for it to count
HTTP_NAME_END = re.compile(rb'[: \t]')


def _sni(payload):
    """The server name of a TLS ClientHello in one segment, or None."""
    try:
        if payload[0] != TLS_HANDSHAKE or payload[5] != TLS_CLIENT_HELLO:
            return None
        at = 5 + 4 + 2 + 32
        at += 1 + payload[at]  # session id
        at += 2 + struct.unpack_from('!H', payload, at)[0]  # cipher suites
        at += 1 + payload[at]  # compression methods
        end = at + 2 + struct.unpack_from('!H', payload, at)[0]
        at += 2
        while at + 4 <= end:
            kind, length = struct.unpack_from('!HH', payload, at)
            at += 4
            if kind == TLS_SERVER_NAME:
                # list length (2), name type (1) = host_name 0, length (2)
                if payload[at + 2] != 0:
                    return None
                size = struct.unpack_from('!H', payload, at + 3)[0]
                name = payload[at + 5:at + 5 + size]
                return name if len(name) == size else None
            at += length
    except (IndexError, struct.error):
        return None
    return None


def _host(payload):
    """The Host header's name of an HTTP request, or None: after the first
    CR LF "Host:" (any case), its spaces and tabs, to the first ':' (a
    port), space, tab or CR, on a line that ends (a CR) within the payload.
    """
    head = bytes(payload)
    at = head.lower().find(HTTP_HOST)
    if at < 0:
        return None
    value = head[at + len(HTTP_HOST):].split(b'\r', 1)
    if len(value) < 2:
        return None
    return HTTP_NAME_END.split(value[0].lstrip(b' \t'), 1)[0]


def _qname(payload):
    """The first question's name of a DNS message, or None."""
    if len(payload) < DNS_HEADER or payload[4:6] == b'\x00\x00':
        return None
    parts, at = [], DNS_HEADER
    while at < len(payload):
        size = payload[at]
        if size == 0:
            return b'.'.join(parts)
        if size >= 0x40:  # a compression pointer (none in a question)
            return None
        parts.append(payload[at + 1:at + 1 + size])
        at += 1 + size
    return None


#: the name each class carries: HTTP Host, TLS SNI, DNS question
EXTRACT = {'http': _host, 'tls': _sni, 'dns': _qname}


def name_of(klass, payload, tcp=False):
    """The host name a payload of a flow of class klass carries, or None
    (DNS over TCP: after the message's two length bytes).
    """
    extract = EXTRACT.get(klass)
    if klass == 'dns' and tcp:
        payload = payload[2:]
    return extract(bytes(payload)) if extract and payload else None


def frame_name(klass, frame, start, length, tcp=False):
    """The host name a frame carries in its payload (length bytes from
    offset start), read as the module reads it: from the frame's first
    NAME_WINDOW bytes only.
    """
    return name_of(klass, bytes(frame[:NAME_WINDOW])[start:start + length],
                   tcp=tcp)
