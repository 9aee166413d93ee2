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
 * Decoupler for one reconfigurable region (static shell side).
 *
 * Sits between the shell (AXI DMA, register interconnect) and a region.
 * While `decouple` is high the region is isolated and held in reset:
 *   - it sees no stream beats and none of its beats are taken
 *     (region-side tvalid and tready are forced low);
 *   - AXI4-Lite accesses to it are answered by the decoupler with DECERR
 *     and never reach it, including an access the region was still
 *     answering when decoupling began.
 * A frame cut in half is dropped whole, in either direction:
 *   - shell to region: the beats of the cut frame still to come from the
 *     shell are accepted and discarded up to its last beat (the source is
 *     never stalled mid-frame); the head already inside the region is
 *     cleared by the region reset.  A frame that has not started waits
 *     (tready low) until the region is coupled again.
 *   - region to shell: frames pass through a store-and-forward FIFO (16 KiB
 *     by default: jumbo frames of 9,018 B pass), so
 *     the shell only ever receives complete frames; the partial frame is
 *     dropped from the FIFO.  Complete frames already in the FIFO are
 *     still delivered while decoupled.
 * See hdl/README.md for the full contract.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module region_decoupler #
(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    parameter AXIL_ADDR_WIDTH = 12,
    // region-to-shell frame FIFO capacity in beats: the longest frame a region
    // can send.  16 KiB: a 9,018-byte jumbo frame (the vTC's and the data
    // mover's largest, issue 31) with room to spare at any data width; at
    // 64 bits 2,048 beats of 73 bits, about four RAMB36 (it was 512 beats,
    // 4 KiB, which dropped every frame of 4-9 KiB as oversize)
    parameter EGRESS_FIFO_DEPTH = 16384 / KEEP_WIDTH
)
(
    input  wire                       aclk,
    input  wire                       aresetn,

    input  wire                       decouple,
    output wire                       decouple_status,
    // region reset: low while decoupled (and while the shell is in reset)
    output wire                       rp_aresetn,
    // one-cycle pulses for the shell's counters
    output wire                       ingress_frame_cut,
    output wire                       egress_frame_cut,
    output wire                       egress_frame_oversize,

    // shell to region stream
    input  wire [DATA_WIDTH-1:0]      s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]      s_axis_tkeep,
    input  wire                       s_axis_tvalid,
    output wire                       s_axis_tready,
    input  wire                       s_axis_tlast,

    output wire [DATA_WIDTH-1:0]      m_rp_axis_tdata,
    output wire [KEEP_WIDTH-1:0]      m_rp_axis_tkeep,
    output wire                       m_rp_axis_tvalid,
    input  wire                       m_rp_axis_tready,
    output wire                       m_rp_axis_tlast,

    // region to shell stream
    input  wire [DATA_WIDTH-1:0]      s_rp_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]      s_rp_axis_tkeep,
    input  wire                       s_rp_axis_tvalid,
    output wire                       s_rp_axis_tready,
    input  wire                       s_rp_axis_tlast,

    output wire [DATA_WIDTH-1:0]      m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]      m_axis_tkeep,
    output wire                       m_axis_tvalid,
    input  wire                       m_axis_tready,
    output wire                       m_axis_tlast,

    // shell register interconnect
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
    input  wire                       s_axil_rready,

    // region's register slave
    output wire [AXIL_ADDR_WIDTH-1:0] m_rp_axil_awaddr,
    output wire [2:0]                 m_rp_axil_awprot,
    output wire                       m_rp_axil_awvalid,
    input  wire                       m_rp_axil_awready,
    output wire [31:0]                m_rp_axil_wdata,
    output wire [3:0]                 m_rp_axil_wstrb,
    output wire                       m_rp_axil_wvalid,
    input  wire                       m_rp_axil_wready,
    input  wire [1:0]                 m_rp_axil_bresp,
    input  wire                       m_rp_axil_bvalid,
    output wire                       m_rp_axil_bready,
    output wire [AXIL_ADDR_WIDTH-1:0] m_rp_axil_araddr,
    output wire [2:0]                 m_rp_axil_arprot,
    output wire                       m_rp_axil_arvalid,
    input  wire                       m_rp_axil_arready,
    input  wire [31:0]                m_rp_axil_rdata,
    input  wire [1:0]                 m_rp_axil_rresp,
    input  wire                       m_rp_axil_rvalid,
    output wire                       m_rp_axil_rready
);

localparam [1:0] RESP_DECERR = 2'b11;

wire rst = !aresetn;

