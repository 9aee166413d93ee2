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

"""A module the repository does not know, added only through a catalogue
entry and its Verilog in a directory of its own (as an operator would),
reaches every user of the catalogue: the board emulator runs its Verilog,
the agent's counter reader and the console know its counter, and the
Vivado module table carries it."""
import importlib.util
import subprocess
import sys

import pytest

from nova_fpga.bitstream import builder
from nova_fpga import catalogue
from nova_fpga.contract import reports
from nova_fpga.contract import shell
from nova_fpga.virt import console
from nova_fpga_emulator import board
from tests.conftest import HDL
from tests.conftest import ROOT

pytestmark = pytest.mark.hdl

TOY_ID = 0x4E467E57

ENTRY = '''
name = "toy"
module_id = 0x4E467E57
version = 0x00000001
description = "a pass-through that counts the frames arriving"
frames = "forwards every frame unchanged"

[hdl]
top = "toy_passthrough"
sources = ["toy_passthrough.v", "region_regs.v", "axil_reg_if.v"]

[[registers]]
name = "ARRIVALS"
offset = 0x20
access = "RO"
meaning = "frames taken on s_axis"

[[counters]]
name = "arrivals"
register = "ARRIVALS"
'''

VERILOG = '''
`resetall
`timescale 1ns / 1ps
`default_nettype none
module toy_passthrough #
(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    parameter AXIL_ADDR_WIDTH = 12,
    parameter [31:0] MODULE_ID = 32'hFFFFFFFF,
    parameter [31:0] MODULE_VERSION = 32'h00000000
)
(
    input  wire                       aclk,
    input  wire                       aresetn,
    input  wire [DATA_WIDTH-1:0]      s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]      s_axis_tkeep,
    input  wire                       s_axis_tvalid,
    output wire                       s_axis_tready,
    input  wire                       s_axis_tlast,
    output wire [DATA_WIDTH-1:0]      m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]      m_axis_tkeep,
    output wire                       m_axis_tvalid,
    input  wire                       m_axis_tready,
    output wire                       m_axis_tlast,
    input  wire [AXIL_ADDR_WIDTH-1:0] s_axil_awaddr,
    input  wire [2:0]                 s_axil_awprot,
    input  wire                       s_axil_awvalid,
    output wire                       s_axil_awready,
    input  wire [31:0]                s_axil_wdata,
    input  wire [3:0]                 s_axil_wstrb,
    input  wire                       s_axil_wvalid,
    output wire                       s_axil_wready,
    output wire [1:0]                 s_axil_bresp,
    output wire                       s_axil_bvalid,
    input  wire                       s_axil_bready,
    input  wire [AXIL_ADDR_WIDTH-1:0] s_axil_araddr,
    input  wire [2:0]                 s_axil_arprot,
    input  wire                       s_axil_arvalid,
    output wire                       s_axil_arready,
    output wire [31:0]                s_axil_rdata,
    output wire [1:0]                 s_axil_rresp,
    output wire                       s_axil_rvalid,
    input  wire                       s_axil_rready
);

assign m_axis_tdata = s_axis_tdata;
assign m_axis_tkeep = s_axis_tkeep;
assign m_axis_tvalid = s_axis_tvalid;
assign m_axis_tlast = s_axis_tlast;
assign s_axis_tready = m_axis_tready;

/* verilator lint_off UNUSEDSIGNAL */
wire                       user_wr_en;
wire [AXIL_ADDR_WIDTH-1:0] user_wr_addr;
wire [31:0]                user_wr_data;
wire [3:0]                 user_wr_strb;
wire                       user_rd_en;
/* verilator lint_on UNUSEDSIGNAL */
wire [AXIL_ADDR_WIDTH-1:0] user_rd_addr;
wire                       clear_counters;
reg  [31:0]                arrivals_reg = 32'd0;

always @(posedge aclk) begin
    if (!aresetn || clear_counters) begin
        arrivals_reg <= 32'd0;
    end else if (s_axis_tvalid && s_axis_tready && s_axis_tlast) begin
        arrivals_reg <= arrivals_reg + 32'd1;
    end
end

region_regs #(
    .KEEP_WIDTH(KEEP_WIDTH),
    .AXIL_ADDR_WIDTH(AXIL_ADDR_WIDTH),
    .MODULE_ID(MODULE_ID),
    .MODULE_VERSION(MODULE_VERSION)
)
regs (
    .clk(aclk), .rst(!aresetn),
    .s_axil_awaddr(s_axil_awaddr), .s_axil_awprot(s_axil_awprot),
    .s_axil_awvalid(s_axil_awvalid), .s_axil_awready(s_axil_awready),
    .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb),
    .s_axil_wvalid(s_axil_wvalid), .s_axil_wready(s_axil_wready),
    .s_axil_bresp(s_axil_bresp), .s_axil_bvalid(s_axil_bvalid),
    .s_axil_bready(s_axil_bready),
    .s_axil_araddr(s_axil_araddr), .s_axil_arprot(s_axil_arprot),
    .s_axil_arvalid(s_axil_arvalid), .s_axil_arready(s_axil_arready),
    .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp),
    .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready),
    .in_beat(s_axis_tvalid && s_axis_tready), .in_tlast(s_axis_tlast),
    .out_beat(m_axis_tvalid && m_axis_tready), .out_tkeep(m_axis_tkeep),
    .out_tlast(m_axis_tlast),
    .status_user(30'd0),
    .clear_counters(clear_counters),
    .user_wr_en(user_wr_en), .user_wr_addr(user_wr_addr),
    .user_wr_data(user_wr_data), .user_wr_strb(user_wr_strb),
    .user_wr_err(1'b1),
    .user_rd_en(user_rd_en), .user_rd_addr(user_rd_addr),
    .user_rd_data(arrivals_reg),
    .user_rd_err(user_rd_addr != 'h20)
);

endmodule
`resetall
'''


