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
 * The static shell around the two reconfigurable regions.
 *
 * bd_i is the block design (shell_bd.tcl): PS7, one AXI DMA per region on an
 * HP port, the GP0 register interconnect, and one AXI GPIO per region whose
 * output bit 0 decouples the region and whose input bit 0 reads the
 * decoupler's status back.  Per region, region_decoupler.v sits between the
 * DMA channel / register window and the partition (rpN_partition.v), as
 * region_slot.v does in the emulator.  The register windows are 64 KiB in the
 * address map (the shell manifest's "window"); the module decodes the low
 * AXIL_ADDR_WIDTH bits, so its 4 KiB of registers repeat across the window.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module nova_shell #
(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    parameter AXIL_ADDR_WIDTH = 12,
    // address width of the block design's register ports (64 KiB windows)
    parameter BD_AXIL_ADDR_WIDTH = 16
)
(
    inout  wire [14:0]   DDR_addr,
    inout  wire [2:0]    DDR_ba,
    inout  wire          DDR_cas_n,
    inout  wire          DDR_ck_n,
    inout  wire          DDR_ck_p,
    inout  wire          DDR_cke,
    inout  wire          DDR_cs_n,
    inout  wire [3:0]    DDR_dm,
    inout  wire [31:0]   DDR_dq,
    inout  wire [3:0]    DDR_dqs_n,
    inout  wire [3:0]    DDR_dqs_p,
    inout  wire          DDR_odt,
    inout  wire          DDR_ras_n,
    inout  wire          DDR_reset_n,
    inout  wire          DDR_we_n,
    inout  wire          FIXED_IO_ddr_vrn,
    inout  wire          FIXED_IO_ddr_vrp,
    inout  wire [53:0]   FIXED_IO_mio,
    inout  wire          FIXED_IO_ps_clk,
    inout  wire          FIXED_IO_ps_porb,
    inout  wire          FIXED_IO_ps_srstb
);

wire aclk;
wire aresetn;

// rp0: DMA channel, register window and decoupler control from the block design
wire [DATA_WIDTH-1:0]  rp0_mm2s_tdata, rp0_s2mm_tdata;
wire [KEEP_WIDTH-1:0]  rp0_mm2s_tkeep, rp0_s2mm_tkeep;
wire                   rp0_mm2s_tvalid, rp0_mm2s_tready, rp0_mm2s_tlast;
wire                   rp0_s2mm_tvalid, rp0_s2mm_tready, rp0_s2mm_tlast;
// the module decodes the low AXIL_ADDR_WIDTH bits of its window
/* verilator lint_off UNUSEDSIGNAL */
wire [BD_AXIL_ADDR_WIDTH-1:0] rp0_axil_awaddr, rp0_axil_araddr;
/* verilator lint_on UNUSEDSIGNAL */
wire [2:0]             rp0_axil_awprot, rp0_axil_arprot;
wire                   rp0_axil_awvalid, rp0_axil_awready, rp0_axil_wvalid, rp0_axil_wready;
wire [31:0]            rp0_axil_wdata, rp0_axil_rdata;
wire [3:0]             rp0_axil_wstrb;
wire [1:0]             rp0_axil_bresp, rp0_axil_rresp;
wire                   rp0_axil_bvalid, rp0_axil_bready, rp0_axil_arvalid, rp0_axil_arready;
wire                   rp0_axil_rvalid, rp0_axil_rready;
wire [0:0]             rp0_decouple, rp0_decouple_status;

// rp1: DMA channel, register window and decoupler control from the block design
wire [DATA_WIDTH-1:0]  rp1_mm2s_tdata, rp1_s2mm_tdata;
wire [KEEP_WIDTH-1:0]  rp1_mm2s_tkeep, rp1_s2mm_tkeep;
wire                   rp1_mm2s_tvalid, rp1_mm2s_tready, rp1_mm2s_tlast;
wire                   rp1_s2mm_tvalid, rp1_s2mm_tready, rp1_s2mm_tlast;
// the module decodes the low AXIL_ADDR_WIDTH bits of its window
/* verilator lint_off UNUSEDSIGNAL */
wire [BD_AXIL_ADDR_WIDTH-1:0] rp1_axil_awaddr, rp1_axil_araddr;
/* verilator lint_on UNUSEDSIGNAL */
wire [2:0]             rp1_axil_awprot, rp1_axil_arprot;
wire                   rp1_axil_awvalid, rp1_axil_awready, rp1_axil_wvalid, rp1_axil_wready;
wire [31:0]            rp1_axil_wdata, rp1_axil_rdata;
wire [3:0]             rp1_axil_wstrb;
wire [1:0]             rp1_axil_bresp, rp1_axil_rresp;
wire                   rp1_axil_bvalid, rp1_axil_bready, rp1_axil_arvalid, rp1_axil_arready;
wire                   rp1_axil_rvalid, rp1_axil_rready;
wire [0:0]             rp1_decouple, rp1_decouple_status;

shell_bd bd_i (
    .DDR_addr(DDR_addr),
    .DDR_ba(DDR_ba),
    .DDR_cas_n(DDR_cas_n),
    .DDR_ck_n(DDR_ck_n),
    .DDR_ck_p(DDR_ck_p),
    .DDR_cke(DDR_cke),
    .DDR_cs_n(DDR_cs_n),
    .DDR_dm(DDR_dm),
    .DDR_dq(DDR_dq),
    .DDR_dqs_n(DDR_dqs_n),
    .DDR_dqs_p(DDR_dqs_p),
    .DDR_odt(DDR_odt),
    .DDR_ras_n(DDR_ras_n),
    .DDR_reset_n(DDR_reset_n),
    .DDR_we_n(DDR_we_n),
    .FIXED_IO_ddr_vrn(FIXED_IO_ddr_vrn),
    .FIXED_IO_ddr_vrp(FIXED_IO_ddr_vrp),
    .FIXED_IO_mio(FIXED_IO_mio),
    .FIXED_IO_ps_clk(FIXED_IO_ps_clk),
    .FIXED_IO_ps_porb(FIXED_IO_ps_porb),
    .FIXED_IO_ps_srstb(FIXED_IO_ps_srstb),
    .shell_aclk(aclk),
    .shell_aresetn(aresetn),
    .rp0_mm2s_tdata(rp0_mm2s_tdata),
    .rp0_mm2s_tkeep(rp0_mm2s_tkeep),
    .rp0_mm2s_tvalid(rp0_mm2s_tvalid),
    .rp0_mm2s_tready(rp0_mm2s_tready),
    .rp0_mm2s_tlast(rp0_mm2s_tlast),
    .rp0_s2mm_tdata(rp0_s2mm_tdata),
    .rp0_s2mm_tkeep(rp0_s2mm_tkeep),
    .rp0_s2mm_tvalid(rp0_s2mm_tvalid),
    .rp0_s2mm_tready(rp0_s2mm_tready),
    .rp0_s2mm_tlast(rp0_s2mm_tlast),
    .rp0_axil_awaddr(rp0_axil_awaddr),
    .rp0_axil_awprot(rp0_axil_awprot),
    .rp0_axil_awvalid(rp0_axil_awvalid),
    .rp0_axil_awready(rp0_axil_awready),
    .rp0_axil_wdata(rp0_axil_wdata),
    .rp0_axil_wstrb(rp0_axil_wstrb),
    .rp0_axil_wvalid(rp0_axil_wvalid),
    .rp0_axil_wready(rp0_axil_wready),
    .rp0_axil_bresp(rp0_axil_bresp),
    .rp0_axil_bvalid(rp0_axil_bvalid),
    .rp0_axil_bready(rp0_axil_bready),
    .rp0_axil_araddr(rp0_axil_araddr),
    .rp0_axil_arprot(rp0_axil_arprot),
    .rp0_axil_arvalid(rp0_axil_arvalid),
    .rp0_axil_arready(rp0_axil_arready),
    .rp0_axil_rdata(rp0_axil_rdata),
    .rp0_axil_rresp(rp0_axil_rresp),
    .rp0_axil_rvalid(rp0_axil_rvalid),
    .rp0_axil_rready(rp0_axil_rready),
    .rp0_decouple(rp0_decouple),
    .rp0_decouple_status(rp0_decouple_status),
    .rp1_mm2s_tdata(rp1_mm2s_tdata),
    .rp1_mm2s_tkeep(rp1_mm2s_tkeep),
    .rp1_mm2s_tvalid(rp1_mm2s_tvalid),
    .rp1_mm2s_tready(rp1_mm2s_tready),
    .rp1_mm2s_tlast(rp1_mm2s_tlast),
    .rp1_s2mm_tdata(rp1_s2mm_tdata),
    .rp1_s2mm_tkeep(rp1_s2mm_tkeep),
    .rp1_s2mm_tvalid(rp1_s2mm_tvalid),
    .rp1_s2mm_tready(rp1_s2mm_tready),
    .rp1_s2mm_tlast(rp1_s2mm_tlast),
    .rp1_axil_awaddr(rp1_axil_awaddr),
    .rp1_axil_awprot(rp1_axil_awprot),
    .rp1_axil_awvalid(rp1_axil_awvalid),
    .rp1_axil_awready(rp1_axil_awready),
    .rp1_axil_wdata(rp1_axil_wdata),
    .rp1_axil_wstrb(rp1_axil_wstrb),
    .rp1_axil_wvalid(rp1_axil_wvalid),
    .rp1_axil_wready(rp1_axil_wready),
    .rp1_axil_bresp(rp1_axil_bresp),
    .rp1_axil_bvalid(rp1_axil_bvalid),
    .rp1_axil_bready(rp1_axil_bready),
    .rp1_axil_araddr(rp1_axil_araddr),
    .rp1_axil_arprot(rp1_axil_arprot),
    .rp1_axil_arvalid(rp1_axil_arvalid),
    .rp1_axil_arready(rp1_axil_arready),
    .rp1_axil_rdata(rp1_axil_rdata),
    .rp1_axil_rresp(rp1_axil_rresp),
    .rp1_axil_rvalid(rp1_axil_rvalid),
    .rp1_axil_rready(rp1_axil_rready),
    .rp1_decouple(rp1_decouple),
    .rp1_decouple_status(rp1_decouple_status)
);

// rp0: the decoupler (static) in front of the partition (reconfigurable)
wire                       rp0_rp_aresetn;
wire [DATA_WIDTH-1:0]      rp0_rp_in_tdata, rp0_rp_out_tdata;
wire [KEEP_WIDTH-1:0]      rp0_rp_in_tkeep, rp0_rp_out_tkeep;
wire                       rp0_rp_in_tvalid, rp0_rp_in_tready, rp0_rp_in_tlast;
wire                       rp0_rp_out_tvalid, rp0_rp_out_tready, rp0_rp_out_tlast;
wire [AXIL_ADDR_WIDTH-1:0] rp0_rp_axil_awaddr, rp0_rp_axil_araddr;
wire [2:0]                 rp0_rp_axil_awprot, rp0_rp_axil_arprot;
wire                       rp0_rp_axil_awvalid, rp0_rp_axil_awready, rp0_rp_axil_wvalid, rp0_rp_axil_wready;
wire [31:0]                rp0_rp_axil_wdata, rp0_rp_axil_rdata;
wire [3:0]                 rp0_rp_axil_wstrb;
wire [1:0]                 rp0_rp_axil_bresp, rp0_rp_axil_rresp;
wire                       rp0_rp_axil_bvalid, rp0_rp_axil_bready, rp0_rp_axil_arvalid, rp0_rp_axil_arready;
wire                       rp0_rp_axil_rvalid, rp0_rp_axil_rready;

region_decoupler #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .AXIL_ADDR_WIDTH(AXIL_ADDR_WIDTH)
)
rp0_decoupler (
    .aclk(aclk),
    .aresetn(aresetn),
    .decouple(rp0_decouple[0]),
    .decouple_status(rp0_decouple_status[0]),
    .rp_aresetn(rp0_rp_aresetn),
    // the frame-cut pulses are not counted by this shell
    /* verilator lint_off PINCONNECTEMPTY */
    .ingress_frame_cut(),
    .egress_frame_cut(),
    .egress_frame_oversize(),
    /* verilator lint_on PINCONNECTEMPTY */
    .s_axis_tdata(rp0_mm2s_tdata),
    .s_axis_tkeep(rp0_mm2s_tkeep),
    .s_axis_tvalid(rp0_mm2s_tvalid),
    .s_axis_tready(rp0_mm2s_tready),
    .s_axis_tlast(rp0_mm2s_tlast),
    .m_rp_axis_tdata(rp0_rp_in_tdata),
    .m_rp_axis_tkeep(rp0_rp_in_tkeep),
    .m_rp_axis_tvalid(rp0_rp_in_tvalid),
    .m_rp_axis_tready(rp0_rp_in_tready),
    .m_rp_axis_tlast(rp0_rp_in_tlast),
    .s_rp_axis_tdata(rp0_rp_out_tdata),
    .s_rp_axis_tkeep(rp0_rp_out_tkeep),
    .s_rp_axis_tvalid(rp0_rp_out_tvalid),
    .s_rp_axis_tready(rp0_rp_out_tready),
    .s_rp_axis_tlast(rp0_rp_out_tlast),
    .m_axis_tdata(rp0_s2mm_tdata),
    .m_axis_tkeep(rp0_s2mm_tkeep),
    .m_axis_tvalid(rp0_s2mm_tvalid),
    .m_axis_tready(rp0_s2mm_tready),
    .m_axis_tlast(rp0_s2mm_tlast),
    .s_axil_awaddr(rp0_axil_awaddr[AXIL_ADDR_WIDTH-1:0]),
    .s_axil_awprot(rp0_axil_awprot),
    .s_axil_awvalid(rp0_axil_awvalid),
    .s_axil_awready(rp0_axil_awready),
    .s_axil_wdata(rp0_axil_wdata),
    .s_axil_wstrb(rp0_axil_wstrb),
    .s_axil_wvalid(rp0_axil_wvalid),
    .s_axil_wready(rp0_axil_wready),
    .s_axil_bresp(rp0_axil_bresp),
    .s_axil_bvalid(rp0_axil_bvalid),
    .s_axil_bready(rp0_axil_bready),
    .s_axil_araddr(rp0_axil_araddr[AXIL_ADDR_WIDTH-1:0]),
    .s_axil_arprot(rp0_axil_arprot),
    .s_axil_arvalid(rp0_axil_arvalid),
    .s_axil_arready(rp0_axil_arready),
    .s_axil_rdata(rp0_axil_rdata),
    .s_axil_rresp(rp0_axil_rresp),
    .s_axil_rvalid(rp0_axil_rvalid),
    .s_axil_rready(rp0_axil_rready),
    .m_rp_axil_awaddr(rp0_rp_axil_awaddr),
    .m_rp_axil_awprot(rp0_rp_axil_awprot),
    .m_rp_axil_awvalid(rp0_rp_axil_awvalid),
    .m_rp_axil_awready(rp0_rp_axil_awready),
    .m_rp_axil_wdata(rp0_rp_axil_wdata),
    .m_rp_axil_wstrb(rp0_rp_axil_wstrb),
    .m_rp_axil_wvalid(rp0_rp_axil_wvalid),
    .m_rp_axil_wready(rp0_rp_axil_wready),
    .m_rp_axil_bresp(rp0_rp_axil_bresp),
    .m_rp_axil_bvalid(rp0_rp_axil_bvalid),
    .m_rp_axil_bready(rp0_rp_axil_bready),
    .m_rp_axil_araddr(rp0_rp_axil_araddr),
    .m_rp_axil_arprot(rp0_rp_axil_arprot),
    .m_rp_axil_arvalid(rp0_rp_axil_arvalid),
    .m_rp_axil_arready(rp0_rp_axil_arready),
    .m_rp_axil_rdata(rp0_rp_axil_rdata),
    .m_rp_axil_rresp(rp0_rp_axil_rresp),
    .m_rp_axil_rvalid(rp0_rp_axil_rvalid),
    .m_rp_axil_rready(rp0_rp_axil_rready)
);

