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

"""Throughput of the hardware vTC (region_vtc), in clock cycles, simulated by
Verilator.

Runs the module through the Verilator bridge (the same build the board
emulator runs), back-to-back frames on the input and the output always
ready, and counts clock cycles, not wall time: cycles per frame for 64 to
1,518-byte frames with 1, 1,000 and 10,000 concurrent flows (RTP over
UDP/IPv4, classified on their first packet and DSCP-marked after it).  The
figures are turned into Mpps and Gb/s at 156.25 MHz, the clock a 64-bit
stream needs for 10 GbE, and compared with 10 GbE line rate, with a
Zynq-7000's 1 GbE PS Ethernet, and (as cited, not measured here) with the
software vTC of the T-NOVA white paper.  The first run builds the module
(cached in .build/hdl_bridge).

    .venv/bin/python benchmarks/vtc_throughput.py [--frames 1000]
"""
import argparse
import struct
import time

from nova_fpga import catalogue
import nova_fpga_devtools
from nova_fpga_emulator import hdl_bridge
from nova_fpga_emulator import modules

import results

VTC = catalogue.load().by_name('vtc')
REGS = VTC.registers

CLOCK_HZ = 156.25e6
ETHERNET_OVERHEAD_BYTES = 20  # preamble + start delimiter + inter-frame gap
TEN_GBE_BPS = 10e9
ONE_GBE_BPS = 1e9
#: longer than the module's latency: idle means done
QUIET_CYCLES = 64
SIZES = (64, 128, 256, 512, 1024, 1280, 1518)
FLOW_COUNTS = (1, 1000, 10000)
#: an RTP header: the vTC classifies the flow as RTP on its first packet
RTP_HEADER = bytes.fromhex('80086fae000004d83796cb71')
#: cited figures for the software vTC (T-NOVA white paper), Gb/s
SOFTWARE_VTC = (
    ('nDPI vTC in a VM, 1,280-byte frames', 3.7),
    ('nDPI vTC with DPDK', 8.0),
)


def frame(flow, size):
    """An Ethernet/IPv4/UDP frame of `size` bytes (no FCS) carrying RTP, of
    flow number `flow`.
    """
    ip_length = size - 14
    udp = struct.pack(
        '!HHHH', 20000 + flow % 40000, 30000 + flow // 40000, ip_length - 20, 0
    )
    ip = struct.pack(
        '!BBHHHBBH4s4s',
        0x45,
        0,
        ip_length,
        0,
        0,
        64,
        17,
        0,
        bytes([10, flow >> 16 & 255, flow >> 8 & 255, flow & 255]),
        bytes([10, 255, 0, 1]),
    )
    payload = RTP_HEADER + bytes(size - 42 - len(RTP_HEADER))
    return (
        bytes(6) + bytes([2, 0, 0, 0, 0, 1]) + b'\x08\x00' + ip + udp + payload
    )


def start(bridge):
    """Reset and wait for the flow table to be cleared; mark RTP."""
    bridge.reset()
    bridge.clock(16)
    while bridge.axil_read(REGS.STATUS) & REGS.bit('STATUS', 'TABLE_CLEARING'):
        bridge.clock(64)
    bridge.axil_write(
        REGS.at('POLICY', 'rtp'), REGS.bit('POLICY', 'ENABLE') | 46
    )


def run(bridge, frames):
    """Cycles from the first beat in until the output has been quiet for
    QUIET_CYCLES.
    """
    for data in frames:
        bridge.push_frame(data)
    cycles = bridge.clock_until_idle(quiet_cycles=QUIET_CYCLES)
    out = bridge.pull_frames()
    if len(out) != len(frames) or [len(data) for data in out] != [
        len(f) for f in frames
    ]:
        raise SystemExit('the vTC lost or changed the length of frames')
    return cycles, out


