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

"""Ways to damage a real bitstream the way uploads and disks do."""
import dataclasses
import struct

from nova_fpga.bitstream import container
from nova_fpga.bitstream import packets as pk

IDCODE_WRITE = struct.pack('>I', pk.type1(pk.OP_WRITE, pk.Reg.IDCODE, 1))
SYNC = struct.pack('>I', pk.SYNC_WORD)


def with_header(data, **changes):
    """Rewrite the .bit header fields (payload_length kept unless given)."""
    header = container.parse_bit_header(data)
    payload = data[header.length:]
    fields = dataclasses.asdict(header)
    fields.update(changes)
    return container.write_bit_header(
        fields['design'], fields['user_id'], fields['partial_flag'],
        fields['tool_version'], fields['part'], fields['date'],
        fields['time'], fields['payload_length']) + payload


def payload(data):
    return data[container.parse_bit_header(data).length:]


def flip_bit(data, offset, bit=0):
    out = bytearray(data)
    out[offset] ^= 1 << bit
    return bytes(out)


def replace_word_after(data, marker, value):
    """Overwrite the word that follows the first ``marker``."""
    at = data.index(marker) + len(marker)
    return data[:at] + struct.pack('>I', value) + data[at + 4:]