rp0_partition #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .AXIL_ADDR_WIDTH(AXIL_ADDR_WIDTH)
)
rp0 (
    .aclk(aclk),
    .aresetn(rp0_rp_aresetn),
    .s_axis_tdata(rp0_rp_in_tdata),
    .s_axis_tkeep(rp0_rp_in_tkeep),
    .s_axis_tvalid(rp0_rp_in_tvalid),
    .s_axis_tready(rp0_rp_in_tready),
    .s_axis_tlast(rp0_rp_in_tlast),
    .m_axis_tdata(rp0_rp_out_tdata),
    .m_axis_tkeep(rp0_rp_out_tkeep),
    .m_axis_tvalid(rp0_rp_out_tvalid),
    .m_axis_tready(rp0_rp_out_tready),
    .m_axis_tlast(rp0_rp_out_tlast),
    .s_axil_awaddr(rp0_rp_axil_awaddr),
    .s_axil_awprot(rp0_rp_axil_awprot),
    .s_axil_awvalid(rp0_rp_axil_awvalid),
    .s_axil_awready(rp0_rp_axil_awready),
    .s_axil_wdata(rp0_rp_axil_wdata),
    .s_axil_wstrb(rp0_rp_axil_wstrb),
    .s_axil_wvalid(rp0_rp_axil_wvalid),
    .s_axil_wready(rp0_rp_axil_wready),
    .s_axil_bresp(rp0_rp_axil_bresp),
    .s_axil_bvalid(rp0_rp_axil_bvalid),
    .s_axil_bready(rp0_rp_axil_bready),
    .s_axil_araddr(rp0_rp_axil_araddr),
    .s_axil_arprot(rp0_rp_axil_arprot),
    .s_axil_arvalid(rp0_rp_axil_arvalid),
    .s_axil_arready(rp0_rp_axil_arready),
    .s_axil_rdata(rp0_rp_axil_rdata),
    .s_axil_rresp(rp0_rp_axil_rresp),
    .s_axil_rvalid(rp0_rp_axil_rvalid),
    .s_axil_rready(rp0_rp_axil_rready)
);

