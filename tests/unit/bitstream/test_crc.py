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

"""The native configuration CRC against a bit-by-bit model of UG470's
definition: CRC-32C (reflected 0x82F63B78) over 37 bits per register write,
the 32 data bits least significant first, then the 5 address bits."""
import os
import random
import struct
import subprocess
import sys

import pytest

from nova_fpga.bitstream import _crc

POLY = 0x82F63B78


def model(crc, address, word):
    value = (address << 32) | word
    for _ in range(37):
        crc = (crc >> 1) ^ POLY if (crc ^ value) & 1 else crc >> 1
        value >>= 1
    return crc


@pytest.mark.parametrize("count", [1, 3, 4, 64, 65, 66, 67, 1000, 4099])
def test_native_crc_equals_the_bitwise_model(count):
    rand = random.Random(count)
    for _ in range(20):
        crc, address = rand.getrandbits(32), rand.randrange(32)
        words = [rand.getrandbits(32) for _ in range(count)]
        expected = crc
        for word in words:
            expected = model(expected, address, word)
        data = struct.pack('>%dI' % count, *words)
        assert _crc.update(crc, data, address) == expected


def test_table_fallback_gives_the_same_crc():
    """Boards without SSE4.2 (every ARM board) run the table version."""
    code = ('import random, struct; from nova_fpga.bitstream import _crc; '
            'r = random.Random(7); d = bytes(r.getrandbits(8) for _ in '
            'range(4096)); print(_crc.implementation(), '
            '_crc.update(123, d, 2))')
    runs = {}
    for env in ({}, {'NOVA_FPGA_CRC_TABLE': '1'}):
        out = subprocess.run([sys.executable, '-c', code], text=True,
                             capture_output=True,
                             env=dict(os.environ, **env), check=True)
        impl, value = out.stdout.split()
        runs[impl] = int(value)
    assert 'table' in runs
    assert len(set(runs.values())) == 1


def test_partial_words_are_refused():
    with pytest.raises(ValueError):
        _crc.update(0, b'\x00' * 5, 2)