def measure(bridge, size, flows, count):
    """Steady-state cycles per frame: `count` back-to-back frames over `flows`
    flows.
    """
    start(bridge)
    single, _ = run(bridge, [frame(0, size)])
    latency = single - QUIET_CYCLES - -(-size // 8)
    # the flows are in the table (as far as it holds them) before the measured
    # run
    run(bridge, [frame(flow, size) for flow in range(flows)])
    batch = [frame(n % flows, size) for n in range(max(count, flows))]
    cycles, out = run(bridge, batch)
    marked = sum(1 for sent, got in zip(batch, out) if sent != got)
    # the batch takes what one frame takes plus its other frames' cycles
    return (
        (cycles - single) / (len(batch) - 1),
        latency,
        marked / len(batch),
        {
            'occupancy': bridge.axil_read(REGS.FLOW_OCCUPANCY),
            'failed': bridge.axil_read(REGS.FLOW_FAILED_INSERTIONS),
        },
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--frames', type=int, default=1000,
                        help='frames per measurement (at least one per flow)')
    args = parser.parse_args()

    began = time.perf_counter()
    with hdl_bridge.HdlBridge(modules.HdlModule.of(VTC),
                              nova_fpga_devtools.HDL) as bridge:
        print(
            'vTC module 0x%08X, %d-bit stream, %d-flow table, Verilator %s '
            '(ready in %.1f s)'
            % (
                bridge.axil_read(REGS.MODULE_ID),
                VTC.data_width,
                bridge.axil_read(REGS.FLOW_TABLE_DEPTH),
                hdl_bridge.toolchain.verilator_version().split()[0],
                time.perf_counter() - began,
            )
        )
        print(
            'cycles counted by the simulation; rates at %.2f MHz (64-bit path)'
            % (CLOCK_HZ / 1e6)
        )
        print(
            '%6s %6s %8s %7s %8s %8s %9s %9s %7s %s'
            % (
                'frame',
                'flows',
                'beats',
                'cycles',
                'Mpps',
                'Gb/s',
                '10GbE Mpps',
                'x 10GbE',
                'marked',
                'flow table (since reset)',
            )
        )
        worst = None
        for size in SIZES:
            beats = -(-size // 8)
            line_pps = TEN_GBE_BPS / 8 / (size + ETHERNET_OVERHEAD_BYTES)
            for flows in FLOW_COUNTS:
                per_frame, latency, marked, table = measure(
                    bridge, size, flows, args.frames
                )
                pps = CLOCK_HZ / per_frame
                ratio = pps / line_pps
                worst = ratio if worst is None else min(worst, ratio)
                print(
                    '%5dB %6d %8d %7.2f %8.2f %8.2f %9.2f %8.2fx %6.0f%% '
                    '%d held, %d failed insertions'
                    % (
                        size,
                        flows,
                        beats,
                        per_frame,
                        pps / 1e6,
                        pps * size * 8 / 1e9,
                        line_pps / 1e6,
                        ratio,
                        100 * marked,
                        table['occupancy'],
                        table['failed'],
                    )
                )
        print(
            'latency: %d cycles from first beat in to first beat out (%.0f ns '
            'at %.2f MHz)'
            % (latency, latency / CLOCK_HZ * 1e9, CLOCK_HZ / 1e6)
        )
        print(
            'target: one beat per cycle at every size; the slowest case runs '
            'at %.2fx 10 GbE '
            'line rate (64 B line rate: %.2f Mpps)'
            % (worst, TEN_GBE_BPS / 8 / (64 + ETHERNET_OVERHEAD_BYTES) / 1e6)
        )
        print(
            'a Zynq-7000 board\'s PS Ethernet is 1 GbE (%.2f Mpps at 64 B): '
            'on such a board '
            'the module is never the bottleneck'
            % (ONE_GBE_BPS / 8 / (64 + ETHERNET_OVERHEAD_BYTES) / 1e6)
        )
        rate_1280 = CLOCK_HZ / -(-1280 // 8) * 1280 * 8 / 1e9
        for what, gbps in SOFTWARE_VTC:
            print(
                'cited, not measured: %s about %.1f Gb/s; this module at '
                '1,280 B: %.2f Gb/s '
                '(%.1fx)' % (what, gbps, rate_1280, rate_1280 / gbps)
            )


if __name__ == '__main__':
    with results.recorded('vtc_throughput'):
        main()