reg decouple_status_reg = 1'b1;
reg rp_aresetn_reg = 1'b0;

assign decouple_status = decouple_status_reg;
assign rp_aresetn = rp_aresetn_reg;

always @(posedge aclk) begin
    decouple_status_reg <= decouple;
    rp_aresetn_reg <= aresetn && !decouple;
end

/*
 * Shell to region.
 */
reg ingress_in_frame_reg = 1'b0;   // a frame has started on s_axis and not ended
reg ingress_drop_reg = 1'b0;       // the current frame was cut: discard its tail

wire ingress_pass = !decouple && !ingress_drop_reg;
wire ingress_discard = ingress_in_frame_reg && (ingress_drop_reg || decouple);

assign m_rp_axis_tdata = s_axis_tdata;
assign m_rp_axis_tkeep = s_axis_tkeep;
assign m_rp_axis_tvalid = s_axis_tvalid && ingress_pass;
assign m_rp_axis_tlast = s_axis_tlast;
assign s_axis_tready = ingress_pass ? m_rp_axis_tready : ingress_discard;

assign ingress_frame_cut = ingress_in_frame_reg && decouple && !ingress_drop_reg;

wire ingress_beat = s_axis_tvalid && s_axis_tready;

always @(posedge aclk) begin
    if (ingress_beat) begin
        ingress_in_frame_reg <= !s_axis_tlast;
    end
    if (ingress_beat && s_axis_tlast) begin
        ingress_drop_reg <= 1'b0;
    end else if (ingress_frame_cut) begin
        ingress_drop_reg <= 1'b1;
    end

    if (rst) begin
        ingress_in_frame_reg <= 1'b0;
        ingress_drop_reg <= 1'b0;
    end
end

/*
 * Region to shell.
 */
reg  egress_in_frame_reg = 1'b0;   // the region has started a frame and not ended it
wire fifo_s_axis_tready;

assign s_rp_axis_tready = fifo_s_axis_tready && !decouple;
assign egress_frame_cut = egress_in_frame_reg && decouple;

always @(posedge aclk) begin
    if (s_rp_axis_tvalid && s_rp_axis_tready) begin
        egress_in_frame_reg <= !s_rp_axis_tlast;
    end else if (egress_frame_cut) begin
        egress_in_frame_reg <= 1'b0;
    end

    if (rst) begin
        egress_in_frame_reg <= 1'b0;
    end
end

axis_frame_fifo #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .DEPTH(EGRESS_FIFO_DEPTH)
)
egress_fifo (
    .clk(aclk),
    .rst(rst),
    .s_axis_tdata(s_rp_axis_tdata),
    .s_axis_tkeep(s_rp_axis_tkeep),
    .s_axis_tvalid(s_rp_axis_tvalid && !decouple),
    .s_axis_tready(fifo_s_axis_tready),
    .s_axis_tlast(s_rp_axis_tlast),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .drop_frame(egress_frame_cut),
    .oversize_frame(egress_frame_oversize)
);

/*
 * AXI4-Lite: each access is taken from the shell, forwarded to the region
 * (or refused with DECERR) and answered back; one write and one read at a time.
 */
localparam [1:0]
    STATE_IDLE = 2'd0,
    STATE_REGION = 2'd1,
    STATE_RESP = 2'd2;

