// Licensed under the Apache License, Version 2.0 (the "License"); you may
// not use this file except in compliance with the License. You may obtain
// a copy of the License at
//
//      http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
// WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
// License for the specific language governing permissions and limitations
// under the License.

/*
 * Loopback region module: the "dummy VNFC".
 *
 * Returns every frame unchanged at one beat per cycle (through a register
 * slice, so the region's stream outputs are registered) and counts the
 * frames and bytes it has sent (region_regs: the common register block is
 * its whole register map).  Follows the module interface and register map
 * in hdl/README.md.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module region_loopback #
(
    // AXI4-Stream data width in bits (a multiple of 8)
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    // AXI4-Lite address width: the region's register window is 2**AXIL_ADDR_WIDTH bytes
    parameter AXIL_ADDR_WIDTH = 12,
    // register 0: the bitstream's UserID (0xFFFFFFFF = not declared); set from the module registry
    parameter [31:0] MODULE_ID = 32'hFFFFFFFF,
    // register 1: major << 16 | minor; set from the module registry
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

wire rst = !aresetn;

axis_register #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH)
)
loop_reg (
    .clk(aclk),
    .rst(rst),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast)
);

// the common registers are all the loopback has: every offset from 0x20 up is unmapped
/* verilator lint_off UNUSEDSIGNAL */
wire                       user_wr_en;
wire [AXIL_ADDR_WIDTH-1:0] user_wr_addr;
wire [31:0]                user_wr_data;
wire [3:0]                 user_wr_strb;
wire                       user_rd_en;
wire [AXIL_ADDR_WIDTH-1:0] user_rd_addr;
wire                       clear_counters;
/* verilator lint_on UNUSEDSIGNAL */

region_regs #(
    .KEEP_WIDTH(KEEP_WIDTH),
    .AXIL_ADDR_WIDTH(AXIL_ADDR_WIDTH),
    .MODULE_ID(MODULE_ID),
    .MODULE_VERSION(MODULE_VERSION)
)
regs (
    .clk(aclk),
    .rst(rst),
    .s_axil_awaddr(s_axil_awaddr),
    .s_axil_awprot(s_axil_awprot),
    .s_axil_awvalid(s_axil_awvalid),
    .s_axil_awready(s_axil_awready),
    .s_axil_wdata(s_axil_wdata),
    .s_axil_wstrb(s_axil_wstrb),
    .s_axil_wvalid(s_axil_wvalid),
    .s_axil_wready(s_axil_wready),
    .s_axil_bresp(s_axil_bresp),
    .s_axil_bvalid(s_axil_bvalid),
    .s_axil_bready(s_axil_bready),
    .s_axil_araddr(s_axil_araddr),
    .s_axil_arprot(s_axil_arprot),
    .s_axil_arvalid(s_axil_arvalid),
    .s_axil_arready(s_axil_arready),
    .s_axil_rdata(s_axil_rdata),
    .s_axil_rresp(s_axil_rresp),
    .s_axil_rvalid(s_axil_rvalid),
    .s_axil_rready(s_axil_rready),
    .in_beat(s_axis_tvalid && s_axis_tready),
    .in_tlast(s_axis_tlast),
    .out_beat(m_axis_tvalid && m_axis_tready),
    .out_tkeep(m_axis_tkeep),
    .out_tlast(m_axis_tlast),
    .status_user(30'd0),
    .clear_counters(clear_counters),
    .user_wr_en(user_wr_en),
    .user_wr_addr(user_wr_addr),
    .user_wr_data(user_wr_data),
    .user_wr_strb(user_wr_strb),
    .user_wr_err(1'b1),
    .user_rd_en(user_rd_en),
    .user_rd_addr(user_rd_addr),
    .user_rd_data(32'd0),
    .user_rd_err(1'b1)
);

endmodule

`resetall
