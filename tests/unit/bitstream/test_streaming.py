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

"""The validator fed in arbitrary chunks gives the verdict it gives on the
whole file, with memory bounded by the chunk size, not the file size."""
import random
import tracemalloc

import pytest

from nova_fpga import bitstream
from nova_fpga.bitstream import convert
from tests.unit.bitstream import mutate
from tests.unit.bitstream import realfiles


def chunks(data, rand, small=300):
    pos = 0
    while pos < len(data):
        size = rand.choice([1, 2, 3, 5, rand.randint(1, small),
                            rand.randint(1, 65536)])
        yield data[pos:pos + size]
        pos += size


def verdict(parts):
    v = bitstream.Validator()
    try:
        for part in parts:
            v.feed(part)
        return v.finish().to_dict()
    except bitstream.BitstreamError as exc:
        return (type(exc).__name__, str(exc))


@pytest.mark.parametrize('name', ['pr_0_add.bit', 'pr_0_sub.bit',
                                  'ov5640_lcd_7010.bit'])
@pytest.mark.parametrize('seed', [1, 2])
def test_random_chunks_same_description(name, seed):
    data = realfiles.read(name)
    whole = bitstream.validate(data).to_dict()
    assert verdict(chunks(data, random.Random(seed))) == whole


@pytest.mark.parametrize('make', [
    lambda d: convert.to_bin(d),
    lambda d: mutate.flip_bit(d, 400000),
    lambda d: d[:500000],
    lambda d: mutate.with_header(d, payload_length=len(d)),
], ids=['pcap-bin', 'bit-flip', 'truncated', 'lying-header'])
def test_random_chunks_same_error(make):
    data = make(realfiles.read('pr_0_add.bit'))
    whole = verdict([data])
    for seed in range(3):
        assert verdict(chunks(data, random.Random(seed))) == whole


def test_byte_by_byte_through_header_and_sync():
    data = realfiles.read('pr_0_sub.bit')
    parts = [data[i:i + 1] for i in range(400)] + [data[400:]]
    assert verdict(parts) == bitstream.validate(data).to_dict()


def test_memory_is_bounded_by_the_chunk_not_the_file():
    path = realfiles.path('prio.bit')  # 4 MB
    chunk = 64 * 1024
    tracemalloc.start()
    try:
        v = bitstream.Validator()
        with open(path, 'rb') as f:
            while True:
                part = f.read(chunk)
                if not part:
                    break
                v.feed(part)
                del part
        info = v.finish()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info.size == 4045672
    # a few chunks' worth (read buffer, carried words), never the file
    assert peak < 8 * chunk, 'peak %d bytes for %d-byte chunks' % (peak, chunk)