// rp1: the decoupler (static) in front of the partition (reconfigurable)
wire                       rp1_rp_aresetn;
wire [DATA_WIDTH-1:0]      rp1_rp_in_tdata, rp1_rp_out_tdata;
wire [KEEP_WIDTH-1:0]      rp1_rp_in_tkeep, rp1_rp_out_tkeep;
wire                       rp1_rp_in_tvalid, rp1_rp_in_tready, rp1_rp_in_tlast;
wire                       rp1_rp_out_tvalid, rp1_rp_out_tready, rp1_rp_out_tlast;
wire [AXIL_ADDR_WIDTH-1:0] rp1_rp_axil_awaddr, rp1_rp_axil_araddr;
wire [2:0]                 rp1_rp_axil_awprot, rp1_rp_axil_arprot;
wire                       rp1_rp_axil_awvalid, rp1_rp_axil_awready, rp1_rp_axil_wvalid, rp1_rp_axil_wready;
wire [31:0]                rp1_rp_axil_wdata, rp1_rp_axil_rdata;
wire [3:0]                 rp1_rp_axil_wstrb;
wire [1:0]                 rp1_rp_axil_bresp, rp1_rp_axil_rresp;
wire                       rp1_rp_axil_bvalid, rp1_rp_axil_bready, rp1_rp_axil_arvalid, rp1_rp_axil_arready;
wire                       rp1_rp_axil_rvalid, rp1_rp_axil_rready;

