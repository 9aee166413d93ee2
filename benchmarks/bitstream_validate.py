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

"""How fast the bitstream validator checks a bitstream, against the PCAP.

Validation runs in Glance on every upload and on the board before every
load, so it must be faster than the configuration port itself: the Zynq-7000
PCAP moves at most 400 MB/s in theory, ~128 MB/s in practice (the emulator's
default rate).  The target is at least 150 MB/s on one core for the 4 MB full
bitstream.  Also shown: sha256 alone over the same bytes (the floor: the
validator computes the digest in the same pass).

Run: .venv/bin/python benchmarks/bitstream_validate.py [--repeat N]
"""
import argparse
import hashlib
import pathlib
import statistics
import sys
import time

from nova_fpga import bitstream
import nova_fpga_devtools

import results

ROOT = pathlib.Path(__file__).resolve().parents[1]
REALDATA = nova_fpga_devtools.REALDATA / 'bitstreams'
FILES = ['royforu_pynq_pr/prio.bit', 'royforu_pynq_pr/pr_0_add.bit',
         'pynq_atk_2.5.6/ov5640_lcd_7010.bit']
TARGET_MBS = 150.0
PCAP_MBS = 128.0


def rate(fn, data, repeat):
    fn(data)  # warm up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(data)
        times.append(time.perf_counter() - start)
    mb = len(data) / 1e6
    return mb / statistics.median(times), mb / min(times)


def streamed(chunk):
    def run(data):
        v = bitstream.Validator()
        view = memoryview(data)
        for start in range(0, len(view), chunk):
            v.feed(view[start:start + chunk])
        return v.finish()
    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=30)
    args = parser.parse_args()
    print('bitstream validation, one core, median (best) of %d runs'
          % args.repeat)
    print('%-22s %10s %18s %18s %14s' % ('file', 'bytes', 'whole MB/s',
                                         '64 KiB chunks', 'sha256 alone'))
    ok = True
    figures = {'repeat': args.repeat, 'files': {}}
    for name in FILES:
        path = REALDATA / name
        if not path.exists():
            sys.exit('missing real data: %s' % path)
        data = path.read_bytes()
        whole = rate(bitstream.validate, data, args.repeat)
        chunks = rate(streamed(64 * 1024), data, args.repeat)
        sha = rate(lambda d: hashlib.sha256(d).digest(), data, args.repeat)
        print('%-22s %10d %10.0f (%4.0f) %10.0f (%4.0f) %14.0f' % (
            path.name, len(data), *whole, *chunks, sha[0]))
        figures['files'][path.name] = {
            'bytes': len(data), 'whole_mbs': whole[0], 'whole_best_mbs':
            whole[1], 'chunked_mbs': chunks[0], 'sha256_mbs': sha[0]}
        if name.endswith('prio.bit'):
            ok = whole[0] >= TARGET_MBS
            full = whole[0]
    print('target: >= %.0f MB/s for the 4 MB full bitstream: %.0f MB/s, %s'
          % (TARGET_MBS, full, 'met' if ok else 'NOT MET'))
    print('compare: Zynq-7000 PCAP ~%.0f MB/s (emulator default), so the '
          'check costs %.0f%% of the load time it guards'
          % (PCAP_MBS, 100 * PCAP_MBS / full))
    figures.update(target_mbs=TARGET_MBS, full_mbs=full, target_met=ok)
    return figures


if __name__ == '__main__':
    with results.recorded('bitstream_validate') as run:
        run.figures.update(main())