@pytest.fixture
def toy_dir(tmp_path):
    """The operator's directory: the entry and its Verilog, nothing else."""
    directory = tmp_path / 'toy'
    directory.mkdir()
    (directory / 'toy.toml').write_text(ENTRY)
    (directory / 'toy_passthrough.v').write_text(VERILOG)
    return directory


def test_toy_runs_in_the_emulator_and_shows_in_the_console(toy_dir, tmp_path):
    toys = catalogue.load([toy_dir])
    toy = toys.by_id(TOY_ID)
    paths = toy.source_paths(HDL / 'rtl')
    assert paths[0] == toy_dir / 'toy_passthrough.v'
    assert paths[1] == HDL / 'rtl' / 'region_regs.v'
    with pytest.raises(catalogue.UnknownModule, match='0x4E467E57'):
        catalogue.load().by_id(TOY_ID)

    reference = shell.load(shell.REFERENCE)
    partial = builder.build_partial('7z020clg400', 'toy_rp0', TOY_ID,
                                    reference.region('rp0').footprint)
    emu = board.EmulatedBoard(reference, 'xc7z020clg400-1', str(tmp_path),
                              pcap_rate=1000.0, module_catalogue=toys,
                              hdl_dir=HDL)
    emu.pcap_write(partial)
    assert emu.module_in('rp0') == TOY_ID
    emu.set_decoupled('rp0', False)
    emu.dma_start('rp0')
    frames = [bytes(range(60)), bytes(range(200)), b'\xAA' * 61]
    for frame in frames:
        assert emu.dma_transfer('rp0', frame) == [frame]

    # what the agent reports for the region, and what nova's console shows
    counters = toys.read_counters(TOY_ID,
                                  lambda off: emu.axil_read('rp0', off))
    assert counters == {'frames': 3, 'bytes': sum(map(len, frames)),
                        'arrivals': 3}
    stats = reports.RegionStats(region='rp0', state='ACTIVE',
                                module_id='0x%08X' % TOY_ID, module=counters)
    text = console.render('board0', stats, toys)
    assert 'module counters: frames 3, bytes 321' in text
    assert '  arrivals 3' in text.splitlines()
    # without its entry the console shows the value as an unknown counter
    assert '  arrivals = 3' in console.render('board0', stats,
                                              catalogue.load())


def test_toy_is_in_the_generated_vivado_table(toy_dir, tmp_path):
    out = tmp_path / 'out'
    result = subprocess.run(
        [sys.executable, str(ROOT / 'hdl' / 'generate.py'),
         '--catalogue-dir', str(toy_dir), '--out', str(out)],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    table = (out / 'hdl' / 'vivado' / 'modules.tcl').read_text()
    toy = table[table.index('    toy [dict create'):]
    assert 'top toy_passthrough' in toy and 'module_id 0x4E467E57' in toy
    assert 'sources {%s region_regs.v axil_reg_if.v}' % (
        toy_dir / 'toy_passthrough.v') in toy
    assert 'module_id 0x4E460002' in table  # the shipped modules stay
    assert (out / 'hdl' / 'rtl' / 'generated' / 'common_regs.vh').exists()
    # the documentation's module table (doc/source/reference) has its row
    spec = importlib.util.spec_from_file_location(
        'hdl_generate', ROOT / 'hdl' / 'generate.py')
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    rows = generate.register_tables(catalogue.load([str(toy_dir)]))
    assert any('`toy` | `0x4E467E57`' in row for row in rows['modules'])
    # the repository's own files are not touched by --out
    assert 'toy' not in (ROOT / 'hdl' / 'vivado' / 'modules.tcl').read_text()
