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
 * Virtual Traffic Classifier region module (the T-NOVA vTC in hardware).
 *
 * Every frame goes out, in order, a fixed OUTPUT_DELAY cycles after it came
 * in (when the output is ready): one beat per cycle at every frame size.
 * While a frame waits in the delay FIFO its first 128 bytes are parsed
 * (vtc_parser), its flow is looked up, inspected and updated (vtc_flow_table),
 * and a decision comes back in time to rewrite its DSCP on the way out if
 * its flow was classified before it and the class's policy marks, or was
 * named as an application before it (vtc_names: the host name its first
 * packets carry, read after them) and the application's policy decides.
 * Counts per class, flows and frames are readable over AXI4-Lite.  Behaviour and
 * register map: hdl/README.md (vTC section); bit-exact reference model:
 * hdl/tests/vtc_model.py.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module region_vtc #
(
    // AXI4-Stream data width in bits (a multiple of 8, at most 64)
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    // AXI4-Lite address width: the region's register window is 2**AXIL_ADDR_WIDTH bytes
    parameter AXIL_ADDR_WIDTH = 12,
    // register 0: the bitstream's UserID (0xFFFFFFFF = not declared); set from the module registry
    parameter [31:0] MODULE_ID = 32'hFFFFFFFF,
    // register 1: major << 16 | minor; set from the module registry
    parameter [31:0] MODULE_VERSION = 32'h00000000,
    // flows the table holds (a power of two, at least 8): 4-way buckets
    parameter FLOW_TABLE_DEPTH = 4096,
    // payload-carrying packets of a flow inspected at most (0..15)
    parameter INSPECT_PACKETS = 8,
    // frames up to this length are classified; longer ones (by their IP length) pass unclassified
    parameter MAX_FRAME_LEN = 9018,
    // a flow idle for more than this many ticks may be evicted (< 65536)
    parameter FLOW_TIMEOUT = 4096,
    // cycles per tick of the flow timestamp (2**20 = 6.7 ms at 156.25 MHz)
    parameter FLOW_TICK_CYCLES = 1048576
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

localparam COUNT_WIDTH = $clog2(KEEP_WIDTH + 1);
localparam BUCKET_BITS = $clog2(FLOW_TABLE_DEPTH / 4);
// a beat leaves this many cycles after it came in: the window (128 bytes) plus the
// parser and flow-table latency (the decision is there DECISION_LATENCY cycles after the
// window's end: the parser's request PARSER_LATENCY cycles after it, the flow table's
// decision FLOW_TABLE_LATENCY after that, written into the decision FIFO 1 after that and
// read from it 1 after that).
// The output register slice adds one more before the beat is on m_axis.
localparam PARSER_LATENCY = 16;      // vtc_parser: from the window's last beat to req_valid
localparam FLOW_TABLE_LATENCY = 7;   // vtc_flow_table: from req_valid to decision_valid
localparam DECISION_LATENCY = PARSER_LATENCY + FLOW_TABLE_LATENCY + 2;
localparam OUTPUT_DELAY = 128 / KEEP_WIDTH + DECISION_LATENCY;
localparam FIFO_ADDR_WIDTH = 6;
localparam FIFO_DEPTH = 2 ** FIFO_ADDR_WIDTH;
localparam FIFO_WIDTH = COUNT_WIDTH + 1 + KEEP_WIDTH + DATA_WIDTH;

// the vTC's own registers (byte offsets; region_regs answers 0x00-0x1C), the
// POLICY bits and CLASSES (the number of classes), from the module catalogue.
// Arrays: POLICY and CLASS_FLOWS + 4 * class (classes 1..CLASSES-1), CLASS_PACKETS
// and CLASS_BYTES + 8 * class (LO, HI; classes 0..CLASSES-1).
`include "vtc_regs.vh"

wire rst = !aresetn;

// ---- delay FIFO: every beat, with its byte count ----------------------------

// distributed RAM (a block RAM would take head_reg in as its read register, and its slow
// clock-to-output, 4.3 ns on the ECP5, would then lead into the output rewrite), in two
// copies written alike: one read at the read pointer, one at the next, both addressed by
// registers, so that only the choice between them waits for the output's handshake
(* ram_style = "distributed" *)
reg [FIFO_WIDTH-1:0]    fifo_mem [0:FIFO_DEPTH-1];
(* ram_style = "distributed" *)
reg [FIFO_WIDTH-1:0]    fifo_next_mem [0:FIFO_DEPTH-1];
reg [FIFO_ADDR_WIDTH:0] fifo_wr_ptr_reg = {(FIFO_ADDR_WIDTH+1){1'b0}};
reg [FIFO_ADDR_WIDTH:0] fifo_rd_ptr_reg = {(FIFO_ADDR_WIDTH+1){1'b0}};
reg [FIFO_ADDR_WIDTH:0] fifo_rd_next_ptr_reg = {{FIFO_ADDR_WIDTH{1'b0}}, 1'b1};  // read + 1
// the two read addresses once more, for the RAMs alone (each pointer addresses 80 LUT RAM
// cells and is compared with the due and write pointers: the head's read from it was a failing
// path at every seed of make timing at 24a13d9, -0.79 ns at seed 2). Equal to the pointers'
// low bits from the reset on; every bit powers up to the opposite of the pointer's, which
// keeps synthesis from merging them with the pointers
reg [FIFO_ADDR_WIDTH-1:0] fifo_rd_addr_reg = {FIFO_ADDR_WIDTH{1'b1}};
reg [FIFO_ADDR_WIDTH-1:0] fifo_rd_next_addr_reg = {{(FIFO_ADDR_WIDTH-1){1'b1}}, 1'b0};
// the head beat, read from the FIFO a cycle ahead: the beat at the read pointer, or the one
// after it when a beat leaves (a beat is read a cycle or more after it was written: it is
// due OUTPUT_DELAY cycles after)
reg [FIFO_WIDTH-1:0]    head_reg = {FIFO_WIDTH{1'b0}};
// whether a beat came in, for each of the last OUTPUT_DELAY - 1 cycles, and the write
// pointer as it was OUTPUT_DELAY cycles ago: the beats before it are due
reg [OUTPUT_DELAY-2:0]  arrived_reg = {(OUTPUT_DELAY-1){1'b0}};
reg [FIFO_ADDR_WIDTH:0] due_ptr_reg = {(FIFO_ADDR_WIDTH+1){1'b0}};
reg [FIFO_ADDR_WIDTH:0] due_next_ptr_reg = {{FIFO_ADDR_WIDTH{1'b0}}, 1'b1};  // due + 1

wire [FIFO_ADDR_WIDTH:0] fifo_count = fifo_wr_ptr_reg - fifo_rd_ptr_reg;
// full, registered: set when the beats in the FIFO reach its depth less one, not counting the
// beat that may leave in the same cycle (so the input may pause a cycle early, never late).
// The slot at the write pointer is so never a beat's: both copies are written there every
// cycle, a beat or not, and only the write pointer waits for a beat (written on a beat, the
// 160 LUT RAM cells' write enables came from fifo_full_reg through in_beat: failing paths at
// seed 2 of make timing at d450c45, -0.48 ns, 5.9 ns of it routing)
reg  fifo_full_reg = 1'b0;
// the same once more, for the parser's beats alone (equal from the reset on; it powers up to
// the opposite, which keeps synthesis from merging the two)
reg  parser_full_reg = 1'b1;
wire in_beat = s_axis_tvalid && s_axis_tready;
wire parser_in_beat = s_axis_tvalid && !parser_full_reg;

assign s_axis_tready = !fifo_full_reg;

reg [COUNT_WIDTH-1:0] in_bytes;
integer i;
integer c;

always @* begin
    in_bytes = {COUNT_WIDTH{1'b0}};
    for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
        in_bytes = in_bytes + {{(COUNT_WIDTH-1){1'b0}}, s_axis_tkeep[i]};
    end
end

wire [DATA_WIDTH-1:0]  head_data = head_reg[DATA_WIDTH-1:0];
wire [KEEP_WIDTH-1:0]  head_keep = head_reg[DATA_WIDTH +: KEEP_WIDTH];
wire                   head_last = head_reg[DATA_WIDTH+KEEP_WIDTH];
wire [COUNT_WIDTH-1:0] head_bytes = head_reg[FIFO_WIDTH-1 -: COUNT_WIDTH];
// the head came in OUTPUT_DELAY or more cycles ago (registered: worked out a cycle ahead for
// both outcomes of the cycle's pop, so that pop waits only for registers)
reg  head_due_reg = 1'b0;
wire head_due = head_due_reg;
// the same once more, for the pop that chooses the head's next beat alone (pop reaches over
// 200 flip-flops; the head's 77 take theirs from this copy: powered up 1, not merged)
reg  head_due_data_reg = 1'b1;

// ---- classification --------------------------------------------------------

wire                   parser_oversize;
wire                   req_valid;
wire                   req_parsed;
wire [104:0]           req_key;
wire [BUCKET_BITS-1:0] req_bucket;
wire                   req_payload;
wire [3:0]             req_match;
wire                   req_end;
wire                   req_syn;
wire                   req_other;
wire                   req_connect;
wire                   req_rtp;
wire [47:0]            req_rtp_id;
wire                   req_ipv6;
wire [1:0]             req_tags;
wire                   req_pppoe;
wire                   req_fragment;
wire [7:0]             req_byte0;
wire [7:0]             req_byte1;
wire [15:0]            req_checksum;
// where a parsed frame's payload is: what the name extractor (vtc_names) is told to read
wire [7:0]             req_payload_start;
wire [15:0]            req_payload_length;

vtc_parser #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .MAX_FRAME_LEN(MAX_FRAME_LEN),
    .BUCKET_BITS(BUCKET_BITS)
)
parser (
    .clk(aclk),
    .rst(rst),
    .in_tdata(s_axis_tdata),
    .in_tkeep(s_axis_tkeep),
    .in_tlast(s_axis_tlast),
    .in_beat(parser_in_beat),
    .oversize(parser_oversize),
    .req_valid(req_valid),
    .req_parsed(req_parsed),
    .req_key(req_key),
    .req_bucket(req_bucket),
    .req_payload(req_payload),
    .req_match(req_match),
    .req_end(req_end),
    .req_syn(req_syn),
    .req_other(req_other),
    .req_connect(req_connect),
    .req_rtp(req_rtp),
    .req_rtp_id(req_rtp_id),
    .req_ipv6(req_ipv6),
    .req_tags(req_tags),
    .req_pppoe(req_pppoe),
    .req_fragment(req_fragment),
    .req_byte0(req_byte0),
    .req_byte1(req_byte1),
    .req_checksum(req_checksum),
    .req_payload_start(req_payload_start),
    .req_payload_length(req_payload_length)
);

// policy of class c in bits [8c+7:8c] (classes 1..CLASSES-1; bit 6 and the rest read 0)
wire [127:0] policy;
// the policy of application a (APP_POLICY, applications 1..APPLICATIONS-1), read by the flow
// table's write stage
wire [5:0]   app_policy_addr;
wire [7:0]   app_policy_data;
wire         decision_valid;
// its IP version and tags (bits 30:28) are the request's: the rewrite positions are worked
// out from the request (found_mem)
/* verilator lint_off UNUSEDSIGNAL */
wire [31:0]  decision;
/* verilator lint_on UNUSEDSIGNAL */
// unparsed frames are counted as they leave, where fragments are told apart from them
/* verilator lint_off UNUSEDSIGNAL */
wire         event_unparsed;
/* verilator lint_on UNUSEDSIGNAL */
wire         event_seen;
wire         event_classified;
wire [3:0]   event_class;
wire         event_refined;
wire [3:0]   event_refined_from;
wire         event_guessed;
wire [3:0]   event_guess_class;
wire         event_inserted;
wire         event_occupied;
wire         event_evicted;
wire         event_failed;
wire         clearing;
wire [15:0]  timestamp;

// names: the flow table's commands to vtc_names, its results and skips back
localparam NAME_TAG_WIDTH = 3;
wire                      names_on;
wire                      name_cmd_valid;
wire [1:0]                name_cmd_kind;
wire [15:0]               name_cmd_start;
wire [15:0]               name_cmd_end;
wire                      name_cmd_tcp;
wire [NAME_TAG_WIDTH-1:0] name_cmd_tag;
wire                      name_res_valid;
wire [NAME_TAG_WIDTH-1:0] name_res_tag;
wire                      name_res_named;
wire [5:0]                name_res_app;
wire                      name_skip_valid;
wire [NAME_TAG_WIDTH-1:0] name_skip_tag;
wire                      event_named;
wire [5:0]                event_named_app;
// the application the frame's flow had before it (stored with the decision: the frame is
// counted by it as it leaves)
wire [5:0]                decision_app;
wire                      names_clearing;
wire                      name_tbl_wr_en;
wire [11:0]               name_tbl_wr_addr;
wire [31:0]               name_tbl_wr_data;

vtc_flow_table #(
    .BUCKET_BITS(BUCKET_BITS),
    .NAME_TAG_WIDTH(NAME_TAG_WIDTH),
    .INSPECT_PACKETS(INSPECT_PACKETS),
    .FLOW_TIMEOUT(FLOW_TIMEOUT),
    .FLOW_TICK_CYCLES(FLOW_TICK_CYCLES)
)
flow_table (
    .clk(aclk),
    .rst(rst),
    .req_valid(req_valid),
    .req_parsed(req_parsed),
    .req_key(req_key),
    .req_bucket(req_bucket),
    .req_payload(req_payload),
    .req_match(req_match),
    .req_end(req_end),
    .req_syn(req_syn),
    .req_other(req_other),
    .req_connect(req_connect),
    .req_rtp(req_rtp),
    .req_rtp_id(req_rtp_id),
    .req_ipv6(req_ipv6),
    .req_tags(req_tags),
    .req_byte0(req_byte0),
    .req_byte1(req_byte1),
    .req_checksum(req_checksum),
    .req_payload_start(req_payload_start),
    .req_payload_length(req_payload_length),
    .policy(policy),
    .app_policy_addr(app_policy_addr),
    .app_policy_data(app_policy_data),
    .decision_valid(decision_valid),
    .decision(decision),
    .event_unparsed(event_unparsed),
    .event_seen(event_seen),
    .event_classified(event_classified),
    .event_class(event_class),
    .event_refined(event_refined),
    .event_refined_from(event_refined_from),
    .event_guessed(event_guessed),
    .event_guess_class(event_guess_class),
    .event_inserted(event_inserted),
    .event_occupied(event_occupied),
    .event_evicted(event_evicted),
    .event_failed(event_failed),
    .clearing(clearing),
    .timestamp(timestamp),
    .names_on(names_on),
    .name_cmd_valid(name_cmd_valid),
    .name_cmd_kind(name_cmd_kind),
    .name_cmd_start(name_cmd_start),
    .name_cmd_end(name_cmd_end),
    .name_cmd_tcp(name_cmd_tcp),
    .name_cmd_tag(name_cmd_tag),
    .name_res_valid(name_res_valid),
    .name_res_tag(name_res_tag),
    .name_res_named(name_res_named),
    .name_res_app(name_res_app),
    .name_skip_valid(name_skip_valid),
    .name_skip_tag(name_skip_tag),
    .event_named(event_named),
    .event_named_app(event_named_app),
    .decision_app(decision_app)
);

// the host names frames carry, matched against the application table; the input beats
// two cycles late, through two registers (a command comes many cycles after its frame's first
// beat): the second can sit by the name extractor's RAMs, across the device from the input
// (one register there, make timing at 24a13d9 seed 2: -0.70 ns, 6 ns of it routing)
reg [DATA_WIDTH-1:0] names_in_tdata = {DATA_WIDTH{1'b0}};
reg [KEEP_WIDTH-1:0] names_in_tkeep = {KEEP_WIDTH{1'b0}};
reg                  names_in_tlast = 1'b0;
reg                  names_in_beat = 1'b0;
reg [DATA_WIDTH-1:0] names_tdata = {DATA_WIDTH{1'b0}};
reg [KEEP_WIDTH-1:0] names_tkeep = {KEEP_WIDTH{1'b0}};
reg                  names_tlast = 1'b0;
reg                  names_beat = 1'b0;

always @(posedge aclk) begin
    names_in_tdata <= s_axis_tdata;
    names_in_tkeep <= s_axis_tkeep;
    names_in_tlast <= s_axis_tlast;
    names_in_beat <= in_beat;
    names_tdata <= names_in_tdata;
    names_tkeep <= names_in_tkeep;
    names_tlast <= names_in_tlast;
    names_beat <= names_in_beat;
    if (rst) begin
        names_in_beat <= 1'b0;
        names_beat <= 1'b0;
    end
end

vtc_names #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .TAG_WIDTH(NAME_TAG_WIDTH)
)
names (
    .clk(aclk),
    .rst(rst),
    .in_tdata(names_tdata),
    .in_tkeep(names_tkeep),
    .in_tlast(names_tlast),
    .in_beat(names_beat),
    .cmd_valid(name_cmd_valid),
    .cmd_kind(name_cmd_kind),
    .cmd_start(name_cmd_start),
    .cmd_end(name_cmd_end),
    .cmd_tcp(name_cmd_tcp),
    .cmd_tag(name_cmd_tag),
    .skipped(name_skip_valid),
    .skipped_tag(name_skip_tag),
    .tbl_wr_en(name_tbl_wr_en),
    .tbl_wr_addr(name_tbl_wr_addr),
    .tbl_wr_data(name_tbl_wr_data),
    .clearing(names_clearing),
    .res_valid(name_res_valid),
    .res_tag(name_res_tag),
    .res_named(name_res_named),
    .res_app(name_res_app)
);

// ---- decisions, one per frame in frame order --------------------------------

// the byte offsets a decision rewrites (NO_REWRITE, beyond every beat, for none), stored
// with it: the rewrite then reads them from the decision memory as they are
localparam [7:0] LANE_MASK = KEEP_WIDTH[7:0] - 8'd1;
localparam [7:0] NO_REWRITE = 8'hFF & ~LANE_MASK;

// what the parser found besides: {fragment, unparsed, position_c, position_b, position_a},
// one per request, read with the frame's decision (the request comes before the decision).
// The positions are the byte offsets the decision rewrites if it marks, worked out from the
// request (the L3 offset from its tags and PPPoE header, its IP version: the decision
// carries the same), so that writing a decision only chooses between them and NO_REWRITE
reg [25:0]              found_mem [0:FIFO_DEPTH-1];
reg [FIFO_ADDR_WIDTH:0] found_wr_ptr_reg = {(FIFO_ADDR_WIDTH+1){1'b0}};
reg [FIFO_ADDR_WIDTH:0] decision_wr_ptr_reg = {(FIFO_ADDR_WIDTH+1){1'b0}};

wire [7:0] req_l3_offset = 8'd14 + {4'd0, req_tags, 2'b00} + {4'd0, req_pppoe, 3'b000};
wire [7:0] req_position_a = req_ipv6 ? req_l3_offset : req_l3_offset + 8'd1;
wire [7:0] req_position_b = req_ipv6 ? req_l3_offset + 8'd1 : req_l3_offset + 8'd10;
wire [7:0] req_position_c = req_ipv6 ? NO_REWRITE : req_l3_offset + 8'd11;

wire [25:0] decision_found = found_mem[decision_wr_ptr_reg[FIFO_ADDR_WIDTH-1:0]];
wire        decision_rewrite = decision[31];
wire [7:0]  position_a = decision_rewrite ? decision_found[7:0] : NO_REWRITE;
wire [7:0]  position_b = decision_rewrite ? decision_found[15:8] : NO_REWRITE;
wire [7:0]  position_c = decision_rewrite ? decision_found[23:16] : NO_REWRITE;
wire [59:0] decision_entry = {decision_app, decision_found[25:24], position_c, position_b,
                              position_a, decision[27:0]};

// {application, fragment, unparsed, position_c, position_b, position_a, values, class} (the
// positions stand for the decision's rewrite, ipv6, tags and PPPoE bits); never overflows: a frame's
// decision arrives before its first beat leaves
// distributed and in two copies written alike, as the frame FIFO: its entries are read into
// `current` through a register of its own (which a block RAM's slow output register would
// take in), one copy at the read pointer and one at the next (one memory read at either
// would have its address chosen by pop, before the RAM)
(* ram_style = "distributed" *)
reg [59:0]              decision_mem [0:FIFO_DEPTH-1];
(* ram_style = "distributed" *)
reg [59:0]              decision_next_mem [0:FIFO_DEPTH-1];
reg [FIFO_ADDR_WIDTH:0] decision_rd_ptr_reg = {(FIFO_ADDR_WIDTH+1){1'b0}};

reg [FIFO_ADDR_WIDTH:0] decision_rd_next_ptr_reg = {{FIFO_ADDR_WIDTH{1'b0}}, 1'b1};

// the head frame's decision is there (registered, worked out a cycle ahead like head_due)
reg         decision_ready_reg = 1'b0;
wire        decision_ready = decision_ready_reg;
reg         decision_ready_data_reg = 1'b1;  // the same, for pop_data (as head_due_data_reg)
// the head frame's decision, read a cycle ahead like head_reg (from the next entry when the
// head frame's last beat leaves), so that what the output works out from it starts from a
// register: both entries are read at registered addresses and pop only chooses. An entry
// is read the cycle after it was written, and decision_ready counts it a cycle later for
// that (DECISION_LATENCY's last cycle)
reg  [59:0] current = 60'd0;
wire [7:0]  current_a = current[35:28];
wire [7:0]  current_b = current[43:36];
wire [7:0]  current_c = current[51:44];
wire [3:0]  current_class = current[3:0];
wire        current_unparsed = current[52];
wire        current_fragment = current[53];
wire [5:0]  current_app = current[59:54];

// ---- output: the head beat, its DSCP bytes rewritten ------------------------

wire out_valid = head_due && decision_ready;
wire out_ready;
wire pop = out_valid && out_ready;
// pop from the copies: the head's next beat and the RAMs' read addresses
wire pop_data = head_due_data_reg && decision_ready_data_reg && out_ready;

reg  [7:0] out_offset_reg = 8'd0;  // byte offset of the head beat in its frame (saturates)
reg  [23:0] out_frame_bytes_reg = 24'd0;

// the head frame's rewrite, latched as its first beat leaves (the bytes rewritten, offset
// 14 and up, are never in a first beat of at most 8 bytes): for each rewritten byte, the
// offset of its beat and its lane, one-hot; and the lanes of the head beat that take each
// value, worked out as the beat before it leaves, so the output reads registers only

function [KEEP_WIDTH-1:0] lane(input [7:0] position);
    lane = {{(KEEP_WIDTH-1){1'b0}}, 1'b1} << (position & LANE_MASK);
endfunction

reg [7:0]            rewrite_a_beat_reg = NO_REWRITE;
reg [7:0]            rewrite_b_beat_reg = NO_REWRITE;
reg [7:0]            rewrite_c_beat_reg = NO_REWRITE;
reg [KEEP_WIDTH-1:0] rewrite_a_lane_reg = {KEEP_WIDTH{1'b0}};
reg [KEEP_WIDTH-1:0] rewrite_b_lane_reg = {KEEP_WIDTH{1'b0}};
reg [KEEP_WIDTH-1:0] rewrite_c_lane_reg = {KEEP_WIDTH{1'b0}};
reg [23:0]           rewrite_value_reg = 24'd0;
reg [KEEP_WIDTH-1:0] head_a_lanes_reg = {KEEP_WIDTH{1'b0}};
reg [KEEP_WIDTH-1:0] head_b_lanes_reg = {KEEP_WIDTH{1'b0}};
reg [KEEP_WIDTH-1:0] head_c_lanes_reg = {KEEP_WIDTH{1'b0}};

// the lanes of a beat at beat offset `offset` that take a rewrite at `beat`, `lanes`
function [KEEP_WIDTH-1:0] lanes_at(input [7:0] offset, input [7:0] beat,
                                   input [KEEP_WIDTH-1:0] lanes);
    lanes_at = offset == beat ? lanes : {KEEP_WIDTH{1'b0}};
endfunction

// the offset of the beat after the head beat, kept beside out_offset_reg so that the
// compares with the rewrite beats start from a register (past the window, where nothing is
// rewritten, it need not be exact)
reg  [7:0] next_offset_reg = KEEP_WIDTH[7:0];

always @(posedge aclk) begin
    if (pop) begin
        if (out_offset_reg == 8'd0) begin
            rewrite_a_beat_reg <= current_a & ~LANE_MASK;
            rewrite_b_beat_reg <= current_b & ~LANE_MASK;
            rewrite_c_beat_reg <= current_c & ~LANE_MASK;
            rewrite_a_lane_reg <= lane(current_a);
            rewrite_b_lane_reg <= lane(current_b);
            rewrite_c_lane_reg <= lane(current_c);
            rewrite_value_reg <= current[27:4];
            head_a_lanes_reg <= lanes_at(KEEP_WIDTH[7:0], current_a & ~LANE_MASK, lane(current_a));
            head_b_lanes_reg <= lanes_at(KEEP_WIDTH[7:0], current_b & ~LANE_MASK, lane(current_b));
            head_c_lanes_reg <= lanes_at(KEEP_WIDTH[7:0], current_c & ~LANE_MASK, lane(current_c));
        end else begin
            head_a_lanes_reg <= lanes_at(next_offset_reg, rewrite_a_beat_reg, rewrite_a_lane_reg);
            head_b_lanes_reg <= lanes_at(next_offset_reg, rewrite_b_beat_reg, rewrite_b_lane_reg);
            head_c_lanes_reg <= lanes_at(next_offset_reg, rewrite_c_beat_reg, rewrite_c_lane_reg);
        end
        if (head_last) begin
            head_a_lanes_reg <= {KEEP_WIDTH{1'b0}};
            head_b_lanes_reg <= {KEEP_WIDTH{1'b0}};
            head_c_lanes_reg <= {KEEP_WIDTH{1'b0}};
        end
    end
    if (rst) begin
        rewrite_a_beat_reg <= NO_REWRITE;
        rewrite_b_beat_reg <= NO_REWRITE;
        rewrite_c_beat_reg <= NO_REWRITE;
        head_a_lanes_reg <= {KEEP_WIDTH{1'b0}};
        head_b_lanes_reg <= {KEEP_WIDTH{1'b0}};
        head_c_lanes_reg <= {KEEP_WIDTH{1'b0}};
    end
end

reg [DATA_WIDTH-1:0] out_data;

always @* begin
    out_data = head_data;
    for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
        if (head_a_lanes_reg[i]) begin
            out_data[8*i +: 8] = rewrite_value_reg[23:16];
        end
        if (head_b_lanes_reg[i]) begin
            out_data[8*i +: 8] = rewrite_value_reg[15:8];
        end
        if (head_c_lanes_reg[i]) begin
            out_data[8*i +: 8] = rewrite_value_reg[7:0];
        end
    end
end

axis_register #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH)
)
out_reg (
    .clk(aclk),
    .rst(rst),
    .s_axis_tdata(out_data),
    .s_axis_tkeep(head_keep),
    .s_axis_tvalid(out_valid),
    .s_axis_tready(out_ready),
    .s_axis_tlast(head_last),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast)
);

// each beat that left, registered: its frame's bytes are summed from here, a cycle behind
reg                   popped_reg = 1'b0;
reg                   popped_last_reg = 1'b0;
reg [COUNT_WIDTH-1:0] popped_bytes_reg = {COUNT_WIDTH{1'b0}};
reg [3:0]             popped_class_reg = 4'd0;
reg [5:0]             popped_app_reg = 6'd0;
reg                   popped_fragment_reg = 1'b0;
reg                   popped_unparsed_reg = 1'b0;

wire [23:0] popped_frame_bytes = out_frame_bytes_reg
    + {{(24-COUNT_WIDTH){1'b0}}, popped_bytes_reg};

always @(posedge aclk) begin
    fifo_mem[fifo_wr_ptr_reg[FIFO_ADDR_WIDTH-1:0]] <= {in_bytes, s_axis_tlast, s_axis_tkeep,
                                                       s_axis_tdata};
    fifo_next_mem[fifo_wr_ptr_reg[FIFO_ADDR_WIDTH-1:0]] <= {in_bytes, s_axis_tlast,
                                                            s_axis_tkeep, s_axis_tdata};
    if (in_beat) begin
        fifo_wr_ptr_reg <= fifo_wr_ptr_reg + 1'b1;
    end
    fifo_full_reg <= fifo_count == FIFO_DEPTH - 1 || (fifo_count == FIFO_DEPTH - 2 && in_beat);
    parser_full_reg <= fifo_count == FIFO_DEPTH - 1 || (fifo_count == FIFO_DEPTH - 2 && in_beat);
    arrived_reg <= {arrived_reg[OUTPUT_DELAY-3:0], in_beat};
    if (arrived_reg[OUTPUT_DELAY-2]) begin
        due_ptr_reg <= due_next_ptr_reg;
        due_next_ptr_reg <= due_next_ptr_reg + 1'b1;
    end
    // the four compares side by side, then the choice (no adder before a compare)
    if (arrived_reg[OUTPUT_DELAY-2]) begin
        head_due_reg <= pop ? due_next_ptr_reg != fifo_rd_next_ptr_reg
            : due_next_ptr_reg != fifo_rd_ptr_reg;
        head_due_data_reg <= pop ? due_next_ptr_reg != fifo_rd_next_ptr_reg
            : due_next_ptr_reg != fifo_rd_ptr_reg;
    end else begin
        head_due_reg <= pop ? due_ptr_reg != fifo_rd_next_ptr_reg : due_ptr_reg != fifo_rd_ptr_reg;
        head_due_data_reg <= pop ? due_ptr_reg != fifo_rd_next_ptr_reg
            : due_ptr_reg != fifo_rd_ptr_reg;
    end
    decision_ready_reg <= pop && head_last ? decision_wr_ptr_reg != decision_rd_next_ptr_reg
        : decision_wr_ptr_reg != decision_rd_ptr_reg;
    decision_ready_data_reg <= pop && head_last ? decision_wr_ptr_reg != decision_rd_next_ptr_reg
        : decision_wr_ptr_reg != decision_rd_ptr_reg;
    current <= pop && head_last
        ? decision_next_mem[decision_rd_next_ptr_reg[FIFO_ADDR_WIDTH-1:0]]
        : decision_mem[decision_rd_ptr_reg[FIFO_ADDR_WIDTH-1:0]];
    if (decision_valid) begin
        decision_mem[decision_wr_ptr_reg[FIFO_ADDR_WIDTH-1:0]] <= decision_entry;
        decision_next_mem[decision_wr_ptr_reg[FIFO_ADDR_WIDTH-1:0]] <= decision_entry;
        decision_wr_ptr_reg <= decision_wr_ptr_reg + 1'b1;
    end
    if (req_valid) begin
        found_mem[found_wr_ptr_reg[FIFO_ADDR_WIDTH-1:0]] <= {req_fragment,
                                                             !req_parsed && !req_fragment,
                                                             req_position_c, req_position_b,
                                                             req_position_a};
        found_wr_ptr_reg <= found_wr_ptr_reg + 1'b1;
    end
    head_reg <= pop_data ? fifo_next_mem[fifo_rd_next_addr_reg] : fifo_mem[fifo_rd_addr_reg];
    if (pop_data) begin
        fifo_rd_addr_reg <= fifo_rd_next_addr_reg;
        fifo_rd_next_addr_reg <= fifo_rd_next_addr_reg + 1'b1;
    end
    if (pop) begin
        fifo_rd_ptr_reg <= fifo_rd_next_ptr_reg;
        fifo_rd_next_ptr_reg <= fifo_rd_next_ptr_reg + 1'b1;
        if (out_offset_reg < 8'd128) begin
            out_offset_reg <= next_offset_reg;
            next_offset_reg <= next_offset_reg + KEEP_WIDTH[7:0];
        end
        if (head_last) begin
            decision_rd_ptr_reg <= decision_rd_next_ptr_reg;
            decision_rd_next_ptr_reg <= decision_rd_next_ptr_reg + 1'b1;
            out_offset_reg <= 8'd0;
            next_offset_reg <= KEEP_WIDTH[7:0];
        end
    end
    popped_reg <= pop;
    popped_last_reg <= pop && head_last;
    popped_bytes_reg <= head_bytes;
    popped_class_reg <= current_class;
    popped_app_reg <= current_app;
    popped_fragment_reg <= current_fragment;
    popped_unparsed_reg <= current_unparsed;
    if (popped_reg) begin
        out_frame_bytes_reg <= popped_last_reg ? 24'd0 : popped_frame_bytes;
    end
    if (rst) begin
        fifo_wr_ptr_reg <= {(FIFO_ADDR_WIDTH+1){1'b0}};
        fifo_rd_ptr_reg <= {(FIFO_ADDR_WIDTH+1){1'b0}};
        fifo_rd_next_ptr_reg <= {{FIFO_ADDR_WIDTH{1'b0}}, 1'b1};
        fifo_rd_addr_reg <= {FIFO_ADDR_WIDTH{1'b0}};
        fifo_rd_next_addr_reg <= {{(FIFO_ADDR_WIDTH-1){1'b0}}, 1'b1};
        fifo_full_reg <= 1'b0;
        parser_full_reg <= 1'b0;
        arrived_reg <= {(OUTPUT_DELAY-1){1'b0}};
        due_ptr_reg <= {(FIFO_ADDR_WIDTH+1){1'b0}};
        due_next_ptr_reg <= {{FIFO_ADDR_WIDTH{1'b0}}, 1'b1};
        head_due_reg <= 1'b0;
        head_due_data_reg <= 1'b0;
        decision_ready_reg <= 1'b0;
        decision_ready_data_reg <= 1'b0;
        decision_wr_ptr_reg <= {(FIFO_ADDR_WIDTH+1){1'b0}};
        found_wr_ptr_reg <= {(FIFO_ADDR_WIDTH+1){1'b0}};
        decision_rd_ptr_reg <= {(FIFO_ADDR_WIDTH+1){1'b0}};
        decision_rd_next_ptr_reg <= {{FIFO_ADDR_WIDTH{1'b0}}, 1'b1};
        out_offset_reg <= 8'd0;
        next_offset_reg <= KEEP_WIDTH[7:0];
        popped_reg <= 1'b0;
        popped_last_reg <= 1'b0;
        out_frame_bytes_reg <= 24'd0;
    end
end

// ---- counters -----------------------------------------------------------------

reg  [31:0]           class_hi_snapshot_reg = 32'd0;
reg [31:0] flows_seen_reg = 32'd0;
reg [31:0] flows_classified_reg = 32'd0;
reg [31:0] flows_guessed_reg = 32'd0;
reg [31:0] flows_refined_reg = 32'd0;
reg [31:0] occupancy_reg = 32'd0;
reg [31:0] insertions_reg = 32'd0;
reg [31:0] evictions_reg = 32'd0;
reg [31:0] failed_reg = 32'd0;
reg [31:0] unparsed_reg = 32'd0;
reg [31:0] oversize_reg = 32'd0;
reg [31:0] flows_named_reg = 32'd0;
reg        named_counted_reg = 1'b0;
reg [31:0] names_skipped_reg = 32'd0;
// NAME_TABLE ({NAMES_ON, ADDR}) and the last NAME_TABLE_DATA written; a data write goes to
// the matcher's table a cycle later
reg [31:0] name_table_reg = 32'd0;
reg [31:0] name_data_reg = 32'd0;
reg        name_tbl_wr_en_reg = 1'b0;
reg [11:0] name_tbl_wr_addr_reg = 12'd0;
assign names_on = name_table_reg[NAME_TABLE_NAMES_ON];
assign name_tbl_wr_en = name_tbl_wr_en_reg;
assign name_tbl_wr_addr = name_tbl_wr_addr_reg;
assign name_tbl_wr_data = name_data_reg;
reg [63:0] fragment_frames_reg = 64'd0;
reg [63:0] fragment_bytes_reg = 64'd0;

// ---- registers ----------------------------------------------------------------

// the common registers (0x00-0x1C) are region_regs'; the offsets from 0x20 up come here
wire                       user_wr_en;
wire [AXIL_ADDR_WIDTH-1:0] wr_word;
// policies are one byte: byte lanes other than 0 carry nothing
/* verilator lint_off UNUSEDSIGNAL */
wire [31:0]                user_wr_data;
wire [3:0]                 user_wr_strb;
/* verilator lint_on UNUSEDSIGNAL */
// a write's error is registered (REGISTERED_WRITE = 2): the decode of every defined offset
// is two cycles' work of its own (its parts registered, then put together)
reg                        user_wr_err = 1'b0;
reg  [3:0]                 wr_defined_reg = 4'd0;
wire                       user_rd_en;
wire [AXIL_ADDR_WIDTH-1:0] rd_word;
// reads are answered from registers (REGISTERED_READ)
reg  [31:0]                user_rd_data = 32'd0;
reg                        user_rd_err = 1'b0;
wire                       clear_counters;

region_regs #(
    .KEEP_WIDTH(KEEP_WIDTH),
    .AXIL_ADDR_WIDTH(AXIL_ADDR_WIDTH),
    .MODULE_ID(MODULE_ID),
    .MODULE_VERSION(MODULE_VERSION),
    .REGISTERED_READ(2),
    .REGISTERED_WRITE(2)
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
    .in_beat(in_beat),
    .in_tlast(s_axis_tlast),
    .out_beat(m_axis_tvalid && m_axis_tready),
    .out_tkeep(m_axis_tkeep),
    .out_tlast(m_axis_tlast),
    .status_user({29'd0, clearing || names_clearing || app_clearing_reg}),
    .clear_counters(clear_counters),
    .user_wr_en(user_wr_en),
    .user_wr_addr(wr_word),
    .user_wr_data(user_wr_data),
    .user_wr_strb(user_wr_strb),
    .user_wr_err(user_wr_err),
    .user_rd_en(user_rd_en),
    .user_rd_addr(rd_word),
    .user_rd_data(user_rd_data),
    .user_rd_err(user_rd_err)
);

// class number of a POLICY or CLASS_FLOWS / CLASS_PACKETS / CLASS_BYTES offset, and whether
// it names one
/* verilator lint_off UNUSEDSIGNAL */
function [3:0] policy_class(input [AXIL_ADDR_WIDTH-1:0] word);
    policy_class = word[5:2];
endfunction

function is_policy(input [AXIL_ADDR_WIDTH-1:0] word);
    is_policy = word >= REG_POLICY + 4 && word < REG_POLICY + 4 * CLASSES;
endfunction

function [3:0] counter_class(input [AXIL_ADDR_WIDTH-1:0] word);
    counter_class = word[6:3];
endfunction
/* verilator lint_on UNUSEDSIGNAL */

function is_app_policy(input [AXIL_ADDR_WIDTH-1:0] word);
    is_app_policy = word >= REG_APP_POLICY + 4 && word < REG_APP_POLICY + 4 * APPLICATIONS;
endfunction

function is_app_flows(input [AXIL_ADDR_WIDTH-1:0] word);
    is_app_flows = word >= REG_APP_FLOWS + 4 && word < REG_APP_FLOWS + 4 * APPLICATIONS;
endfunction

function is_app_packets(input [AXIL_ADDR_WIDTH-1:0] word);
    is_app_packets = word >= REG_APP_PACKETS + 8 && word < REG_APP_PACKETS + 8 * APPLICATIONS;
endfunction

function is_app_bytes(input [AXIL_ADDR_WIDTH-1:0] word);
    is_app_bytes = word >= REG_APP_BYTES + 8 && word < REG_APP_BYTES + 8 * APPLICATIONS;
endfunction

function is_class_packets(input [AXIL_ADDR_WIDTH-1:0] word);
    is_class_packets = word >= REG_CLASS_PACKETS && word < REG_CLASS_PACKETS + 8 * CLASSES;
endfunction

function is_class_bytes(input [AXIL_ADDR_WIDTH-1:0] word);
    is_class_bytes = word >= REG_CLASS_BYTES && word < REG_CLASS_BYTES + 8 * CLASSES;
endfunction

function is_class_flows(input [AXIL_ADDR_WIDTH-1:0] word);
    is_class_flows = word >= REG_CLASS_FLOWS + 4 && word < REG_CLASS_FLOWS + 4 * CLASSES;
endfunction

function is_class_guesses(input [AXIL_ADDR_WIDTH-1:0] word);
    is_class_guesses = word >= REG_CLASS_GUESSES + 4 && word < REG_CLASS_GUESSES + 4 * CLASSES;
endfunction

// FRAGMENT_BYTES (LO or HI); FRAGMENT_FRAMES or FRAGMENT_BYTES
function is_fragment_bytes(input [AXIL_ADDR_WIDTH-1:0] word);
    is_fragment_bytes = word >= REG_FRAGMENT_BYTES_LO && word <= REG_FRAGMENT_BYTES_HI;
endfunction

function is_fragment_counter(input [AXIL_ADDR_WIDTH-1:0] word);
    is_fragment_counter = (word >= REG_FRAGMENT_FRAMES_LO && word <= REG_FRAGMENT_FRAMES_HI)
        || is_fragment_bytes(word);
endfunction

// every defined offset, in parts (each registered; a write's error is their OR, inverted)
function [3:0] defined_parts(input [AXIL_ADDR_WIDTH-1:0] word);
    defined_parts = {
        (word >= REG_FLOW_TABLE_DEPTH && word <= REG_TIMESTAMP) || is_policy(word)
            || is_class_packets(word) || is_class_bytes(word),
        (word >= REG_FLOWS_SEEN && word <= REG_OVERSIZE_FRAMES) || is_fragment_counter(word)
            || word == REG_FLOWS_GUESSED || word == REG_FLOWS_REFINED
            || word == REG_FLOWS_NAMED || word == REG_NAMES_SKIPPED
            || word == REG_NAME_TABLE || word == REG_NAME_TABLE_DATA,
        is_class_flows(word) || is_class_guesses(word) || is_app_policy(word),
        is_app_flows(word) || is_app_packets(word) || is_app_bytes(word)};
endfunction

// writes to the vTC's own registers take effect a cycle after they are taken, from
// registers: which register the write names (decoded from the held address: one flag per
// class's policy) and its data; a read comes cycles after the write's answer
reg [CLASSES-1:0] wr_policy_reg = {CLASSES{1'b0}};
reg               wr_app_policy_reg = 1'b0;
reg [5:0]         wr_app_index_reg = 6'd0;
reg               wr_name_table_reg = 1'b0;
reg               wr_name_data_reg = 1'b0;
reg [31:0]        wr_data_reg = 32'd0;

always @(posedge aclk) begin
    for (c = 0; c < CLASSES; c = c + 1) begin
        wr_policy_reg[c] <= user_wr_en && is_policy(wr_word) && user_wr_strb[0]
            && policy_class(wr_word) == c[3:0];
    end
    wr_app_policy_reg <= user_wr_en && is_app_policy(wr_word) && user_wr_strb[0];
    wr_app_index_reg <= wr_word[7:2];
    wr_name_table_reg <= user_wr_en && wr_word == REG_NAME_TABLE;
    wr_name_data_reg <= user_wr_en && wr_word == REG_NAME_TABLE_DATA;
    wr_data_reg <= user_wr_data;
    if (rst) begin
        wr_policy_reg <= {CLASSES{1'b0}};
        wr_app_policy_reg <= 1'b0;
        wr_name_table_reg <= 1'b0;
        wr_name_data_reg <= 1'b0;
    end
end

// APP_POLICY: a RAM of 64 policies (0 and those above the applications stay 0: no write
// reaches them), emptied in 64 cycles after a reset (TABLE_CLEARING meanwhile; a write then
// is lost); read by the flow table and by the register read, each asynchronously
reg [7:0] app_policy_mem [0:63];
reg       app_clearing_reg = 1'b1;
reg [5:0] app_clear_index_reg = 6'd0;

always @(posedge aclk) begin
    if (app_clearing_reg || wr_app_policy_reg) begin
        app_policy_mem[app_clearing_reg ? app_clear_index_reg : wr_app_index_reg] <=
            app_clearing_reg ? 8'd0 : wr_data_reg[7:0];
    end
    if (app_clearing_reg) begin
        app_clear_index_reg <= app_clear_index_reg + 6'd1;
        if (&app_clear_index_reg) begin
            app_clearing_reg <= 1'b0;
        end
    end
    if (rst) begin
        app_clearing_reg <= 1'b1;
        app_clear_index_reg <= 6'd0;
    end
end

assign app_policy_data = app_policy_mem[app_policy_addr];

// reads go through three register stages (the address is held for four cycles,
// REGISTERED_READ = 2): the address, copied here (what the read multiplexer decodes starts
// at a register of its own); each kind of register's value for it, and which kind it names;
// the value it names
reg [AXIL_ADDR_WIDTH-1:0] rd_word_reg = {AXIL_ADDR_WIDTH{1'b0}};

// copies of it, and decodes of it, for the parts of the read multiplexer that are far apart
// (one address register reaching all of them was the slowest route of the read): which class's
// counters (one copy for the packets, one for the bytes), which class's policy, the class
// flow RAM's address, which named register (an index) and whether one, the fragment counter.
// The copies differ in their power-up value only, which keeps synthesis from merging them
// (they are never looked at before a read).
reg [3:0]  rd_frames_class_reg = 4'd1;   // the class frame counters' read address
reg        rd_class_bytes_pre_reg = 1'b0; // and whether the bytes
reg [3:0]  rd_policy_class_reg = 4'd3;
reg [4:0]  rd_flows_addr_n_reg = 5'h1F;   // inverted: no bit of it is merged into a copy
reg [3:0]  rd_named_index_reg = 4'd0;
reg        rd_named_pre_reg = 1'b0;
// the names' registers, a multiplexer of their own beside the named ones'
reg [1:0]  rd_names_index_reg = 2'd0;
reg        rd_names_pre_reg = 1'b0;
reg        rd_fragment_bytes_reg = 1'b0;
// the counters by application: the application's flow count and frame word (packets, or
// bytes), and which the address names
reg [5:0]  rd_app_flows_addr_reg = 6'd0;
reg [5:0]  rd_app_frames_addr_reg = 6'd0;
reg        rd_app_bytes_pre_reg = 1'b0;
reg        rd_app_flows_pre_reg = 1'b0;
reg        rd_app_frames_pre_reg = 1'b0;

// the named registers' index, with bit 4 set when the address names one
function [4:0] named_index(input [AXIL_ADDR_WIDTH-1:0] word);
    case (word)
        REG_FLOW_TABLE_DEPTH:       named_index = 5'h10;
        REG_INSPECT_PACKETS:        named_index = 5'h11;
        REG_FLOW_TIMEOUT:           named_index = 5'h12;
        REG_TIMESTAMP:              named_index = 5'h13;
        REG_FLOWS_SEEN:             named_index = 5'h14;
        REG_FLOWS_CLASSIFIED:       named_index = 5'h15;
        REG_FLOWS_GUESSED:          named_index = 5'h16;
        REG_FLOWS_REFINED:          named_index = 5'h17;
        REG_FLOW_OCCUPANCY:         named_index = 5'h18;
        REG_FLOW_INSERTIONS:        named_index = 5'h19;
        REG_FLOW_EVICTIONS:         named_index = 5'h1A;
        REG_FLOW_FAILED_INSERTIONS: named_index = 5'h1B;
        REG_UNPARSED_FRAMES:        named_index = 5'h1C;
        REG_OVERSIZE_FRAMES:        named_index = 5'h1D;
        default:                    named_index = 5'h00;
    endcase
endfunction

// the names' registers' index, with bit 2 set when the address names one
function [2:0] names_index(input [AXIL_ADDR_WIDTH-1:0] word);
    case (word)
        REG_FLOWS_NAMED:            names_index = 3'h4;
        REG_NAMES_SKIPPED:          names_index = 3'h5;
        REG_NAME_TABLE:             names_index = 3'h6;
        REG_NAME_TABLE_DATA:        names_index = 3'h7;
        default:                    names_index = 3'h0;
    endcase
endfunction

// the counters' read addresses, registered, and their high bits before (the stale flags'
// groups, held with the address)
wire [3:0] rd_frames_class = counter_class(rd_word);
wire [5:0] rd_app_flows_addr = rd_word[7:2];
wire [5:0] rd_app_frames_addr = rd_word[8:3];

always @(posedge aclk) begin
    rd_word_reg <= rd_word;
    rd_frames_class_reg <= rd_frames_class;
    rd_class_bytes_pre_reg <= is_class_bytes(rd_word);
    rd_policy_class_reg <= policy_class(rd_word);
    rd_flows_addr_n_reg <= ~{is_class_guesses(rd_word), policy_class(rd_word)};
    {rd_named_pre_reg, rd_named_index_reg} <= named_index(rd_word);
    {rd_names_pre_reg, rd_names_index_reg} <= names_index(rd_word);
    rd_fragment_bytes_reg <= is_fragment_bytes(rd_word);
    rd_app_flows_addr_reg <= rd_app_flows_addr;
    rd_app_frames_addr_reg <= rd_app_frames_addr;
    rd_app_bytes_pre_reg <= is_app_bytes(rd_word);
    rd_app_flows_pre_reg <= is_app_flows(rd_word);
    rd_app_frames_pre_reg <= is_app_packets(rd_word) || is_app_bytes(rd_word);
    // writes to read-only registers are ignored; unmapped addresses are errors (looked at
    // two cycles after the write's strobe, the address held)
    wr_defined_reg <= defined_parts(wr_word);
    user_wr_err <= ~|wr_defined_reg;
end

wire [63:0] read_fragment = rd_fragment_bytes_reg ? fragment_bytes_reg : fragment_frames_reg;

// one class's policy, selected for the register read
reg [7:0]  read_policy;

always @* begin
    read_policy = 8'd0;
    for (c = 0; c < CLASSES; c = c + 1) begin
        if (rd_policy_class_reg == c[3:0]) begin
            read_policy = policy[8*c +: 8];
        end
    end
end

// a frame that left, counted two cycles after in its class and its application (the frame
// counters' RAMs, two cycles more) or as a fragment (and as unparsed)
reg        count_frame_reg = 1'b0;
reg        count_fragment_reg = 1'b0;
reg        count_unparsed_reg = 1'b0;
reg [3:0]  count_class_reg = 4'd0;
reg [5:0]  count_app_reg = 6'd0;
reg [23:0] count_bytes_reg = 24'd0;

always @(posedge aclk) begin
    count_frame_reg <= popped_last_reg && !popped_fragment_reg;
    count_fragment_reg <= popped_last_reg && popped_fragment_reg;
    count_unparsed_reg <= popped_last_reg && popped_unparsed_reg;
    count_class_reg <= popped_class_reg;
    count_app_reg <= popped_app_reg;
    count_bytes_reg <= popped_frame_bytes;
    if (rst) begin
        count_frame_reg <= 1'b0;
        count_fragment_reg <= 1'b0;
        count_unparsed_reg <= 1'b0;
    end
end

// CLASS_FLOWS and CLASS_GUESSES: a small RAM, read at {guesses, class}
wire [31:0] read_flows;
wire        read_flows_stale;

vtc_class_counters class_counters (
    .clk(aclk),
    .rst(rst),
    .clear(clear_counters),
    .classified(event_classified),
    .refined(event_refined),
    .klass(event_class),
    .from(event_refined_from),
    .guess_valid(event_guessed),
    .guess_class(event_guess_class),
    .rd_addr(~rd_flows_addr_n_reg),
    .rd_data(read_flows),
    .rd_stale(read_flows_stale)
);

// CLASS_PACKETS and CLASS_BYTES: a frame that left (not a fragment) in its class after it;
// frames of one class may leave a cycle apart
wire [63:0] read_class_frames;
wire        read_class_frames_stale;

vtc_frame_counters #(
    .INDEX_WIDTH(4),
    .SPACED(0)
)
class_frames (
    .clk(aclk),
    .rst(rst),
    .clear(clear_counters),
    .count(count_frame_reg),
    .index(count_class_reg),
    .bytes(count_bytes_reg),
    .rd_index(rd_frames_class_reg),
    .rd_group(rd_frames_class[3]),
    .rd_bytes(rd_class_bytes_pre_reg),
    .rd_data(read_class_frames),
    .rd_stale(read_class_frames_stale)
);

// APP_PACKETS and APP_BYTES: a parsed frame that left, by the application its flow had
// before it (0: none, not mapped); parsed frames are six beats or more apart
wire [63:0] read_app_frames;
wire        read_app_frames_stale;

vtc_frame_counters #(
    .INDEX_WIDTH(6),
    .SPACED(1)
)
app_frames (
    .clk(aclk),
    .rst(rst),
    .clear(clear_counters),
    .count(count_frame_reg && !count_unparsed_reg),
    .index(count_app_reg),
    .bytes(count_bytes_reg),
    .rd_index(rd_app_frames_addr_reg),
    .rd_group(rd_app_frames_addr[5:3]),
    .rd_bytes(rd_app_bytes_pre_reg),
    .rd_data(read_app_frames),
    .rd_stale(read_app_frames_stale)
);

// APP_FLOWS: a flow named (an application of the table, or another's name: 63, not mapped)
wire [31:0] read_app_flows;
wire        read_app_flows_stale;

vtc_app_flows app_flows (
    .clk(aclk),
    .rst(rst),
    .clear(clear_counters),
    .named(event_named),
    .named_app(event_named_app),
    .rd_addr(rd_app_flows_addr_reg),
    .rd_group(rd_app_flows_addr[5:3]),
    .rd_data(read_app_flows),
    .rd_stale(read_app_flows_stale)
);

// per-class policy registers, each written only when its class is selected (an indexed
// write into an array costs a demultiplexer per bit)
genvar g;
generate
    for (g = 0; g < CLASSES; g = g + 1) begin : per_class
        localparam [3:0] CLASS = g;
        reg [7:0]  class_policy_reg = 8'd0;

        always @(posedge aclk) begin
            if (wr_policy_reg[g] && CLASS != 4'd0) begin
                class_policy_reg <= wr_data_reg[7:0] & 8'hBF;
            end
            if (rst) begin
                class_policy_reg <= 8'd0;
            end
        end

        assign policy[8*g +: 8] = class_policy_reg;
    end
endgenerate
assign policy[127:8*CLASSES] = {(128-8*CLASSES){1'b0}};

// the read's second stage: each kind of register's value for the address, and which kind the
// address names
reg [31:0] named_data;
reg        named;

always @* begin
    named = rd_named_pre_reg;
    named_data = 32'd0;
    case (rd_named_index_reg)
        4'h0: named_data = FLOW_TABLE_DEPTH;
        4'h1: named_data = INSPECT_PACKETS;
        4'h2: named_data = FLOW_TIMEOUT;
        4'h3: named_data = {16'd0, timestamp};
        4'h4: named_data = flows_seen_reg;
        4'h5: named_data = flows_classified_reg;
        4'h6: named_data = flows_guessed_reg;
        4'h7: named_data = flows_refined_reg;
        4'h8: named_data = occupancy_reg;
        4'h9: named_data = insertions_reg;
        4'hA: named_data = evictions_reg;
        4'hB: named_data = failed_reg;
        4'hC: named_data = unparsed_reg;
        4'hD: named_data = oversize_reg;
        default: named_data = 32'd0;
    endcase
end

reg        rd_snapshot_reg = 1'b0;  // a 64-bit counter's LO word: reading it latches HI
reg        rd_policy_reg = 1'b0;
reg        rd_app_policy_reg = 1'b0;
reg [7:0]  rd_app_policy_data_reg = 8'd0;
reg        rd_flows_reg = 1'b0;
reg        rd_class_frames_reg = 1'b0;
reg        rd_named_reg = 1'b0;
reg        rd_fragment_reg = 1'b0;
reg [7:0]  rd_policy_data_reg = 8'd0;
reg [31:0] rd_flows_data_reg = 32'd0;
reg        rd_flows_stale_reg = 1'b0;
reg [63:0] rd_class_frames_data_reg = 64'd0;
reg        rd_class_frames_stale_reg = 1'b0;
reg [31:0] rd_named_data_reg = 32'd0;
reg        rd_names_reg = 1'b0;
reg [31:0] rd_names_data_reg = 32'd0;
reg [63:0] rd_fragment_data_reg = 64'd0;
reg        rd_app_flows_reg = 1'b0;
reg [31:0] rd_app_flows_data_reg = 32'd0;
reg        rd_app_flows_stale_reg = 1'b0;
reg        rd_app_frames_reg = 1'b0;
reg [63:0] rd_app_frames_data_reg = 64'd0;
reg        rd_app_frames_stale_reg = 1'b0;

always @(posedge aclk) begin
    rd_snapshot_reg <= (is_class_packets(rd_word_reg) || is_class_bytes(rd_word_reg)
                        || is_fragment_counter(rd_word_reg) || rd_app_frames_pre_reg)
                       && !rd_word_reg[2];
    rd_policy_reg <= is_policy(rd_word_reg);
    rd_app_policy_reg <= is_app_policy(rd_word_reg);
    rd_app_policy_data_reg <= app_policy_mem[rd_word_reg[7:2]];
    rd_flows_reg <= is_class_flows(rd_word_reg) || is_class_guesses(rd_word_reg);
    rd_class_frames_reg <= is_class_packets(rd_word_reg) || is_class_bytes(rd_word_reg);
    rd_named_reg <= named;
    rd_fragment_reg <= is_fragment_counter(rd_word_reg);
    rd_policy_data_reg <= read_policy;
    rd_flows_data_reg <= read_flows;
    rd_flows_stale_reg <= read_flows_stale;
    rd_class_frames_data_reg <= read_class_frames;
    rd_class_frames_stale_reg <= read_class_frames_stale;
    rd_named_data_reg <= named_data;
    rd_names_reg <= rd_names_pre_reg;
    case (rd_names_index_reg)
        2'd0: rd_names_data_reg <= flows_named_reg;
        2'd1: rd_names_data_reg <= names_skipped_reg;
        2'd2: rd_names_data_reg <= name_table_reg;
        default: rd_names_data_reg <= name_data_reg;
    endcase
    rd_fragment_data_reg <= read_fragment;
    rd_app_flows_reg <= rd_app_flows_pre_reg;
    rd_app_flows_data_reg <= read_app_flows;
    rd_app_flows_stale_reg <= read_app_flows_stale;
    rd_app_frames_reg <= rd_app_frames_pre_reg;
    rd_app_frames_data_reg <= read_app_frames;
    rd_app_frames_stale_reg <= read_app_frames_stale;
end

// then the value the address names (the kinds are disjoint), and the high word of the
// 64-bit counter it names, taken with its low word
reg [31:0] rd_high_reg = 32'd0;

always @(posedge aclk) begin
    rd_high_reg <= ({32{rd_class_frames_reg && !rd_class_frames_stale_reg}}
                    & rd_class_frames_data_reg[63:32])
        | ({32{rd_fragment_reg}} & rd_fragment_data_reg[63:32])
        | ({32{rd_app_frames_reg && !rd_app_frames_stale_reg}} & rd_app_frames_data_reg[63:32]);
    user_rd_err <= !(rd_policy_reg || rd_app_policy_reg || rd_flows_reg || rd_class_frames_reg
                     || rd_fragment_reg || rd_named_reg || rd_names_reg || rd_app_flows_reg
                     || rd_app_frames_reg);
    user_rd_data <= ({32{rd_policy_reg}} & {24'd0, rd_policy_data_reg})
        | ({32{rd_app_policy_reg}} & {24'd0, rd_app_policy_data_reg})
        | ({32{rd_flows_reg && !rd_flows_stale_reg}} & rd_flows_data_reg)
        | ({32{(rd_class_frames_reg || rd_app_frames_reg) && rd_word_reg[2]}}
           & class_hi_snapshot_reg)
        | ({32{rd_class_frames_reg && !rd_word_reg[2] && !rd_class_frames_stale_reg}}
           & rd_class_frames_data_reg[31:0])
        | ({32{rd_fragment_reg}} & (rd_word_reg[2] ? class_hi_snapshot_reg : rd_fragment_data_reg[31:0]))
        | ({32{rd_named_reg}} & rd_named_data_reg)
        | ({32{rd_names_reg}} & rd_names_data_reg)
        | ({32{rd_app_flows_reg && !rd_app_flows_stale_reg}} & rd_app_flows_data_reg)
        | ({32{rd_app_frames_reg && !rd_word_reg[2] && !rd_app_frames_stale_reg}}
           & rd_app_frames_data_reg[31:0]);
end

always @(posedge aclk) begin
    flows_seen_reg <= flows_seen_reg + {31'd0, event_seen};
    flows_classified_reg <= flows_classified_reg + {31'd0, event_classified};
    flows_guessed_reg <= flows_guessed_reg + {31'd0, event_guessed};
    flows_refined_reg <= flows_refined_reg + {31'd0, event_refined};
    occupancy_reg <= occupancy_reg + {31'd0, event_occupied};
    insertions_reg <= insertions_reg + {31'd0, event_inserted};
    evictions_reg <= evictions_reg + {31'd0, event_evicted};
    failed_reg <= failed_reg + {31'd0, event_failed};
    unparsed_reg <= unparsed_reg + {31'd0, count_unparsed_reg};
    oversize_reg <= oversize_reg + {31'd0, parser_oversize};
    // a flow given an application of the table (1..62; 63 names another application's),
    // counted a cycle after the event (the compares registered apart from the adder)
    named_counted_reg <= event_named && event_named_app != 6'd0 && event_named_app != 6'h3F;
    flows_named_reg <= flows_named_reg + {31'd0, named_counted_reg};
    names_skipped_reg <= names_skipped_reg + {31'd0, name_skip_valid};
    name_tbl_wr_en_reg <= 1'b0;
    if (wr_name_table_reg) begin
        name_table_reg <= {wr_data_reg[NAME_TABLE_NAMES_ON], 19'd0,
                           wr_data_reg[NAME_TABLE_ADDR +: NAME_TABLE_ADDR_WIDTH]};
    end
    if (wr_name_data_reg) begin
        name_data_reg <= wr_data_reg;
        name_tbl_wr_en_reg <= 1'b1;
        name_tbl_wr_addr_reg <= name_table_reg[NAME_TABLE_ADDR +: NAME_TABLE_ADDR_WIDTH];
        name_table_reg[NAME_TABLE_ADDR +: NAME_TABLE_ADDR_WIDTH] <=
            name_table_reg[NAME_TABLE_ADDR +: NAME_TABLE_ADDR_WIDTH] + 1'b1;
    end
    if (count_fragment_reg) begin
        fragment_frames_reg <= fragment_frames_reg + 64'd1;
        fragment_bytes_reg <= fragment_bytes_reg + {40'd0, count_bytes_reg};
    end

    // reading a low word latches its high word, as it was when the low word was, so a
    // 64-bit value reads consistently (the address, held, was decoded two cycles before)
    if (user_rd_en && rd_snapshot_reg) begin
        class_hi_snapshot_reg <= rd_high_reg;
    end

    if (clear_counters) begin
        flows_seen_reg <= 32'd0;
        flows_classified_reg <= 32'd0;
        flows_guessed_reg <= 32'd0;
        flows_refined_reg <= 32'd0;
        insertions_reg <= 32'd0;
        evictions_reg <= 32'd0;
        failed_reg <= 32'd0;
        unparsed_reg <= 32'd0;
        oversize_reg <= 32'd0;
        fragment_frames_reg <= 64'd0;
        fragment_bytes_reg <= 64'd0;
        flows_named_reg <= 32'd0;
        named_counted_reg <= 1'b0;
        names_skipped_reg <= 32'd0;
    end

    if (rst) begin
        flows_named_reg <= 32'd0;
        named_counted_reg <= 1'b0;
        names_skipped_reg <= 32'd0;
        name_table_reg <= 32'd0;
        name_data_reg <= 32'd0;
        name_tbl_wr_en_reg <= 1'b0;
        class_hi_snapshot_reg <= 32'd0;
        flows_seen_reg <= 32'd0;
        flows_classified_reg <= 32'd0;
        flows_guessed_reg <= 32'd0;
        flows_refined_reg <= 32'd0;
        occupancy_reg <= 32'd0;
        insertions_reg <= 32'd0;
        evictions_reg <= 32'd0;
        failed_reg <= 32'd0;
        unparsed_reg <= 32'd0;
        oversize_reg <= 32'd0;
        fragment_frames_reg <= 64'd0;
        fragment_bytes_reg <= 64'd0;
    end
end

endmodule

`resetall
