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

"""cocotb suite for vtc_name_extract: every frame's host name, as the model
reads it (vtc_names.frame_name), reaches the matcher byte for byte, and the
matcher's answer comes back with the frame's tag.

The testbench plays the matcher: it takes a name a byte a cycle, drops
name_ready while it "walks" it, and answers a number made from the name's
bytes (never 0), so a result carries its name's bytes.  Frames are the
project's captures (every frame any class reads a name from, and a share of
the rest, read as another class) and frames made to sit on the edges: the
window's last byte, names cut, DNS over TCP, the root, a compression
pointer, a one-beat frame, a command before its frame's end.
"""
import collections
import zlib

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles
from cocotb.triggers import ReadOnly
from cocotb.triggers import RisingEdge

from axi_helpers import seeded_random
from axi_helpers import send_beats
import vtc_captures
import vtc_model
import vtc_names

KIND = {None: 0, 'http': 1, 'tls': 2, 'dns': 3}
SLOTS = 4
#: cycles without a result after which the rest never come
IDLE_TIMEOUT = 5000


def answer(name):
    """The testbench matcher's answer for a name: 1..62 from its bytes."""
    return zlib.crc32(name) % 62 + 1


Job = collections.namedtuple('Job', 'frame kind start end tcp expected')


def job(frame, kind, start, length, tcp=False):
    return Job(bytes(frame), kind, start, start + length, tcp,
               vtc_names.frame_name(kind, frame, start, length, tcp)
               if kind else None)