region_decoupler #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .AXIL_ADDR_WIDTH(AXIL_ADDR_WIDTH)
)
rp1_decoupler (
    .aclk(aclk),
    .aresetn(aresetn),
    .decouple(rp1_decouple[0]),
    .decouple_status(rp1_decouple_status[0]),
    .rp_aresetn(rp1_rp_aresetn),
    // the frame-cut pulses are not counted by this shell
    /* verilator lint_off PINCONNECTEMPTY */
    .ingress_frame_cut(),
    .egress_frame_cut(),
    .egress_frame_oversize(),
    /* verilator lint_on PINCONNECTEMPTY */
    .s_axis_tdata(rp1_mm2s_tdata),
    .s_axis_tkeep(rp1_mm2s_tkeep),
    .s_axis_tvalid(rp1_mm2s_tvalid),
    .s_axis_tready(rp1_mm2s_tready),
    .s_axis_tlast(rp1_mm2s_tlast),
    .m_rp_axis_tdata(rp1_rp_in_tdata),
    .m_rp_axis_tkeep(rp1_rp_in_tkeep),
    .m_rp_axis_tvalid(rp1_rp_in_tvalid),
    .m_rp_axis_tready(rp1_rp_in_tready),
    .m_rp_axis_tlast(rp1_rp_in_tlast),
    .s_rp_axis_tdata(rp1_rp_out_tdata),
    .s_rp_axis_tkeep(rp1_rp_out_tkeep),
    .s_rp_axis_tvalid(rp1_rp_out_tvalid),
    .s_rp_axis_tready(rp1_rp_out_tready),
    .s_rp_axis_tlast(rp1_rp_out_tlast),
    .m_axis_tdata(rp1_s2mm_tdata),
    .m_axis_tkeep(rp1_s2mm_tkeep),
    .m_axis_tvalid(rp1_s2mm_tvalid),
    .m_axis_tready(rp1_s2mm_tready),
    .m_axis_tlast(rp1_s2mm_tlast),
    .s_axil_awaddr(rp1_axil_awaddr[AXIL_ADDR_WIDTH-1:0]),
    .s_axil_awprot(rp1_axil_awprot),
    .s_axil_awvalid(rp1_axil_awvalid),
    .s_axil_awready(rp1_axil_awready),
    .s_axil_wdata(rp1_axil_wdata),
    .s_axil_wstrb(rp1_axil_wstrb),
    .s_axil_wvalid(rp1_axil_wvalid),
    .s_axil_wready(rp1_axil_wready),
    .s_axil_bresp(rp1_axil_bresp),
    .s_axil_bvalid(rp1_axil_bvalid),
    .s_axil_bready(rp1_axil_bready),
    .s_axil_araddr(rp1_axil_araddr[AXIL_ADDR_WIDTH-1:0]),
    .s_axil_arprot(rp1_axil_arprot),
    .s_axil_arvalid(rp1_axil_arvalid),
    .s_axil_arready(rp1_axil_arready),
    .s_axil_rdata(rp1_axil_rdata),
    .s_axil_rresp(rp1_axil_rresp),
    .s_axil_rvalid(rp1_axil_rvalid),
    .s_axil_rready(rp1_axil_rready),
    .m_rp_axil_awaddr(rp1_rp_axil_awaddr),
    .m_rp_axil_awprot(rp1_rp_axil_awprot),
    .m_rp_axil_awvalid(rp1_rp_axil_awvalid),
    .m_rp_axil_awready(rp1_rp_axil_awready),
    .m_rp_axil_wdata(rp1_rp_axil_wdata),
    .m_rp_axil_wstrb(rp1_rp_axil_wstrb),
    .m_rp_axil_wvalid(rp1_rp_axil_wvalid),
    .m_rp_axil_wready(rp1_rp_axil_wready),
    .m_rp_axil_bresp(rp1_rp_axil_bresp),
    .m_rp_axil_bvalid(rp1_rp_axil_bvalid),
    .m_rp_axil_bready(rp1_rp_axil_bready),
    .m_rp_axil_araddr(rp1_rp_axil_araddr),
    .m_rp_axil_arprot(rp1_rp_axil_arprot),
    .m_rp_axil_arvalid(rp1_rp_axil_arvalid),
    .m_rp_axil_arready(rp1_rp_axil_arready),
    .m_rp_axil_rdata(rp1_rp_axil_rdata),
    .m_rp_axil_rresp(rp1_rp_axil_rresp),
    .m_rp_axil_rvalid(rp1_rp_axil_rvalid),
    .m_rp_axil_rready(rp1_rp_axil_rready)
);

