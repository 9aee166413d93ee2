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
 * The register block every region module shares.
 *
 * Answers the common part of the region register map (hdl/README.md,
 * offsets 0x00-0x1C): MODULE_ID, VERSION, CONTROL (CLEAR_COUNTERS),
 * STATUS, and the 64-bit counts of frames and bytes sent, whose _HI words
 * are latched when their _LO words are read.  It watches the module's
 * stream handshakes and keeps those counts (frames_reg, bytes_reg; a test
 * preloads them through the instance, e.g. dut.regs.frames_reg, to reach a
 * 32-bit carry without sending four billion frames).
 * Offsets from 0x20 up are the module's own: the block passes
 * their reads and writes through on the user_* port (the module answers
 * in the same cycle, and user_*_err makes an offset it does not define
 * answer SLVERR; with REGISTERED_READ = n > 0 the read address is held for
 * n + 2 cycles and the module may answer through n + 1 register stages;
 * with REGISTERED_WRITE = n > 0 the write address is held n cycles after
 * user_wr_en and user_wr_err is looked at then, so the module may decode it
 * through n register stages),
 * and pulses clear_counters for the module's own counters.  A beat is
 * counted a cycle after it leaves (its handshake registered, so the count's
 * adder starts at a flip-flop), and CONTROL.CLEAR_COUNTERS takes effect a
 * cycle after the write (clear_counters is registered: it reaches every
 * counter from one flip-flop), here and in the module.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module region_regs #
(
    // AXI4-Stream keep width of the module's output stream (bytes per beat)
    parameter KEEP_WIDTH = 8,
    // AXI4-Lite address width: the region's register window is 2**AXIL_ADDR_WIDTH bytes
    parameter AXIL_ADDR_WIDTH = 12,
    // register 0: the bitstream's UserID (0xFFFFFFFF = not declared)
    parameter [31:0] MODULE_ID = 32'hFFFFFFFF,
    // register 1: major << 16 | minor
    parameter [31:0] MODULE_VERSION = 32'h00000000,
    // n > 0: reads answered n + 2 cycles after they are taken (axil_reg_if)
    parameter REGISTERED_READ = 0,
    // n > 0: writes answered n cycles after user_wr_en, user_wr_err looked at then
    // (axil_reg_if)
    parameter REGISTERED_WRITE = 0
)
(
    input  wire                       clk,
    input  wire                       rst,

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

    // the module's stream handshakes: a beat taken on s_axis, a beat sent on m_axis
    input  wire                       in_beat,
    input  wire                       in_tlast,
    input  wire                       out_beat,
    input  wire [KEEP_WIDTH-1:0]      out_tkeep,
    input  wire                       out_tlast,

    // STATUS bits 31:2, the module's own (zero where it has none)
    input  wire [29:0]                status_user,
    // one cycle, the cycle after CONTROL.CLEAR_COUNTERS was written with 1
    output reg                        clear_counters = 1'b0,

    // the module's registers (offsets 0x20 and up; addresses are word-aligned byte offsets)
    output wire                       user_wr_en,
    output wire [AXIL_ADDR_WIDTH-1:0] user_wr_addr,
    output wire [31:0]                user_wr_data,
    output wire [3:0]                 user_wr_strb,
    input  wire                       user_wr_err,
    output wire                       user_rd_en,
    output wire [AXIL_ADDR_WIDTH-1:0] user_rd_addr,
    input  wire [31:0]                user_rd_data,
    input  wire                       user_rd_err
);

localparam COUNT_WIDTH = $clog2(KEEP_WIDTH + 1);

