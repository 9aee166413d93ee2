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

"""A load's device-tree overlay, as a flattened tree (.dtbo).

What ``dtc -@`` makes of::

    /dts-v1/; /plugin/;
    / { fragment@0 { target-path = "<region path>";
          __overlay__ { firmware-name = "<firmware>";
                        partial-fpga-config; }; }; };

written here because a board need not carry dtc.  Format: the devicetree
specification, "Flattened Devicetree (DTB) Format" (version 17).
"""
import struct

MAGIC = 0xD00DFEED
BEGIN_NODE, END_NODE, PROP, END = 1, 2, 3, 9
HEADER = struct.Struct('>10I')


def _pad(data):
    return data + b'\0' * (-len(data) % 4)


def region_overlay(target_path, firmware_name):
    """The .dtbo that loads ``firmware_name`` into the region at
    ``target_path`` as a partial configuration.
    """
    strings = b''
    offsets = {}

    def prop(name, value=b''):
        nonlocal strings
        if name not in offsets:
            offsets[name] = len(strings)
            strings += name.encode() + b'\0'
        return (struct.pack('>3I', PROP, len(value), offsets[name])
                + _pad(value))

    def node(name, *body):
        return (struct.pack('>I', BEGIN_NODE) + _pad(name.encode() + b'\0')
                + b''.join(body) + struct.pack('>I', END_NODE))

    tree = node('', node(
        'fragment@0',
        prop('target-path', target_path.encode() + b'\0'),
        node('__overlay__',
             prop('firmware-name', firmware_name.encode() + b'\0'),
             prop('partial-fpga-config')))) + struct.pack('>I', END)
    reserve = b'\0' * 16            # the empty memory reservation map
    off_rsv = HEADER.size
    off_struct = off_rsv + len(reserve)
    off_strings = off_struct + len(tree)
    total = off_strings + len(strings)
    return HEADER.pack(MAGIC, total, off_struct, off_strings, off_rsv, 17,
                       16, 0, len(strings), len(tree)) + reserve + tree \
        + strings
