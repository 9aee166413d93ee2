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
 * A reconfigurable region as the static shell sees it: the region's
 * decoupler in front of the module loaded into it.
 *
 * The board emulator runs this, not the bare module, so decoupling, the
 * region reset it implies and the DECERR answers while decoupled come from
 * region_decoupler.v itself.  The module is chosen at build time with
 * +define+REGION_MODULE=<top> (the bridge takes it from the module
 * registry); it must follow the module interface in hdl/README.md.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

`ifndef REGION_MODULE
`define REGION_MODULE region_loopback
`endif

module region_slot #
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

    input  wire                       decouple,
    output wire                       decouple_status,
    // one-cycle pulses for the shell's counters (see region_decoupler.v)
    output wire                       ingress_frame_cut,
    output wire                       egress_frame_cut,
    output wire                       egress_frame_oversize,

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

wire rp_aresetn;

wire [DATA_WIDTH-1:0]      rp_in_tdata;
wire [KEEP_WIDTH-1:0]      rp_in_tkeep;
wire                       rp_in_tvalid, rp_in_tready, rp_in_tlast;
wire [DATA_WIDTH-1:0]      rp_out_tdata;
wire [KEEP_WIDTH-1:0]      rp_out_tkeep;
wire                       rp_out_tvalid, rp_out_tready, rp_out_tlast;

wire [AXIL_ADDR_WIDTH-1:0] rp_awaddr, rp_araddr;
wire [2:0]                 rp_awprot, rp_arprot;
wire                       rp_awvalid, rp_awready, rp_wvalid, rp_wready;
wire [31:0]                rp_wdata, rp_rdata;
wire [3:0]                 rp_wstrb;
wire [1:0]                 rp_bresp, rp_rresp;
wire                       rp_bvalid, rp_bready, rp_arvalid, rp_arready;
wire                       rp_rvalid, rp_rready;

region_decoupler #(
    .DATA_WIDTH(DATA_WIDTH),
    .AXIL_ADDR_WIDTH(AXIL_ADDR_WIDTH)
)
decoupler_inst (
    .aclk(aclk),
    .aresetn(aresetn),
    .decouple(decouple),
    .decouple_status(decouple_status),
    .rp_aresetn(rp_aresetn),
    .ingress_frame_cut(ingress_frame_cut),
    .egress_frame_cut(egress_frame_cut),
    .egress_frame_oversize(egress_frame_oversize),
    .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid), .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .m_rp_axis_tdata(rp_in_tdata), .m_rp_axis_tkeep(rp_in_tkeep),
    .m_rp_axis_tvalid(rp_in_tvalid), .m_rp_axis_tready(rp_in_tready),
    .m_rp_axis_tlast(rp_in_tlast),
    .s_rp_axis_tdata(rp_out_tdata), .s_rp_axis_tkeep(rp_out_tkeep),
    .s_rp_axis_tvalid(rp_out_tvalid), .s_rp_axis_tready(rp_out_tready),
    .s_rp_axis_tlast(rp_out_tlast),
    .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid), .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
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
    .m_rp_axil_awaddr(rp_awaddr), .m_rp_axil_awprot(rp_awprot),
    .m_rp_axil_awvalid(rp_awvalid), .m_rp_axil_awready(rp_awready),
    .m_rp_axil_wdata(rp_wdata), .m_rp_axil_wstrb(rp_wstrb),
    .m_rp_axil_wvalid(rp_wvalid), .m_rp_axil_wready(rp_wready),
    .m_rp_axil_bresp(rp_bresp), .m_rp_axil_bvalid(rp_bvalid),
    .m_rp_axil_bready(rp_bready),
    .m_rp_axil_araddr(rp_araddr), .m_rp_axil_arprot(rp_arprot),
    .m_rp_axil_arvalid(rp_arvalid), .m_rp_axil_arready(rp_arready),
    .m_rp_axil_rdata(rp_rdata), .m_rp_axil_rresp(rp_rresp),
    .m_rp_axil_rvalid(rp_rvalid), .m_rp_axil_rready(rp_rready)
);

`REGION_MODULE #(
    .DATA_WIDTH(DATA_WIDTH),
    .AXIL_ADDR_WIDTH(AXIL_ADDR_WIDTH),
    .MODULE_ID(MODULE_ID),
    .MODULE_VERSION(MODULE_VERSION)
)
module_inst (
    .aclk(aclk),
    .aresetn(rp_aresetn),
    .s_axis_tdata(rp_in_tdata), .s_axis_tkeep(rp_in_tkeep),
    .s_axis_tvalid(rp_in_tvalid), .s_axis_tready(rp_in_tready),
    .s_axis_tlast(rp_in_tlast),
    .m_axis_tdata(rp_out_tdata), .m_axis_tkeep(rp_out_tkeep),
    .m_axis_tvalid(rp_out_tvalid), .m_axis_tready(rp_out_tready),
    .m_axis_tlast(rp_out_tlast),
    .s_axil_awaddr(rp_awaddr), .s_axil_awprot(rp_awprot),
    .s_axil_awvalid(rp_awvalid), .s_axil_awready(rp_awready),
    .s_axil_wdata(rp_wdata), .s_axil_wstrb(rp_wstrb),
    .s_axil_wvalid(rp_wvalid), .s_axil_wready(rp_wready),
    .s_axil_bresp(rp_bresp), .s_axil_bvalid(rp_bvalid),
    .s_axil_bready(rp_bready),
    .s_axil_araddr(rp_araddr), .s_axil_arprot(rp_arprot),
    .s_axil_arvalid(rp_arvalid), .s_axil_arready(rp_arready),
    .s_axil_rdata(rp_rdata), .s_axil_rresp(rp_rresp),
    .s_axil_rvalid(rp_rvalid), .s_axil_rready(rp_rready)
);

endmodule

`resetall