// register map (byte offsets) and CONTROL bits, from the module catalogue
`include "common_regs.vh"

// frames and bytes sent on m_axis
reg [63:0] frames_reg = 64'd0;
reg [63:0] bytes_reg = 64'd0;
// high words of the frame and byte counts, latched when their low words are read
reg [31:0] frames_hi_snapshot_reg = 32'd0;
reg [31:0] bytes_hi_snapshot_reg = 32'd0;
// status: a frame has started on the input / output and not yet ended
reg        in_frame_reg = 1'b0;
reg        out_frame_reg = 1'b0;

reg [COUNT_WIDTH-1:0] out_beat_bytes;
integer i;

always @* begin
    out_beat_bytes = {COUNT_WIDTH{1'b0}};
    for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
        out_beat_bytes = out_beat_bytes + {{(COUNT_WIDTH-1){1'b0}}, out_tkeep[i]};
    end
end

// register interface (registers are whole words: byte lanes other than 0 carry no control bits)
/* verilator lint_off UNUSEDSIGNAL */
wire [AXIL_ADDR_WIDTH-1:0] reg_wr_addr;
wire [AXIL_ADDR_WIDTH-1:0] reg_rd_addr;
/* verilator lint_on UNUSEDSIGNAL */
wire                       reg_wr_en;
reg                        reg_wr_err;
wire                       reg_rd_en;
reg  [31:0]                reg_rd_data;
reg                        reg_rd_err;

axil_reg_if #(
    .ADDR_WIDTH(AXIL_ADDR_WIDTH),
    .DATA_WIDTH(32),
    .REGISTERED_READ(REGISTERED_READ),
    .REGISTERED_WRITE(REGISTERED_WRITE)
)
axil_reg_if_inst (
    .clk(clk),
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
    .reg_wr_addr(reg_wr_addr),
    .reg_wr_data(user_wr_data),
    .reg_wr_strb(user_wr_strb),
    .reg_wr_en(reg_wr_en),
    .reg_wr_err(reg_wr_err),
    .reg_rd_addr(reg_rd_addr),
    .reg_rd_en(reg_rd_en),
    .reg_rd_data(reg_rd_data),
    .reg_rd_err(reg_rd_err)
);

wire [AXIL_ADDR_WIDTH-1:0] wr_word = {reg_wr_addr[AXIL_ADDR_WIDTH-1:2], 2'b00};
wire [AXIL_ADDR_WIDTH-1:0] rd_word = {reg_rd_addr[AXIL_ADDR_WIDTH-1:2], 2'b00};

assign user_wr_en = reg_wr_en && wr_word >= REG_USER;
assign user_wr_addr = wr_word;
assign user_rd_en = reg_rd_en && rd_word >= REG_USER;
assign user_rd_addr = rd_word;

wire clear_written = reg_wr_en && wr_word == REG_CONTROL
    && user_wr_strb[0] && user_wr_data[CONTROL_CLEAR_COUNTERS];

// the beat that left, counted a cycle later
reg                   counted_beat_reg = 1'b0;
reg                   counted_last_reg = 1'b0;
reg [COUNT_WIDTH-1:0] counted_bytes_reg = {COUNT_WIDTH{1'b0}};

// the common register the read address names (common_user: none, the module's)
reg [31:0] common_data;
reg        common_user;

always @* begin
    common_user = 1'b0;
    case (rd_word)
        REG_MODULE_ID: common_data = MODULE_ID;
        REG_VERSION:   common_data = MODULE_VERSION;
        REG_CONTROL:   common_data = 32'd0;
        REG_STATUS:    common_data = {status_user, out_frame_reg, in_frame_reg};
        REG_FRAMES_LO: common_data = frames_reg[31:0];
        REG_FRAMES_HI: common_data = frames_hi_snapshot_reg;
        REG_BYTES_LO:  common_data = bytes_reg[31:0];
        REG_BYTES_HI:  common_data = bytes_hi_snapshot_reg;
        default: begin
            common_data = 32'd0;
            common_user = 1'b1;
        end
    endcase
end

// with REGISTERED_READ (the address held), that is registered too, with the high words as
// they were in the same cycle (a low word's read latches them) and the low words' decode
reg [31:0] common_data_reg = 32'd0;
reg        common_user_reg = 1'b0;
reg [31:0] frames_hi_reg = 32'd0;
reg [31:0] bytes_hi_reg = 32'd0;
reg        rd_frames_lo_reg = 1'b0;
reg        rd_bytes_lo_reg = 1'b0;

always @(posedge clk) begin
    common_data_reg <= common_data;
    common_user_reg <= common_user;
    frames_hi_reg <= frames_reg[63:32];
    bytes_hi_reg <= bytes_reg[63:32];
    rd_frames_lo_reg <= rd_word == REG_FRAMES_LO;
    rd_bytes_lo_reg <= rd_word == REG_BYTES_LO;
end

wire        read_user = REGISTERED_READ != 0 ? common_user_reg : common_user;
wire [31:0] read_common = REGISTERED_READ != 0 ? common_data_reg : common_data;
wire        read_frames_lo = REGISTERED_READ != 0 ? rd_frames_lo_reg : rd_word == REG_FRAMES_LO;
wire        read_bytes_lo = REGISTERED_READ != 0 ? rd_bytes_lo_reg : rd_word == REG_BYTES_LO;
wire [31:0] frames_hi = REGISTERED_READ != 0 ? frames_hi_reg : frames_reg[63:32];
wire [31:0] bytes_hi = REGISTERED_READ != 0 ? bytes_hi_reg : bytes_reg[63:32];

always @* begin
    // writes to read-only registers are ignored; the module decides on its own offsets
    reg_wr_err = wr_word >= REG_USER && user_wr_err;

    reg_rd_data = read_user ? user_rd_data : read_common;
    reg_rd_err = read_user && user_rd_err;
end

always @(posedge clk) begin
    if (in_beat) begin
        in_frame_reg <= !in_tlast;
    end
    if (out_beat) begin
        out_frame_reg <= !out_tlast;
    end

    // reading a low word latches its high word, so a 64-bit value reads consistently
    if (reg_rd_en && read_frames_lo) begin
        frames_hi_snapshot_reg <= frames_hi;
    end
    if (reg_rd_en && read_bytes_lo) begin
        bytes_hi_snapshot_reg <= bytes_hi;
    end

    clear_counters <= clear_written;
    counted_beat_reg <= out_beat;
    counted_last_reg <= out_tlast;
    counted_bytes_reg <= out_beat_bytes;
    if (counted_beat_reg) begin
        frames_reg <= frames_reg + {63'd0, counted_last_reg};
        bytes_reg <= bytes_reg + {{(64-COUNT_WIDTH){1'b0}}, counted_bytes_reg};
    end
    if (clear_counters) begin
        frames_reg <= 64'd0;
        bytes_reg <= 64'd0;
    end

    if (rst) begin
        clear_counters <= 1'b0;
        counted_beat_reg <= 1'b0;
        frames_reg <= 64'd0;
        bytes_reg <= 64'd0;
        in_frame_reg <= 1'b0;
        out_frame_reg <= 1'b0;
        frames_hi_snapshot_reg <= 32'd0;
        bytes_hi_snapshot_reg <= 32'd0;
    end
end

endmodule

`resetall