class Bench:
    """The extractor with a matcher played by the testbench."""

    def __init__(self, dut, rng):
        self.dut = dut
        self.rng = rng
        self.streams = []     # (cycle of the last byte, name)
        self.results = []     # (cycle, tag, named, app)
        self.skips = 0
        self.cycle = 0
        self.slow_matcher = False

    async def start(self, matcher=True):
        """Reset; with matcher, play the matcher (the extractor alone)."""
        dut = self.dut
        cocotb.start_soon(Clock(dut.clk, 4, unit='ns').start())
        dut.rst.value = 1
        dut.in_beat.value = 0
        dut.cmd_valid.value = 0
        if matcher:
            dut.name_ready.value = 0
            dut.app_valid.value = 0
        await ClockCycles(dut.clk, 3)
        dut.rst.value = 0
        cocotb.start_soon(self._clock())
        if matcher:
            cocotb.start_soon(self._matcher())
        cocotb.start_soon(self._monitor())

    async def _clock(self):
        while True:
            await RisingEdge(self.dut.clk)
            self.cycle += 1

    async def _matcher(self):
        dut = self.dut
        name = bytearray()
        dut.name_ready.value = 1
        while True:
            await RisingEdge(self.dut.clk)
            await ReadOnly()
            if not dut.name_valid.value:
                continue
            name.append(int(dut.name_byte.value))
            if dut.name_last.value:
                got, name = bytes(name), bytearray()
                self.streams.append((self.cycle, got))
                await RisingEdge(dut.clk)
                dut.name_ready.value = 0
                delay = self.rng.randint(1, 300 if self.slow_matcher else 20)
                await ClockCycles(dut.clk, delay)
                dut.app_valid.value = 1
                dut.app.value = answer(got)
                await RisingEdge(dut.clk)
                dut.app_valid.value = 0
                await ClockCycles(dut.clk, self.rng.randint(0, 3))
                dut.name_ready.value = 1

    async def _monitor(self):
        dut = self.dut
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            if dut.res_valid.value:
                self.results.append((self.cycle, int(dut.res_tag.value),
                                     int(dut.res_named.value),
                                     int(dut.res_app.value)))
            if dut.skipped.value:
                self.skips += 1

    async def send(self, frame, gaps=0.0, first=None):
        """The frame's beats (axi_helpers.send_beats)."""
        await send_beats(self.dut, frame, self.rng, gaps, first)

    async def command(self, tag, item):
        dut = self.dut
        dut.cmd_valid.value = 1
        dut.cmd_kind.value = KIND[item.kind]
        dut.cmd_start.value = item.start
        dut.cmd_end.value = min(item.end, 0xFFFF)
        dut.cmd_tcp.value = int(item.tcp)
        dut.cmd_tag.value = tag
        await RisingEdge(dut.clk)
        dut.cmd_valid.value = 0

    async def run(self, jobs, delays, gaps=0.0, wait_for_slots=True):
        """Send every job's frame and its command `delay` cycles after the
        frame's first beat (in order); wait for every answer.  Returns
        {tag: skipped}.
        """
        pending = collections.deque()
        skipped = {}
        in_use = [0]
        busy_until = {}

        async def commands():
            tag = 0
            while tag < len(jobs):
                if not pending or pending[0][0] > self.cycle:
                    await RisingEdge(self.dut.clk)
                    continue
                _, tag_now = pending.popleft()
                skips = self.skips
                await self.command(tag_now, jobs[tag_now])
                await RisingEdge(self.dut.clk)
                await ReadOnly()
                await RisingEdge(self.dut.clk)
                skipped[tag_now] = self.skips > skips
                if not jobs[tag_now].kind or skipped[tag_now]:
                    in_use[0] -= 1
                tag = tag_now + 1

        commander = cocotb.start_soon(commands())
        answered = 0
        for tag, item in enumerate(jobs):
            if wait_for_slots:
                while True:
                    answered = sum(1 for r in self.results
                                   if r[1] in busy_until)
                    if in_use[0] - answered < SLOTS:
                        break
                    await RisingEdge(self.dut.clk)
            in_use[0] += 1
            if item.kind:
                busy_until[tag] = True
            # the command `delay` cycles after the cycle the first beat was
            # taken in (self.cycle counts that edge already)

            def first(tag=tag):
                pending.append((self.cycle + delays[tag] - 1, tag))
            await self.send(item.frame, gaps, first=first)
        await commander
        wanted = {t for t, j in enumerate(jobs) if j.kind and not skipped[t]}
        idle, seen = 0, len(self.results)
        while idle < IDLE_TIMEOUT:
            if {r[1] for r in self.results} >= wanted:
                break
            await RisingEdge(self.dut.clk)
            idle = 0 if len(self.results) > seen else idle + 1
            seen = len(self.results)
        return skipped

    def check(self, jobs, skipped):
        """Every job's result is the model's, in order, its name's bytes
        streamed last before it.
        """
        wrong = []
        tags = [r[1] for r in self.results]
        assert tags == sorted(tags), 'results out of order: %s' % tags[:20]
        by_tag = {r[1]: r for r in self.results}
        for tag, item in enumerate(jobs):
            if not item.kind:
                assert tag not in by_tag, 'a result for nothing to read'
                continue
            if skipped[tag]:
                assert tag not in by_tag, 'a result for a skipped frame'
                continue
            if tag not in by_tag:
                wrong.append((tag, item.kind, item.expected, 'no result'))
                continue
            cycle, _, named, app = by_tag[tag]
            last = [n for c, n in self.streams if c < cycle]
            want = item.expected
            if want is None:
                ok = not named and app == 0
            elif want == b'':
                ok = named and app == 0
            else:
                ok = (named and app == answer(want) and last
                      and last[-1] == want)
            if not ok:
                wrong.append((tag, item.kind, want, (named, app,
                              last[-1] if last else None)))
        assert not wrong, '%d of %d frames wrong (tag, kind, model, module):' \
            ' %s' % (len(wrong), len(jobs), wrong[:8])