reg [1:0]                 wr_state_reg = STATE_IDLE;
reg                       wr_addr_held_reg = 1'b0;
reg                       wr_data_held_reg = 1'b0;
reg                       wr_addr_sent_reg = 1'b0;
reg                       wr_data_sent_reg = 1'b0;
reg [AXIL_ADDR_WIDTH-1:0] awaddr_reg = {AXIL_ADDR_WIDTH{1'b0}};
reg [2:0]                 awprot_reg = 3'd0;
reg [31:0]                wdata_reg = 32'd0;
reg [3:0]                 wstrb_reg = 4'd0;
reg [1:0]                 bresp_reg = 2'b00;

assign s_axil_awready = wr_state_reg == STATE_IDLE && !wr_addr_held_reg;
assign s_axil_wready = wr_state_reg == STATE_IDLE && !wr_data_held_reg;
assign s_axil_bresp = bresp_reg;
assign s_axil_bvalid = wr_state_reg == STATE_RESP;

assign m_rp_axil_awaddr = awaddr_reg;
assign m_rp_axil_awprot = awprot_reg;
assign m_rp_axil_awvalid = wr_state_reg == STATE_REGION && !wr_addr_sent_reg && !decouple;
assign m_rp_axil_wdata = wdata_reg;
assign m_rp_axil_wstrb = wstrb_reg;
assign m_rp_axil_wvalid = wr_state_reg == STATE_REGION && !wr_data_sent_reg && !decouple;
assign m_rp_axil_bready = wr_state_reg == STATE_REGION && !decouple;

always @(posedge aclk) begin
    case (wr_state_reg)
        STATE_IDLE: begin
            if (s_axil_awvalid && s_axil_awready) begin
                wr_addr_held_reg <= 1'b1;
                awaddr_reg <= s_axil_awaddr;
                awprot_reg <= s_axil_awprot;
            end
            if (s_axil_wvalid && s_axil_wready) begin
                wr_data_held_reg <= 1'b1;
                wdata_reg <= s_axil_wdata;
                wstrb_reg <= s_axil_wstrb;
            end
            if (wr_addr_held_reg && wr_data_held_reg) begin
                wr_addr_sent_reg <= 1'b0;
                wr_data_sent_reg <= 1'b0;
                if (decouple) begin
                    bresp_reg <= RESP_DECERR;
                    wr_state_reg <= STATE_RESP;
                end else begin
                    wr_state_reg <= STATE_REGION;
                end
            end
        end
        STATE_REGION: begin
            if (m_rp_axil_awvalid && m_rp_axil_awready) begin
                wr_addr_sent_reg <= 1'b1;
            end
            if (m_rp_axil_wvalid && m_rp_axil_wready) begin
                wr_data_sent_reg <= 1'b1;
            end
            if (decouple) begin
                bresp_reg <= RESP_DECERR;
                wr_state_reg <= STATE_RESP;
            end else if (m_rp_axil_bvalid) begin
                bresp_reg <= m_rp_axil_bresp;
                wr_state_reg <= STATE_RESP;
            end
        end
        default: begin
            if (s_axil_bready) begin
                wr_addr_held_reg <= 1'b0;
                wr_data_held_reg <= 1'b0;
                wr_state_reg <= STATE_IDLE;
            end
        end
    endcase

    if (rst) begin
        wr_state_reg <= STATE_IDLE;
        wr_addr_held_reg <= 1'b0;
        wr_data_held_reg <= 1'b0;
    end
end

reg [1:0]                 rd_state_reg = STATE_IDLE;
reg [AXIL_ADDR_WIDTH-1:0] araddr_reg = {AXIL_ADDR_WIDTH{1'b0}};
reg [2:0]                 arprot_reg = 3'd0;
reg                       rd_addr_sent_reg = 1'b0;
reg [31:0]                rdata_reg = 32'd0;
reg [1:0]                 rresp_reg = 2'b00;

assign s_axil_arready = rd_state_reg == STATE_IDLE;
assign s_axil_rdata = rdata_reg;
assign s_axil_rresp = rresp_reg;
assign s_axil_rvalid = rd_state_reg == STATE_RESP;

assign m_rp_axil_araddr = araddr_reg;
assign m_rp_axil_arprot = arprot_reg;
assign m_rp_axil_arvalid = rd_state_reg == STATE_REGION && !rd_addr_sent_reg && !decouple;
assign m_rp_axil_rready = rd_state_reg == STATE_REGION && !decouple;

always @(posedge aclk) begin
    case (rd_state_reg)
        STATE_IDLE: begin
            if (s_axil_arvalid) begin
                araddr_reg <= s_axil_araddr;
                arprot_reg <= s_axil_arprot;
                rd_addr_sent_reg <= 1'b0;
                if (decouple) begin
                    rdata_reg <= 32'd0;
                    rresp_reg <= RESP_DECERR;
                    rd_state_reg <= STATE_RESP;
                end else begin
                    rd_state_reg <= STATE_REGION;
                end
            end
        end
        STATE_REGION: begin
            if (m_rp_axil_arvalid && m_rp_axil_arready) begin
                rd_addr_sent_reg <= 1'b1;
            end
            if (decouple) begin
                rdata_reg <= 32'd0;
                rresp_reg <= RESP_DECERR;
                rd_state_reg <= STATE_RESP;
            end else if (m_rp_axil_rvalid) begin
                rdata_reg <= m_rp_axil_rdata;
                rresp_reg <= m_rp_axil_rresp;
                rd_state_reg <= STATE_RESP;
            end
        end
        default: begin
            if (s_axil_rready) begin
                rd_state_reg <= STATE_IDLE;
            end
        end
    endcase

    if (rst) begin
        rd_state_reg <= STATE_IDLE;
    end
end

endmodule

`resetall
