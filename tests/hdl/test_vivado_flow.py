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

"""The Vivado DFX flow (hdl/vivado) kept consistent with the Verilog, the
module catalogue and the pblocks.

Vivado is not available here, so build.tcl runs under plain tclsh through
dry_run.tcl, which records every Vivado command instead of running it.  The
record is then checked against what it must agree with: the RTL files exist
and are enough to elaborate each top (yosys), module names, ports and
parameters are the Verilog's, the UserIDs are the catalogue's module IDs, the
pblocks are pr_0.xdc's and rp1.xdc's, the block design's address map is the
shell manifest's.  The manifest writer runs on real Vivado partials.
"""
import json
import pathlib
import shutil
import subprocess
import sys

import pytest

from nova_fpga.bitstream import container
from nova_fpga import catalogue
from nova_fpga.contract import shell
from nova_fpga_devtools.hdl import resources
from nova_fpga_emulator import toolchain
from tests.conftest import realdata_path
from tests.conftest import ROOT

pytestmark = pytest.mark.hdl

VIVADO = ROOT / 'hdl' / 'vivado'
RTL = ROOT / 'hdl' / 'rtl'
REGIONS = {'rp0': 'shell_i/rp0', 'rp1': 'shell_i/rp1'}
PARTITION_OF = {'rp0': 'rp0_partition', 'rp1': 'rp1_partition'}
PARTITIONS = [VIVADO / 'rtl' / (name + '.v') for name in PARTITION_OF.values()]
CATALOGUE = catalogue.load()
REGISTRY_IDS = {
    'loopback': catalogue.module_id('loopback'),
    'vtc': catalogue.module_id('vtc'),
    'blank': container.NO_USER_ID,
}
#: where the modules' `include files are (the catalogue's generated offsets)
GENERATED = ROOT / 'hdl' / 'rtl' / 'generated'
INCLUDES = ['-I%s' % GENERATED]
# signals of the block design's external interface ports, as Vivado names them
# in the BD's HDL
AXIS_SIGNALS = ('tdata', 'tkeep', 'tlast', 'tready', 'tvalid')
AXI4LITE_SIGNALS = (
    'awaddr',
    'awprot',
    'awvalid',
    'awready',
    'wdata',
    'wstrb',
    'wvalid',
    'wready',
    'bresp',
    'bvalid',
    'bready',
    'araddr',
    'arprot',
    'arvalid',
    'arready',
    'rdata',
    'rresp',
    'rvalid',
    'rready',
)
AXI4LITE_MASTER_OUTPUTS = {
    'awaddr',
    'awprot',
    'awvalid',
    'wdata',
    'wstrb',
    'wvalid',
    'bready',
    'araddr',
    'arprot',
    'arvalid',
    'rready',
}
PS7_DDR_PORTS = (
    'DDR_addr',
    'DDR_ba',
    'DDR_cas_n',
    'DDR_ck_n',
    'DDR_ck_p',
    'DDR_cke',
    'DDR_cs_n',
    'DDR_dm',
    'DDR_dq',
    'DDR_dqs_n',
    'DDR_dqs_p',
    'DDR_odt',
    'DDR_ras_n',
    'DDR_reset_n',
    'DDR_we_n',
)
PS7_FIXED_IO_PORTS = (
    'FIXED_IO_ddr_vrn',
    'FIXED_IO_ddr_vrp',
    'FIXED_IO_mio',
    'FIXED_IO_ps_clk',
    'FIXED_IO_ps_porb',
    'FIXED_IO_ps_srstb',
)


def tool(name):
    path = shutil.which(name)
    assert path, '%s is missing: install it (bindep.txt)' % name
    return path


