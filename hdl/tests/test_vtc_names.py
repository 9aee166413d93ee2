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

"""cocotb suite for vtc_names (the name extractor and the name matcher
together): with the catalogue's application table loaded through its write
port, every frame gets the application the model gives it
(vtc_names.Table.lookup of vtc_names.frame_name), on the project's
captures and on the frames made to sit on the model's edges.
"""
import cocotb
from cocotb.triggers import RisingEdge

from axi_helpers import seeded_random
from test_vtc_name_extract import Bench
from test_vtc_name_extract import capture_jobs
from test_vtc_name_extract import edge_jobs
from test_vtc_name_match import load
import vtc_names


async def loaded(dut, rng):
    """The bench, reset, with the table loaded once the reset emptied it."""
    bench = Bench(dut, rng)
    dut.tbl_wr_en.value = 0
    await bench.start(matcher=False)
    await RisingEdge(dut.clk)
    while dut.clearing.value:
        await RisingEdge(dut.clk)
    await load(dut, vtc_names.load())
    return bench


def check(bench, jobs, skipped, table):
    """Every frame's result is the model's application, in order."""
    tags = [r[1] for r in bench.results]
    assert tags == sorted(tags), 'results out of order'
    by_tag = {r[1]: r for r in bench.results}
    wrong = []
    for tag, item in enumerate(jobs):
        if not item.kind or skipped[tag]:
            assert tag not in by_tag
            continue
        want = item.expected
        want_app = table.lookup(want) if want else 0
        got = by_tag.get(tag)
        expected = (int(want is not None), want_app)
        if got is None or (got[2], got[3]) != expected:
            wrong.append((tag, item.kind, want, want_app, got))
    assert not wrong, (
        '%d of %d frames wrong (tag, kind, name, model application, module '
        'result): %s' % (len(wrong), len(jobs), wrong[:8]))


@cocotb.test()
async def capture_frames_get_the_models_applications(dut):
    rng = seeded_random(dut)
    bench = await loaded(dut, rng)
    table = vtc_names.load()
    jobs = capture_jobs(rng)
    named = sum(1 for j in jobs if j.expected and table.lookup(j.expected))
    assert named > 80, named
    skipped = await bench.run(jobs, [rng.randint(1, 60) for _ in jobs],
                              gaps=0.05)
    assert not any(skipped.values())
    check(bench, jobs, skipped, table)
    dut._log.info('%d frames, %d named by the table', len(jobs), named)


@cocotb.test()
async def edge_frames_get_the_models_applications(dut):
    rng = seeded_random(dut)
    bench = await loaded(dut, rng)
    jobs = edge_jobs()
    skipped = await bench.run(jobs, [rng.randint(1, 400) for _ in jobs])
    assert not any(skipped.values())
    check(bench, jobs, skipped, vtc_names.load())
