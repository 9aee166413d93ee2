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

"""Simulated throughput of the Verilator bridge running the loopback module.

Prints frames/s and simulated clock cycles/s (wall clock) for 64-byte and
1518-byte frames, and puts them beside what they stand for: the same module
on the fabric at a 100 MHz AXI-Stream clock, and 1 GbE line rate (the board's
PS Ethernet).  The first run builds the module (cached in .build/hdl_bridge).

    .venv/bin/python benchmarks/hdl_bridge.py [--seconds 2]
"""
import argparse
import time

from nova_fpga import catalogue
import nova_fpga_devtools
from nova_fpga_emulator import hdl_bridge

import results

LOOPBACK = catalogue.load().by_name('loopback')
REGS = LOOPBACK.registers

FABRIC_CLOCK_HZ = 100e6
ETHERNET_OVERHEAD_BYTES = 20  # preamble + start delimiter + inter-frame gap
LINE_RATE_BPS = 1e9


def measure(bridge, frame_size, seconds):
    """Push batches of frames through until `seconds` of wall time; return
    (frames/s, cycles/s).
    """
    frame = bytes(n & 0xFF for n in range(frame_size))
    batch = max(1, 200_000 // frame_size)
    frames = cycles = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(batch):
            bridge.push_frame(frame)
        cycles += bridge.clock_until_idle(quiet_cycles=4)
        returned = bridge.pull_frames()
        if len(returned) != batch or returned[-1] != frame:
            raise SystemExit('loopback lost or changed frames')
        frames += batch
    elapsed = time.perf_counter() - start
    return frames / elapsed, cycles / elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        '--seconds', type=float, default=2.0, help='wall time per frame size'
    )
    args = parser.parse_args()

    started = time.perf_counter()
    with hdl_bridge.HdlBridge.for_module_id(
            LOOPBACK.module_id, nova_fpga_devtools.HDL) as bridge:
        print(
            'loopback module 0x%08X, %d-bit stream, Verilator %s (ready in '
            '%.1f s)'
            % (
                bridge.axil_read(REGS.MODULE_ID),
                LOOPBACK.data_width,
                hdl_bridge.toolchain.verilator_version().split()[0],
                time.perf_counter() - started,
            )
        )
        print(
            '%-8s %14s %16s %18s %16s'
            % (
                'frame',
                'sim frames/s',
                'sim cycles/s',
                'fabric frames/s',
                '1GbE frames/s',
            )
        )
        beat_bytes = LOOPBACK.data_width // 8
        for size in (64, 1518):
            frames_per_s, cycles_per_s = measure(bridge, size, args.seconds)
            fabric = FABRIC_CLOCK_HZ / -(-size // beat_bytes)
            line = LINE_RATE_BPS / 8 / (size + ETHERNET_OVERHEAD_BYTES)
            print('%-8s %14.0f %16.0f %18.0f %16.0f' % (
                '%d B' % size, frames_per_s, cycles_per_s, fabric, line))
        print(
            'fabric = one beat per cycle at %.0f MHz; at 1518 B the '
            'simulation runs %.1fx '
            'slower than the fabric'
            % (FABRIC_CLOCK_HZ / 1e6, FABRIC_CLOCK_HZ / cycles_per_s)
        )


if __name__ == '__main__':
    with results.recorded('hdl_bridge'):
        main()