def capture_jobs(rng):
    """Every capture frame any class reads a name from (as that class),
    and one in eight of the other frames with a payload (as a class
    chosen at random), and some frames read for nothing.
    """
    jobs = []
    for folder in vtc_captures.NDPI_FOLDERS:
        for path in vtc_captures.ndpi_capture_paths(folder):
            for frame in vtc_captures.read_frames(path):
                parsed = vtc_model.parse(frame)
                if parsed in (None, vtc_model.FRAGMENT) \
                        or not parsed.payload_len:
                    if rng.random() < 0.02:
                        jobs.append(job(frame, None, 0, 0))
                    continue
                tcp = parsed.key.proto == vtc_model.TCP
                args = (frame, parsed.start, parsed.payload_len, tcp)
                named = [k for k in vtc_names.EXTRACT
                         if job(args[0], k, *args[1:]).expected is not None]
                if named:
                    jobs.append(job(args[0], rng.choice(named), *args[1:]))
                elif rng.random() < 0.125:
                    kind = rng.choice(list(vtc_names.EXTRACT) + [None])
                    jobs.append(job(args[0], kind, *args[1:]))
    return jobs


@cocotb.test()
async def capture_frames_give_the_models_names(dut):
    rng = seeded_random(dut)
    bench = Bench(dut, rng)
    await bench.start()
    jobs = capture_jobs(rng)
    named = sum(1 for j in jobs if j.expected)
    assert named > 600, named
    delays = [rng.randint(1, 60) for _ in jobs]
    skipped = await bench.run(jobs, delays, gaps=0.05)
    assert not any(skipped.values()), 'a frame was skipped with a slot free'
    bench.check(jobs, skipped)
    dut._log.info('%d frames, %d names', len(jobs), named)


def _tls_hello(name, padding):
    """A ClientHello (scapy) with a padding extension of `padding` bytes
    before its server_name.
    """
    from scapy.layers.tls.extensions import ServerName
    from scapy.layers.tls.extensions import TLS_Ext_Padding
    from scapy.layers.tls.extensions import TLS_Ext_ServerName
    from scapy.layers.tls.handshake import TLSClientHello
    from scapy.layers.tls.record import TLS
    return bytes(TLS(msg=[TLSClientHello(ext=[
        TLS_Ext_Padding(padding=b'\x00' * padding),
        TLS_Ext_ServerName(servernames=[ServerName(servername=name)])])]))


def _dns(qname_wire, questions=1):
    return (b'\x12\x34\x01\x00' + questions.to_bytes(2, 'big')
            + b'\x00' * 6 + qname_wire + b'\x00\x01\x00\x01')