rp1_partition #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .AXIL_ADDR_WIDTH(AXIL_ADDR_WIDTH)
)
rp1 (
    .aclk(aclk),
    .aresetn(rp1_rp_aresetn),
    .s_axis_tdata(rp1_rp_in_tdata),
    .s_axis_tkeep(rp1_rp_in_tkeep),
    .s_axis_tvalid(rp1_rp_in_tvalid),
    .s_axis_tready(rp1_rp_in_tready),
    .s_axis_tlast(rp1_rp_in_tlast),
    .m_axis_tdata(rp1_rp_out_tdata),
    .m_axis_tkeep(rp1_rp_out_tkeep),
    .m_axis_tvalid(rp1_rp_out_tvalid),
    .m_axis_tready(rp1_rp_out_tready),
    .m_axis_tlast(rp1_rp_out_tlast),
    .s_axil_awaddr(rp1_rp_axil_awaddr),
    .s_axil_awprot(rp1_rp_axil_awprot),
    .s_axil_awvalid(rp1_rp_axil_awvalid),
    .s_axil_awready(rp1_rp_axil_awready),
    .s_axil_wdata(rp1_rp_axil_wdata),
    .s_axil_wstrb(rp1_rp_axil_wstrb),
    .s_axil_wvalid(rp1_rp_axil_wvalid),
    .s_axil_wready(rp1_rp_axil_wready),
    .s_axil_bresp(rp1_rp_axil_bresp),
    .s_axil_bvalid(rp1_rp_axil_bvalid),
    .s_axil_bready(rp1_rp_axil_bready),
    .s_axil_araddr(rp1_rp_axil_araddr),
    .s_axil_arprot(rp1_rp_axil_arprot),
    .s_axil_arvalid(rp1_rp_axil_arvalid),
    .s_axil_arready(rp1_rp_axil_arready),
    .s_axil_rdata(rp1_rp_axil_rdata),
    .s_axil_rresp(rp1_rp_axil_rresp),
    .s_axil_rvalid(rp1_rp_axil_rvalid),
    .s_axil_rready(rp1_rp_axil_rready)
);

endmodule

`resetall