@pytest.fixture(scope='module')
def record(tmp_path_factory):
    """Every Vivado command build.tcl issues, as lists of words, in order."""
    work = tmp_path_factory.mktemp('vivado_dry_run')
    record_file = work / 'record.tsv'
    result = subprocess.run(
        [
            tool('tclsh'),
            str(VIVADO / 'dry_run.tcl'),
            str(work / 'build'),
            str(record_file),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'bitstreams in' in result.stdout
    return [line.split('\t') for line in record_file.read_text().splitlines()]


def commands(record, name):
    return [words for words in record if words[0] == name]


def option(words, flag):
    """Value(s) of a flag in a recorded command (a list when it repeats)."""
    values = [
        words[i + 1] for i, word in enumerate(words[:-1]) if word == flag
    ]
    return values


def yosys_modules(files, defines=(), top=None):
    """yosys' view of some Verilog: {module: {'ports': {name: (direction,
    width)}, 'parameters': set, 'attributes': dict, 'cells': {name: (type,
    ports)}}}.
    """
    script = 'read_verilog %s %s %s; %s proc; write_json /dev/stdout' % (
        ' '.join('-D' + d for d in defines),
        ' '.join(INCLUDES),
        ' '.join(str(f) for f in files),
        'hierarchy -top %s;' % top if top else '',
    )
    result = subprocess.run(
        [tool('yosys'), '-q', '-p', script],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, (
        result.stdout[-2000:] + result.stderr[-2000:]
    )
    data = json.loads(result.stdout)
    return {
        name: {
            'ports': {
                p: (v['direction'], len(v['bits']))
                for p, v in m['ports'].items()
            },
            'parameters': set(m.get('parameter_default_values', {})),
            'attributes': m.get('attributes', {}),
            'cells': {
                c: (v['type'], set(v['connections']))
                for c, v in m['cells'].items()
            },
            'widths': {n: len(v['bits']) for n, v in m['netnames'].items()},
        }
        for name, m in data['modules'].items()
    }


def module_synth_runs(record):
    """(region, module name, read_verilog files, synth_design words) of each
    module synthesis.
    """
    runs = []
    files = None
    for words in record:
        if words[0] == 'read_verilog':
            files = words[1].split()
        elif words[0] == 'synth_design' and option(words, '-mode') == [
            'out_of_context'
        ]:
            (top,) = option(words, '-top')
            region = {v: k for k, v in PARTITION_OF.items()}[top]
            (define,) = option(words, '-verilog_define')
            runs.append((region, define.split('=', 1)[1], files, words))
    return runs


def generics(words):
    return dict(g.split('=', 1) for g in option(words, '-generic'))


def verilog_hex(text):
    assert text.startswith("32'h"), text
    return int(text[4:], 16)


def test_build_writes_the_full_bitstream_and_a_partial_per_region_and_module(
    record,
):
    written = [option(w, '-cell') + [w[-1].rsplit('/', 1)[1]]
               for w in commands(record, 'write_bitstream')]
    assert written == [
        ['nova_shell.bit'],
        ['shell_i/rp0', 'rp0_loopback.bit'], ['shell_i/rp1', 'rp1_vtc.bit'],
        ['shell_i/rp1', 'rp1_loopback.bit'],
        ['shell_i/rp0', 'rp0_blank.bit'], ['shell_i/rp1', 'rp1_blank.bit']]
    assert all(
        '-bin_file' in w for w in commands(record, 'write_bitstream')
    ), 'every bitstream also as .bin for the PCAP'
    # the partitions are reconfigurable, the static routing is locked, all
    # configurations verified
    assert [
        w[-1]
        for w in commands(record, 'set_property')
        if w[1] == 'HD.RECONFIGURABLE'
    ] == ['<get_cells>', '<get_cells>']
    assert ['get_cells', 'shell_i/rp0'] in record and [
        'get_cells',
        'shell_i/rp1',
    ] in record
    assert ['lock_design', '-level', 'routing'] in record
    (verify,) = commands(record, 'pr_verify')
    assert len(option(verify, '-additional')[0].split()) == 2


def test_every_rtl_file_named_exists_and_elaborates_its_top(record):
    """The Tcl names every file a top needs: yosys elaborates each top from
    exactly those.
    """
    reads = [w[1].split() for w in commands(record, 'read_verilog')]
    assert reads and all(
        pathlib.Path(f).is_file() for files in reads for f in files
    )
    # the static shell: partitions as black boxes, the block design is Vivado's
    # own
    (static,) = [
        w for w in commands(record, 'synth_design') if '-mode' not in w
    ]
    assert option(static, '-top') == ['nova_shell_top']
    assert option(static, '-verilog_define') == ['RM_BLACK_BOX']
    static_files = reads[0]
    seen = yosys_modules(
        static_files, defines=['RM_BLACK_BOX'], top='nova_shell_top'
    )
    for region, partition in PARTITION_OF.items():
        assert seen[partition]['attributes'].get('black_box'), partition
        assert not seen[partition]['cells']
    # each module for each region: the partition wrapper around the module's
    # own top
    runs = module_synth_runs(record)
    assert {(region, top) for region, top, _, _ in runs} == {
        ('rp0', 'region_loopback'),
        ('rp1', 'region_loopback'),
        ('rp1', 'region_vtc'),
    }
    for region, top, files, words in runs:
        elaborated = yosys_modules(files, defines=['REGION_MODULE=' + top],
                                   top=PARTITION_OF[region])
        (cell,) = elaborated[PARTITION_OF[region]]['cells'].values()
        assert top in cell[0], (region, top, cell[0])


def test_module_names_ports_and_parameters_are_the_verilogs(record):
    interface = yosys_modules([RTL / 'region_loopback.v'])['region_loopback']
    partitions = yosys_modules(PARTITIONS, defines=['RM_BLACK_BOX'])
    for partition in PARTITION_OF.values():
        assert partitions[partition]['ports'] == interface['ports'], partition
    for region, top, files, words in module_synth_runs(record):
        sources = [f for f in files if not f.endswith('_partition.v')]
        verilog = yosys_modules(sources)
        assert top in verilog, '%s is not a module of %s' % (top, sources)
        assert verilog[top]['ports'] == interface['ports'], (
            '%s ports differ' % top
        )
        for parameter in generics(words):
            assert parameter in verilog[top]['parameters'], (top, parameter)
            assert (
                parameter in partitions[PARTITION_OF[region]]['parameters']
            ), parameter
    # the decoupler and the partitions are wired by these names in nova_shell.v
    shell_rtl = yosys_modules(
        [
            VIVADO / 'rtl' / 'nova_shell.v',
            *PARTITIONS,
            RTL / 'region_decoupler.v',
            RTL / 'axis_frame_fifo.v',
        ],
        defines=['RM_BLACK_BOX'],
    )['nova_shell']
    decoupler = yosys_modules(
        [RTL / 'region_decoupler.v', RTL / 'axis_frame_fifo.v']
    )
    for region in REGIONS:
        kind, ports = shell_rtl['cells'][region + '_decoupler']
        assert kind == 'region_decoupler'
        assert ports == set(decoupler['region_decoupler']['ports'])
        kind, ports = shell_rtl['cells'][region]
        assert kind == PARTITION_OF[region] and ports == set(
            interface['ports']
        )


def test_block_design_ports_are_what_nova_shell_connects(record):
    expected = set(PS7_DDR_PORTS + PS7_FIXED_IO_PORTS)
    for words in commands(record, 'create_bd_intf_port'):
        name, vlnv = words[-1], option(words, '-vlnv')[0]
        signals = (
            AXIS_SIGNALS
            if vlnv.endswith(':axis_rtl:1.0')
            else AXI4LITE_SIGNALS
        )
        expected |= {'%s_%s' % (name, s) for s in signals}
    expected |= {words[-1] for words in commands(record, 'create_bd_port')}
    shell_rtl = yosys_modules(
        [
            VIVADO / 'rtl' / 'nova_shell.v',
            *PARTITIONS,
            RTL / 'region_decoupler.v',
            RTL / 'axis_frame_fifo.v',
        ],
        defines=['RM_BLACK_BOX'],
    )['nova_shell']
    kind, connected = shell_rtl['cells']['bd_i']
    assert kind == 'shell_bd' and ['create_bd_design', '-dir'] == \
        commands(record, 'create_bd_design')[0][:2]
    assert commands(record, 'create_bd_design')[0][-1] == 'shell_bd'
    assert connected == expected
    # every AXI4-Lite port is declared AXI4LITE
    lite = [w for w in commands(record, 'set_property') if w[1] == '-dict'
            and 'CONFIG.PROTOCOL AXI4LITE' in w[2]]
    assert len(lite) == len(REGIONS)
    # and as wide as the wires nova_shell.v connects to them
    for words in commands(record, 'set_property'):
        if words[1] != '-dict':
            continue
        config = dict(zip(words[2].split()[::2], words[2].split()[1::2]))
        if config.get('CONFIG.PROTOCOL') == 'AXI4LITE':
            for region in REGIONS:
                assert shell_rtl['widths']['%s_axil_awaddr' % region] == \
                    int(config['CONFIG.ADDR_WIDTH'])
                assert shell_rtl['widths']['%s_axil_wdata' % region] == \
                    int(config['CONFIG.DATA_WIDTH'])
        if 'CONFIG.TDATA_NUM_BYTES' in config:
            for region in REGIONS:
                for stream in ('mm2s', 's2mm'):
                    assert shell_rtl['widths'][
                        '%s_%s_tdata' % (region, stream)
                    ] == 8 * int(config['CONFIG.TDATA_NUM_BYTES'])
                    assert shell_rtl['widths'][
                        '%s_%s_tkeep' % (region, stream)
                    ] == int(config['CONFIG.TDATA_NUM_BYTES'])


def shell_bd_stub(record, widths):
    """A Verilog stand-in for the block design's HDL: the ports the record
    creates, with the directions Vivado gives them and the widths
    nova_shell.v's wires have.
    """
    ports = [('inout', name) for name in PS7_DDR_PORTS + PS7_FIXED_IO_PORTS]
    for words in commands(record, 'create_bd_intf_port'):
        name, master = words[-1], option(words, '-mode') == ['Master']
        if option(words, '-vlnv')[0].endswith(':axis_rtl:1.0'):
            ports += [
                (
                    'input' if (s == 'tready') == master else 'output',
                    '%s_%s' % (name, s),
                )
                for s in AXIS_SIGNALS
            ]
        else:
            ports += [
                (
                    (
                        'output'
                        if (s in AXI4LITE_MASTER_OUTPUTS) == master
                        else 'input'
                    ),
                    '%s_%s' % (name, s),
                )
                for s in AXI4LITE_SIGNALS
            ]
    for words in commands(record, 'create_bd_port'):
        ports.append(
            (
                'input' if option(words, '-dir') == ['I'] else 'output',
                words[-1],
            )
        )
    declarations = ',\n'.join(
        '    %s wire [%d:0] %s' % (direction, widths.get(name, 1) - 1, name)
        for direction, name in ports
    )
    # an empty stand-in: its own ports are neither driven nor used
    return (
        '`timescale 1ns / 1ps\n`default_nettype none\n/* verilator lint_off '
        'UNDRIVEN */\n'
        '/* verilator lint_off UNUSEDSIGNAL */\n(* blackbox *)\nmodule '
        'shell_bd (\n%s\n);\n'
        'endmodule\n' % declarations
    )


def test_shell_rtl_lints_clean_with_verilator_and_icarus(record, tmp_path):
    """The shell and both partitions (with each module) under Verilator -Wall
    and Icarus -Wall, the block design standing in as a black box with the
    ports the Tcl gives it.
    """
    static = [
        VIVADO / 'rtl' / 'nova_shell_top.v',
        VIVADO / 'rtl' / 'nova_shell.v',
        *PARTITIONS,
        RTL / 'region_decoupler.v',
        RTL / 'axis_frame_fifo.v',
    ]
    widths = yosys_modules(static, defines=['RM_BLACK_BOX'])['nova_shell'][
        'widths'
    ]
    stub = tmp_path / 'shell_bd.v'
    stub.write_text(shell_bd_stub(record, widths))
    builds = [('nova_shell_top', ['RM_BLACK_BOX'], static + [stub])]
    for region, top, files, _ in module_synth_runs(record):
        builds.append((PARTITION_OF[region], ['REGION_MODULE=' + top], files))
    verilator = str(toolchain.verilator_root() / 'bin' / 'verilator')
    for top, defines, files in builds:
        result = subprocess.run(
            [
                verilator,
                '--lint-only',
                '-Wall',
                '-Wno-PROCASSINIT',
                '--top-module',
                top,
                *('-D' + d for d in defines),
                *INCLUDES,
                *map(str, files),
            ],
            env=toolchain.verilator_env(),
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0 and '%Warning' not in result.stderr, \
            '%s %s:\n%s' % (top, defines, result.stderr)
        result = subprocess.run(
            [
                toolchain.require('iverilog'),
                '-g2012',
                '-Wall',
                '-s',
                top,
                *('-D' + d for d in defines),
                *INCLUDES,
                '-o',
                str(tmp_path / 'sim.vvp'),
                *map(str, files),
            ],
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0 and result.stderr == '', \
            '%s %s:\n%s' % (top, defines, result.stderr)


def test_userids_and_module_ids_are_the_catalogues(record):
    userid = usr_access = None
    declared = {}
    for words in record:
        if words[:2] == ['set_property', 'BITSTREAM.CONFIG.USERID']:
            userid = int(words[2], 16)
        elif words[:2] == ['set_property', 'BITSTREAM.CONFIG.USR_ACCESS']:
            usr_access = int(words[2], 16)
        elif words[0] == 'write_bitstream':
            name = words[-1].rsplit('/', 1)[1]
            declared[name] = userid
            if name != 'nova_shell.bit':
                # a partial's .bin (what the FPGA manager loads) names its
                # module by USR_ACCESS
                assert usr_access == userid, name
            userid = usr_access = None  # every bitstream sets its own
    assert declared.pop('nova_shell.bit') == container.NO_USER_ID
    for name, value in declared.items():
        module = name[:-len('.bit')].split('_', 1)[1]
        assert value == REGISTRY_IDS[module], name
    for region, top, files, words in module_synth_runs(record):
        module = {'region_loopback': 'loopback', 'region_vtc': 'vtc'}[top]
        assert (
            verilog_hex(generics(words)['MODULE_ID']) == REGISTRY_IDS[module]
        )
        assert (
            int(generics(words)['DATA_WIDTH'])
            == CATALOGUE.by_name(module).data_width
        )


def test_module_versions_and_tops_are_the_catalogues(record):
    """Every module the flow builds is in the catalogue, with this version and
    these sources (the emulator runs the same HDL).
    """
    for region, top, files, words in module_synth_runs(record):
        module_id = verilog_hex(generics(words)['MODULE_ID'])
        registered = CATALOGUE.get(module_id)
        assert registered, 'module 0x%08X (%s) is not in the catalogue' % (
            module_id,
            top,
        )
        assert registered.top == top
        assert (
            verilog_hex(generics(words)['MODULE_VERSION'])
            == registered.version
        )
        assert set(registered.source_paths(ROOT / 'hdl' / 'rtl')) <= {
            pathlib.Path(f) for f in files}
        assert (
            str(GENERATED)
            in option(words, '-include_dirs')[0].split()
        )


def test_pblocks_are_the_real_pr_0_and_rp1(record):
    xdcs = [w[1] for w in commands(record, 'read_xdc')]
    assert xdcs == [str(ROOT / 'hdl' / 'pblocks' / 'rp0.xdc'),
                    str(ROOT / 'hdl' / 'pblocks' / 'rp1.xdc')]
    real_pr_0 = resources.pblock_budget(
        realdata_path('bitstreams', 'royforu_pynq_pr', 'pr_0.xdc')
    )
    rp0 = resources.pblock_budget(xdcs[0])
    assert rp0.sites == real_pr_0.sites and rp0.pblock == real_pr_0.pblock
    assert resources.pblock_budget(xdcs[1]).sites == \
        resources.pblock_budget(ROOT / 'hdl' / 'pblocks' / 'rp1.xdc').sites
    for (region, cell), xdc in zip(REGIONS.items(), xdcs):
        text = open(xdc).read()
        assert cell in text and 'RESET_AFTER_RECONFIG' in text, xdc
        assert ['read_checkpoint', '-cell', cell] == commands(
            record, 'read_checkpoint'
        )[list(REGIONS).index(region)][:3]


def test_block_design_address_map_is_the_reference_manifests(record):
    manifest = shell.load(shell.REFERENCE)
    segment = None
    assigned = {}
    for words in record:
        if words[0] == 'get_bd_addr_segs':
            segment = words[1]
        elif words[0] == 'assign_bd_address' and '-offset' in words:
            assigned[segment] = (
                int(option(words, '-offset')[0], 16),
                option(words, '-range')[0],
            )
    for region in manifest.regions:
        assert assigned['%s_decoupler_gpio/S_AXI/Reg' % region.name] == \
            (region.decoupler_base, '%dK' % (region.window_size // 1024))
        assert assigned['%s_axil/Reg' % region.name] == \
            (region.module_base, '%dK' % (region.window_size // 1024))
        # DMA channel N is region rpN's DMA
        assert region.name == 'rp%d' % region.dma_channel
        assert '%s_dma/S_AXI_LITE/Reg' % region.name in assigned


def test_block_design_dmas_are_scatter_gather_with_one_irq_a_region(record):
    """Issue 31: each region's AXI DMA in scatter-gather mode (the manifest
    says so) with a length field that holds a 9,018-byte frame, its
    descriptor port on the region's HP SmartConnect, and its two interrupts
    ORed into the one line its UIO node gets.
    """
    manifest = shell.load(shell.REFERENCE)
    assert manifest.dma_mode == 'sg'
    regions = [r.name for r in manifest.regions]
    dmas = []
    for words in commands(record, 'set_property'):
        if words[1] == '-dict' and 'CONFIG.c_include_sg' in words[2]:
            config = words[2].split()
            dmas.append(dict(zip(config[::2], config[1::2])))
    assert len(dmas) == len(regions)
    for config in dmas:
        assert config['CONFIG.c_include_sg'] == '1'
        # PG021: buffer length field of c_sg_length_width bits
        assert 2 ** int(config['CONFIG.c_sg_length_width']) - 1 >= 9018
    intf_pins = [w[1] for w in commands(record, 'get_bd_intf_pins')]
    pins = [w[1] for w in commands(record, 'get_bd_pins')]
    cells = {w[-1]: w[-2] for w in commands(record, 'create_bd_cell')}
    for region in regions:
        assert '%s_dma/M_AXI_SG' % region in intf_pins
        assert '%s_hp_smc/S02_AXI' % region in intf_pins
        assert cells['%s_dma_irq' % region].startswith(
            'xilinx.com:ip:util_vector_logic:')
        for pin in ('%s_dma/mm2s_introut', '%s_dma/s2mm_introut',
                    '%s_dma_irq/Res'):
            assert pin % region in pins
    ports = [w for w in commands(record, 'set_property')
             if w[1] == 'CONFIG.NUM_PORTS']
    assert [w[2] for w in ports] == [str(len(regions))]
    assert any(w[1] == '-dict' and 'CONFIG.C_OPERATION or' in w[2]
               for w in commands(record, 'set_property'))


# --- the manifest writer, on real Vivado partials
# -------------------------------------------

def run_writer(out_dir, *extra):
    return subprocess.run(
        [
            sys.executable,
            str(VIVADO / 'write_manifest.py'),
            str(out_dir),
            *map(str, extra),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


def build_partial(path, footprint, module_id, tmp_path):
    footprint_file = tmp_path / (path.name + '.footprint.json')
    footprint_file.write_text(json.dumps(footprint.to_dict()))
    cli = shutil.which(
        'nova-fpga-bitstream', path=str(pathlib.Path(sys.executable).parent)
    )
    subprocess.run(
        [
            cli,
            'build',
            '--part',
            '7z020clg400',
            '--design',
            'nova_shell',
            '--module-id',
            '0x%08X' % module_id,
            '--footprint',
            str(footprint_file),
            '-o',
            str(path),
        ],
        check=True,
        capture_output=True,
    )


@pytest.fixture
def partials(tmp_path):
    """A build output: the real pr_0 partials as rp0's, a builder-made vTC
    partial for rp1.
    """
    out = tmp_path / 'out'
    out.mkdir()
    for module in ('add', 'sub'):
        shutil.copy(
            realdata_path(
                'bitstreams', 'royforu_pynq_pr', 'pr_0_%s.bit' % module
            ),
            out / ('rp0_%s.bit' % module),
        )
    reference = shell.load(shell.REFERENCE)
    build_partial(out / 'rp1_vtc.bit', reference.region('rp1').footprint,
                  catalogue.module_id('vtc'), tmp_path)
    return out


def test_manifest_from_real_partials_is_a_valid_shell(partials, tmp_path):
    manifest_path = tmp_path / 'shell.json'
    shell_id = '0b7c5d3e-1f2a-4b6c-8d9e-0a1b2c3d4e5f'
    result = run_writer(partials, '-o', manifest_path, '--shell-id', shell_id)
    assert result.returncode == 0, result.stderr
    written = shell.load(manifest_path)
    reference = shell.load(shell.REFERENCE)
    assert written.shell_id == shell_id and written.part == reference.part
    for mine, theirs in zip(written.regions, reference.regions):
        # rp0's footprint is read from the real Vivado partials: the reference
        # shell's rp0
        assert mine.footprint == theirs.footprint
        assert (
            mine.decoupler_base,
            mine.module_base,
            mine.window_size,
            mine.dma_channel,
            mine.vlan,
        ) == (
            theirs.decoupler_base,
            theirs.module_base,
            theirs.window_size,
            theirs.dma_channel,
            theirs.vlan,
        )
    raw = json.loads(manifest_path.read_text())
    assert 'rp0_add.bit, rp0_sub.bit' in raw['regions'][0]['footprint_source']
    # without --shell-id every build is a new shell
    again = tmp_path / 'again.json'
    assert run_writer(partials, '-o', again).returncode == 0
    assert shell.load(again).shell_id not in (shell_id, reference.shell_id)


def test_manifest_writer_refuses_inconsistent_partials(partials, tmp_path):
    reference = shell.load(shell.REFERENCE)
    out = tmp_path / 'm.json'
    # a region whose partials write different frames
    build_partial(
        partials / 'rp0_wrong.bit',
        reference.region('rp1').footprint,
        catalogue.module_id('loopback'),
        tmp_path,
    )
    result = run_writer(partials, '-o', out)
    assert result.returncode == 1 and 'different footprints' in result.stderr
    (partials / 'rp0_wrong.bit').unlink()
    # a full bitstream among the partials
    shutil.copy(realdata_path('bitstreams', 'royforu_pynq_pr', 'prio.bit'),
                partials / 'rp0_full.bit')
    result = run_writer(partials, '-o', out)
    assert result.returncode == 1 and 'not a partial' in result.stderr
    (partials / 'rp0_full.bit').unlink()
    # a region without partials
    (partials / 'rp1_vtc.bit').unlink()
    result = run_writer(partials, '-o', out)
    assert (
        result.returncode == 1
        and 'no partial bitstream for region rp1' in result.stderr
    )
    # not a bitstream at all
    (partials / 'rp1_vtc.bit').write_bytes(b'\0' * 1024)
    result = run_writer(partials, '-o', out)
    assert result.returncode == 1 and 'not a valid bitstream' in result.stderr
    assert not out.exists()