def edge_jobs():
    """Frames made to sit on every edge the model draws."""
    window = vtc_names.NAME_WINDOW
    # where a payload starts after Ethernet, IPv4 and TCP; CRs, so that a
    # read past the window that wrapped to the frame's start would find one
    head = b'\r' * 54
    jobs = []

    # a Host line whose CR is the window's last byte, a byte before, after
    def request(pad):
        return (b'GET /' + b'a' * pad
                + b' HTTP/1.1\r\nHost: www.netflix.com\r\n\r\n')
    for d in (-1, 0, 1):
        pad = window + 3 + d - len(head) - len(request(0))
        frame = head + request(pad)
        assert frame.index(b'.com\r') + 4 == window - 1 + d
        jobs.append(job(frame, 'http', len(head), len(frame) - len(head)))
    for payload in (b'GET / HTTP/1.1\r\nhOsT:\t www.youtube.com:443 x\r\n',
                    b'GET / HTTP/1.1\r\nHost: a b\r\n',
                    b'GET / HTTP/1.1\r\nHost: a.example\tb\r\n',
                    b'GET / HTTP/1.1\r\nHost: :80\r\n',
                    b'GET / HTTP/1.1\r\nHost:\r\n',
                    b'GET / HTTP/1.1\r\nHost: www.netflix.com',
                    b'GET / HTTP/1.1\r\nHost: www.netflix.com:80',
                    b'\r\nHost: x\r\n', b'Host: x\r\n',
                    b'GET / HTTP/1.1\r\n\r\nHost: ' + b'n' * 200 + b'\r\n'):
        frame = head + payload
        jobs.append(job(frame, 'http', len(head), len(payload)))
        # the payload's end before the frame's: what lies after is not read
        jobs.append(job(frame + b'\r\n', 'http', len(head), len(payload)))
    # TLS names ending at the window's last byte and past it, and cut by
    # the payload's end
    for shift in (-1, 0, 1):
        hello = _tls_hello(b'www.youtube.com', 0)
        hello = _tls_hello(b'www.youtube.com',
                           window - len(head) - len(hello) + shift)
        frame = head + hello
        assert len(frame) == window + shift  # the name is the last bytes
        jobs.append(job(frame, 'tls', len(head), len(hello)))
    hello = _tls_hello(b'i.ytimg.com', 10)
    for length in (len(hello), len(hello) - 1, 60, 5, 0):
        jobs.append(job(head + hello, 'tls', len(head), length))
    jobs.append(job(head + hello, 'dns', len(head), len(hello)))
    jobs.append(job(head + _tls_hello(b'', 3), 'tls', len(head), 100))
    # a server name of another type than host_name (0)
    hello = bytearray(_tls_hello(b'a.example', 0))
    at = hello.index(b'a.example') - 3
    assert hello[at] == 0
    hello[at] = 1
    jobs.append(job(head + hello, 'tls', len(head), len(hello)))
    # the extensions' length ends before the server_name extension (after
    # the padding's 4 + 8 bytes), by one byte and not
    for short in (0, 1):
        hello = bytearray(_tls_hello(b'a.example', 8))
        at = 43
        at += 1 + hello[at]
        at += 2 + int.from_bytes(hello[at:at + 2], 'big')
        at += 1 + hello[at]
        hello[at:at + 2] = (4 + 8 + 4 - short).to_bytes(2, 'big')
        jobs.append(job(head + hello, 'tls', len(head), len(hello)))
    # DNS: over UDP and TCP, the root, a pointer, no question, too short,
    # a name longer than the matcher keeps
    www = b'\x03www\x07youtube\x03com\x00'
    for payload, tcp in ((_dns(www), False),
                         (len(_dns(www)).to_bytes(2, 'big') + _dns(www), True),
                         (_dns(b'\x00'), False),
                         (_dns(b'\x03www\xc0\x0c'), False),
                         (_dns(www, questions=0), False),
                         (_dns(www)[:11], False),
                         (_dns(www)[:20], False),
                         (_dns(b''.join(b'\x3f' + b'x' * 63
                                        for _ in range(3)) + www), False)):
        jobs.append(job(head + payload, 'dns', len(head), len(payload), tcp))
    # a one-beat frame; a frame longer than the window read for a name at
    # its start; nothing to read
    jobs.append(job(b'abc', 'http', 0, 3))
    long = head + b'GET / HTTP/1.1\r\nHost: a.example\r\n' + b'z' * 1400
    jobs.append(job(long, 'http', len(head), len(long) - len(head)))
    jobs.append(job(long, None, 0, 0))
    return jobs


@cocotb.test()
async def edge_frames_follow_the_model(dut):
    rng = seeded_random(dut)
    bench = Bench(dut, rng)
    await bench.start()
    jobs = edge_jobs()
    assert sum(1 for j in jobs if j.expected) > 10
    assert sum(1 for j in jobs if j.kind and j.expected is None) > 10
    # commands a cycle after the first beat (before long frames end) and
    # long after
    delays = [1 if i % 2 else rng.randint(2, 400) for i in range(len(jobs))]
    skipped = await bench.run(jobs, delays)
    assert not any(skipped.values())
    bench.check(jobs, skipped)


@cocotb.test()
async def frames_with_no_slot_free_are_skipped_and_the_rest_still_right(dut):
    """Back to back, commands 40 cycles after each frame's first beat (as
    the vTC's decisions come), a slow matcher: frames find every slot
    taken; they are skipped (one pulse each), and every other frame is
    still answered, right and in order.
    """
    rng = seeded_random(dut)
    bench = Bench(dut, rng)
    bench.slow_matcher = True
    await bench.start()
    jobs = [j for j in capture_jobs(rng) if j.expected][:200]
    skipped = await bench.run(jobs, [40] * len(jobs), wait_for_slots=False)
    assert sum(skipped.values()) > 20
    assert bench.skips == sum(skipped.values())
    bench.check(jobs, skipped)
