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
 * vTC header parser: turns each frame's first 128 bytes into a flow-table
 * request.
 *
 * The window (the frame's first WINDOW_BYTES bytes, zero beyond its end) is
 * captured as the beats go by; at the window's end (the frame's last beat,
 * or its 128th byte) it is copied into a second register and parsed over
 * fourteen pipeline stages, each small enough for a 156.25 MHz cycle: link
 * (tags, PPPoE), the outer IP header's first bytes, outer IP (fits,
 * fragment, outer L4 offset; the GTP-U checks at every possible offset),
 * GTP-U bytes (the checks at the offset picked), GTP-U (where the flow's IP
 * header is), flow IP header (selected in two steps, the second also finds
 * the L4 offset), flow IP fields (and the L4 bytes' first selection step),
 * L4 (ports, address compare; the payload offset), key (canonical key,
 * lengths; the payload's first selection step), payload (signature bytes,
 * hash), signature compares, signatures (which match), class (the lowest
 * that matches).  A selection from the window by a computed offset is done
 * in two registered steps (the 4-slot group, then the slot in it), so that
 * no stage has a wide multiplexer and its routing.  One request leaves per
 * frame, in frame order, 16 cycles after the window's end.  Only windows of
 * at least MIN_PARSE_BYTES are copied (the shortest TCP/UDP frame), so a copy
 * is held for at least that many beats (6 at 64 bits): the first seven stages
 * read it (on cycles 1, 2, 3 and 6 after it was taken), and the fourth copies
 * it once more for the L4 and payload selections (cycles 8 and 10).
 * hdl/README.md (the vTC section) and hdl/tests/vtc_model.py define what is
 * parsed.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module vtc_parser #
(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    // frames longer than this, by their IP header's length, are not parsed
    parameter MAX_FRAME_LEN = 9018,
    // flow-table buckets = 2**BUCKET_BITS
    parameter BUCKET_BITS = 10
)
(
    input  wire                   clk,
    input  wire                   rst,

    // the input stream's handshaken beats
    input  wire [DATA_WIDTH-1:0]  in_tdata,
    input  wire [KEEP_WIDTH-1:0]  in_tkeep,
    input  wire                   in_tlast,
    input  wire                   in_beat,

    // a frame longer than MAX_FRAME_LEN bytes ended
    output reg                    oversize = 1'b0,

    // one request per frame, in order
    output reg                    req_valid = 1'b0,
    output reg                    req_parsed = 1'b0,
    output reg  [104:0]           req_key = 105'd0,
    output reg  [BUCKET_BITS-1:0] req_bucket = {BUCKET_BITS{1'b0}},
    output reg                    req_payload = 1'b0,
    output reg  [3:0]             req_match = 4'd0,
    output reg                    req_ipv6 = 1'b0,
    output reg  [1:0]             req_tags = 2'd0,
    // a PPPoE session header lies between the tags and the (outer) IP header
    output reg                    req_pppoe = 1'b0,
    // an IPv4 fragment other than the first (not parsed, counted apart)
    output reg                    req_fragment = 1'b0,
    // a TCP FIN or RST (the flow ends); an HTTP CONNECT request; a UDP RTP candidate and
    // its {SSRC, sequence number} (payload bytes 8..11 and 2..3)
    output reg                    req_end = 1'b0,
    // a TCP SYN (the frame opens its flow); the payload may be another protocol's message
    // (vtc_signatures' other)
    output reg                    req_syn = 1'b0,
    output reg                    req_other = 1'b0,
    output reg                    req_connect = 1'b0,
    output reg                    req_rtp = 1'b0,
    output reg  [47:0]            req_rtp_id = 48'd0,
    output reg  [7:0]             req_byte0 = 8'd0,
    output reg  [7:0]             req_byte1 = 8'd0,
    output reg  [15:0]            req_checksum = 16'd0,
    // a parsed frame's payload: its offset in the frame and its length (by the IP header)
    output reg  [7:0]             req_payload_start = 8'd0,
    output reg  [15:0]            req_payload_length = 16'd0
);

localparam WINDOW_BYTES = 128;
localparam WINDOW_BEATS = WINDOW_BYTES / KEEP_WIDTH;
localparam WINDOW_BITS = WINDOW_BYTES * 8;
localparam BEAT_INDEX_WIDTH = $clog2(WINDOW_BEATS + 1);
localparam SIGNATURE_BYTES = 12;
// Ethernet + IPv4 + UDP headers
localparam MIN_PARSE_BYTES = 42;
// the window padded with zeros far enough for any L3 offset (slot 0..31); the copy the L4 and
// payload stages read, for any L4 or payload offset
localparam PADDED_BITS = WINDOW_BITS + 8 * 64;
localparam L4_PADDED_BITS = WINDOW_BITS + 8 * 32;
localparam LEN_WIDTH = $clog2(MAX_FRAME_LEN + 2);
localparam COUNT_WIDTH = $clog2(KEEP_WIDTH + 1);
localparam CAP_WIDTH = 8;
localparam WINDOW_LAST_BEAT = WINDOW_BEATS - 1;
localparam [BEAT_INDEX_WIDTH-1:0] WINDOW_END_BEAT = WINDOW_LAST_BEAT[BEAT_INDEX_WIDTH-1:0];
localparam [CAP_WIDTH-1:0] BEAT_BYTES = KEEP_WIDTH[CAP_WIDTH-1:0];

function [15:0] be16(input [15:0] bytes);
    be16 = {bytes[7:0], bytes[15:8]};
endfunction

function [31:0] be32(input [31:0] bytes);
    be32 = {bytes[7:0], bytes[15:8], bytes[23:16], bytes[31:24]};
endfunction

function [127:0] be128(input [127:0] bytes);
    integer n;
    begin
        for (n = 0; n < 16; n = n + 1) begin
            be128[8*(15-n) +: 8] = bytes[8*n +: 8];
        end
    end
endfunction

function [31:0] fold(input [127:0] address);
    fold = address[127:96] ^ address[95:64] ^ address[63:32] ^ address[31:0];
endfunction

function is_vlan(input [15:0] ethertype);
    is_vlan = ethertype == 16'h8100 || ethertype == 16'h88A8;
endfunction

// ---- window capture -------------------------------------------------------

wire [WINDOW_BITS-1:0]     window;  // the beats captured so far, one register per beat
reg [BEAT_INDEX_WIDTH-1:0] beat_index_reg = {BEAT_INDEX_WIDTH{1'b0}};
reg [LEN_WIDTH-1:0]        length_reg = {LEN_WIDTH{1'b0}};

reg [COUNT_WIDTH-1:0] beat_bytes;
reg [DATA_WIDTH-1:0]  keep_mask;
integer i;

always @* begin
    beat_bytes = {COUNT_WIDTH{1'b0}};
    for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
        beat_bytes = beat_bytes + {{(COUNT_WIDTH-1){1'b0}}, in_tkeep[i]};
        keep_mask[8*i +: 8] = {8{in_tkeep[i]}};
    end
end

wire in_window = !beat_index_reg[BEAT_INDEX_WIDTH-1];
// beat_index_reg one-hot (all zero past the window): a window beat's write enable is one
// LUT from in_beat (it drives DATA_WIDTH flip-flops' enables; a compare of the index before
// it was a worst path)
reg [WINDOW_BEATS-1:0]     beat_onehot_reg = {{(WINDOW_BEATS-1){1'b0}}, 1'b1};

// one register per beat of the window, each written when its beat comes in (an indexed
// write into one wide register costs thousands of LUTs)
genvar g;
generate
    for (g = 0; g < WINDOW_BEATS; g = g + 1) begin : window_beat
        reg [DATA_WIDTH-1:0] beat_reg = {DATA_WIDTH{1'b0}};

        always @(posedge clk) begin
            if (in_beat && beat_onehot_reg[g]) begin
                beat_reg <= in_tdata & keep_mask;
            end
        end

        assign window[DATA_WIDTH*g +: DATA_WIDTH] = beat_reg;
    end
endgenerate
wire window_end = in_beat && in_window && (in_tlast || beat_index_reg == WINDOW_END_BEAT);
// the window holds MIN_PARSE_BYTES or more (captured >= MIN_PARSE_BYTES), decided without
// adding: the MIN_PARSE_BYTES-th byte is byte FULL_BEAT_BYTES of beat FULL_BEAT
localparam FULL_BEAT_INDEX = (MIN_PARSE_BYTES - 1) / KEEP_WIDTH;
localparam FULL_BEAT_COUNT = MIN_PARSE_BYTES - FULL_BEAT_INDEX * KEEP_WIDTH;
localparam [BEAT_INDEX_WIDTH-1:0] FULL_BEAT = FULL_BEAT_INDEX[BEAT_INDEX_WIDTH-1:0];
localparam [COUNT_WIDTH-1:0] FULL_BEAT_BYTES = FULL_BEAT_COUNT[COUNT_WIDTH-1:0];
wire long_enough = beat_index_reg > FULL_BEAT
    || (beat_index_reg == FULL_BEAT && beat_bytes >= FULL_BEAT_BYTES);

// the frame length is counted a cycle behind the beats (their byte counts registered)
reg                   counted_beat_reg = 1'b0;
reg                   counted_last_reg = 1'b0;
reg [COUNT_WIDTH-1:0] counted_bytes_reg = {COUNT_WIDTH{1'b0}};
wire [LEN_WIDTH-1:0] frame_length = length_reg
    + {{(LEN_WIDTH-COUNT_WIDTH){1'b0}}, counted_bytes_reg};
// MAX_FRAME_LEN less those bytes, registered with them: whether the frame grows too long is
// a compare beside the sum, not one after it
localparam [LEN_WIDTH:0] FRAME_LIMIT = MAX_FRAME_LEN;
reg [LEN_WIDTH:0]     counted_limit_reg = FRAME_LIMIT;
wire                  too_long = {1'b0, length_reg} > counted_limit_reg;

// the window whose last beat is being written; bytes past `captured` are stale and
// never looked at, except payload bytes, which are masked in the payload stage
reg                   w_valid = 1'b0;
reg                   w_full = 1'b0;
reg [BEAT_INDEX_WIDTH-1:0] w_beat_index = {BEAT_INDEX_WIDTH{1'b0}};  // of its last beat
reg [COUNT_WIDTH-1:0] w_beat_bytes = {COUNT_WIDTH{1'b0}};          // in its last beat
// the bytes it holds
wire [CAP_WIDTH-1:0] captured = {{(CAP_WIDTH-BEAT_INDEX_WIDTH){1'b0}}, w_beat_index} * BEAT_BYTES
    + {{(CAP_WIDTH-COUNT_WIDTH){1'b0}}, w_beat_bytes};
// stage 0: the window being parsed
reg [WINDOW_BITS-1:0] parse_window_reg = {WINDOW_BITS{1'b0}};
reg                   s0_valid = 1'b0;
reg                   s0_full = 1'b0;
reg [CAP_WIDTH-1:0]   s0_captured = {CAP_WIDTH{1'b0}};
// the link layer's compares, done on the window as it is copied (they are at fixed places):
// a tag's ethertype at bytes 12 and 16; for no, one and two tags (position 0, 1, 2) the
// ethertype IPv4, IPv6 and PPPoE session, the PPPoE version/type and code, and the PPP
// protocol IPv4 and IPv6
reg [1:0]             s0_vlan = 2'd0;
reg [2:0]             s0_type_ipv4 = 3'd0;
reg [2:0]             s0_type_ipv6 = 3'd0;
reg [2:0]             s0_type_pppoe = 3'd0;
reg [2:0]             s0_pppoe_session = 3'd0;
reg [2:0]             s0_ppp_ipv4 = 3'd0;
reg [2:0]             s0_ppp_ipv6 = 3'd0;

always @(posedge clk) begin
    oversize <= 1'b0;
    if (in_beat) begin
        if (in_window) begin
            beat_index_reg <= beat_index_reg + 1'b1;
            beat_onehot_reg <= {beat_onehot_reg[WINDOW_BEATS-2:0], 1'b0};
        end
        if (in_tlast) begin
            beat_index_reg <= {BEAT_INDEX_WIDTH{1'b0}};
            beat_onehot_reg <= {{(WINDOW_BEATS-1){1'b0}}, 1'b1};
        end
    end
    counted_beat_reg <= in_beat;
    counted_last_reg <= in_tlast;
    counted_bytes_reg <= beat_bytes;
    counted_limit_reg <= FRAME_LIMIT - {{(LEN_WIDTH+1-COUNT_WIDTH){1'b0}}, beat_bytes};
    if (counted_beat_reg) begin
        if (too_long) begin
            length_reg <= {LEN_WIDTH{1'b1}};
        end else begin
            length_reg <= frame_length;
        end
        if (counted_last_reg) begin
            length_reg <= {LEN_WIDTH{1'b0}};
            oversize <= too_long;
        end
    end
    w_valid <= window_end;
    w_full <= window_end && long_enough;
    w_beat_index <= beat_index_reg;
    w_beat_bytes <= beat_bytes;
    s0_valid <= w_valid;
    s0_full <= w_full;
    s0_captured <= captured;
    if (w_full) begin
        parse_window_reg <= window;
    end
    for (i = 0; i < 2; i = i + 1) begin
        s0_vlan[i] <= is_vlan(be16(window[8*(12+4*i) +: 16]));
    end
    for (i = 0; i < 3; i = i + 1) begin
        s0_type_ipv4[i] <= be16(window[8*(12+4*i) +: 16]) == 16'h0800;
        s0_type_ipv6[i] <= be16(window[8*(12+4*i) +: 16]) == 16'h86DD;
        s0_type_pppoe[i] <= be16(window[8*(12+4*i) +: 16]) == 16'h8864;
        s0_pppoe_session[i] <= window[8*(14+4*i) +: 16] == 16'h0011;
        s0_ppp_ipv4[i] <= be16(window[8*(20+4*i) +: 16]) == 16'h0021;
        s0_ppp_ipv6[i] <= be16(window[8*(20+4*i) +: 16]) == 16'h0057;
    end

    if (rst) begin
        oversize <= 1'b0;
        beat_index_reg <= {BEAT_INDEX_WIDTH{1'b0}};
        beat_onehot_reg <= {{(WINDOW_BEATS-1){1'b0}}, 1'b1};
        counted_beat_reg <= 1'b0;
        length_reg <= {LEN_WIDTH{1'b0}};
        w_valid <= 1'b0;
        w_full <= 1'b0;
        s0_valid <= 1'b0;
    end
end

wire [PADDED_BITS-1:0] padded = {{(PADDED_BITS-WINDOW_BITS){1'b0}}, parse_window_reg};

// ---- stage 1a: link layer ------------------------------------------------------

// the compares at the position the tags give (registered with the window's copy)
wire        tag1 = s0_vlan[0];
wire        tag2 = tag1 && s0_vlan[1];
wire [1:0]  link_position = {tag2, tag1 && !tag2};
wire        pppoe = s0_type_pppoe[link_position];
// after the tags: the PPPoE session header's version/type and code, and the PPP protocol
wire        pppoe_session = s0_pppoe_session[link_position];

reg          la_valid = 1'b0;
reg          la_full = 1'b0;
reg [CAP_WIDTH-1:0] la_captured = {CAP_WIDTH{1'b0}};
reg [1:0]    la_tags = 2'd0;
reg          la_pppoe = 1'b0;
reg          la_link_ipv4 = 1'b0;
reg          la_link_ipv6 = 1'b0;
// L3 offset = 14 + 4 * slot: the outer header's slot is 0..4 (two tags, PPPoE)
reg [2:0]    la_outer_slot = 3'd0;

always @(posedge clk) begin
    la_valid <= s0_valid;
    la_full <= s0_full;
    la_captured <= s0_captured;
    la_tags <= {tag2, tag1 && !tag2};
    la_pppoe <= pppoe;
    la_link_ipv4 <= pppoe ? pppoe_session && s0_ppp_ipv4[link_position]
        : s0_type_ipv4[link_position];
    la_link_ipv6 <= pppoe ? pppoe_session && s0_ppp_ipv6[link_position]
        : s0_type_ipv6[link_position];
    la_outer_slot <= {1'b0, tag2, tag1 && !tag2} + {1'b0, pppoe, 1'b0};
    if (rst) begin
        la_valid <= 1'b0;
    end
end

// ---- stage 1b: the outer IP header's first 12 bytes --------------------------------

// (IPv4's TTL is not looked at)
reg  [95:0] outer;

always @* begin
    outer = 96'd0;
    for (i = 0; i < 5; i = i + 1) begin
        if (la_outer_slot == i[2:0]) begin
            outer = padded[8*14 + 32*i +: 96];
        end
    end
end

reg          l2_valid = 1'b0;
reg          l2_full = 1'b0;
reg [CAP_WIDTH-1:0] l2_captured = {CAP_WIDTH{1'b0}};
reg [1:0]    l2_tags = 2'd0;
reg          l2_pppoe = 1'b0;
reg          l2_link_ipv4 = 1'b0;
reg          l2_link_ipv6 = 1'b0;
reg [2:0]    l2_outer_slot = 3'd0;
/* verilator lint_off UNUSEDSIGNAL */
reg [95:0]   l2_outer = 96'd0;
/* verilator lint_on UNUSEDSIGNAL */
// for each position of the outer header (slot 0..4), whether its IPv4 total length / IPv6
// payload length keeps the frame in MAX_FRAME_LEN (compared with a constant per slot as the
// header is selected; stage 1c picks the slot's)
reg [4:0]    l2_ipv4_fits = 5'd0;
reg [4:0]    l2_ipv6_fits = 5'd0;

always @(posedge clk) begin
    l2_valid <= la_valid;
    l2_full <= la_full;
    l2_captured <= la_captured;
    l2_tags <= la_tags;
    l2_pppoe <= la_pppoe;
    l2_link_ipv4 <= la_link_ipv4;
    l2_link_ipv6 <= la_link_ipv6;
    l2_outer_slot <= la_outer_slot;
    l2_outer <= outer;
    for (i = 0; i < 5; i = i + 1) begin
        l2_ipv4_fits[i] <= {16'd0, be16(padded[8*(14+2) + 32*i +: 16])} <= MAX_FRAME_LEN - 14 - 4 * i;
        l2_ipv6_fits[i] <= {16'd0, be16(padded[8*(14+4) + 32*i +: 16])}
            <= MAX_FRAME_LEN - 14 - 4 * i - 40;
    end
    if (rst) begin
        l2_valid <= 1'b0;
    end
end

// ---- stage 1c: the outer IP header ------------------------------------------------

wire [3:0]  outer_version = l2_outer[7:4];
wire [3:0]  outer_ihl = l2_outer[3:0];
wire        outer_ipv4 = l2_link_ipv4 && outer_version == 4'd4 && outer_ihl >= 4'd5;
wire        outer_ipv6 = l2_link_ipv6 && outer_version == 4'd6;
wire        outer_more_fragments = l2_outer[8*6 + 5];
wire [12:0] outer_fragment_offset = {l2_outer[8*6 +: 5], l2_outer[8*7 +: 8]};

// bit `slot` (0..4) of a per-slot set of flags
function slot_bit(input [4:0] flags, input [2:0] slot);
    integer n;
    begin
        slot_bit = 1'b0;
        for (n = 0; n < 5; n = n + 1) begin
            if (slot == n[2:0]) begin
                slot_bit = flags[n];
            end
        end
    end
endfunction

reg         o_valid = 1'b0;
reg         o_fits = 1'b0;      // an outer IP header whose length keeps the frame in MAX_FRAME_LEN
reg         o_fragment = 1'b0;  // an IPv4 fragment other than the first
reg         o_whole = 1'b0;     // not a fragment at all
reg         o_link_ipv4 = 1'b0;
reg         o_link_ipv6 = 1'b0;
reg         o_outer_udp = 1'b0;
reg         o_ipv6 = 1'b0;
reg [1:0]   o_tags = 2'd0;
reg         o_pppoe = 1'b0;
reg [2:0]   o_l3_slot = 3'd0;
reg [3:0]   o_l4_slot = 4'd0;
reg [7:0]   o_byte0 = 8'd0;
reg [7:0]   o_byte1 = 8'd0;
reg [15:0]  o_checksum = 16'd0;
reg [CAP_WIDTH-1:0] o_captured = {CAP_WIDTH{1'b0}};

always @(posedge clk) begin
    o_valid <= l2_valid;
    o_fits <= l2_full && ((outer_ipv4 && slot_bit(l2_ipv4_fits, l2_outer_slot))
                          || (outer_ipv6 && slot_bit(l2_ipv6_fits, l2_outer_slot)));
    o_fragment <= l2_full && outer_ipv4 && outer_fragment_offset != 13'd0;
    o_whole <= outer_ipv6 || (!outer_more_fragments && outer_fragment_offset == 13'd0);
    o_link_ipv4 <= l2_link_ipv4;
    o_link_ipv6 <= l2_link_ipv6;
    o_outer_udp <= (outer_ipv6 ? l2_outer[8*6 +: 8] : l2_outer[8*9 +: 8]) == 8'd17;
    o_ipv6 <= outer_ipv6;
    o_tags <= l2_tags;
    o_pppoe <= l2_pppoe;
    o_l3_slot <= l2_outer_slot;
    // L4 offset = 34 + 4 * slot
    o_l4_slot <= {1'b0, l2_outer_slot} + (outer_ipv6 ? 4'd5 : outer_ihl - 4'd5);
    o_byte0 <= l2_outer[7:0];
    o_byte1 <= l2_outer[15:8];
    o_checksum <= be16(l2_outer[8*10 +: 16]);
    o_captured <= l2_captured;
    if (rst) begin
        o_valid <= 1'b0;
    end
end

// ---- stage 1d: the GTP-U bytes ----------------------------------------------------

// the outer UDP header and the GTP-U bytes looked at, from the outer L4 offset (34 + 4 * slot,
// slot 0..14): ports 0..3, flags 8, message type 9, next extension type 19, extension
// length 20 and the byte that ends an extension of 1..4 words (23, 27, 31, 35).  They sit
// at fixed places for each slot, so they are checked for every slot at once in stages 1b
// and 1c (the window is held), and stage 1d picks the slot's results: one bit each, no bytes.
// Slot 15 (only from an IHL below 5: no IPv4 header) reads as no G-PDU.
localparam GTP_SLOTS = 16;

// The checks take two cycles, the window being held: the bytes' compares for every slot
// are registered first (gp_*), then combined into each slot's results (o_gtp_*), which
// stage 1d reads three cycles after the window is taken.
reg [GTP_SLOTS-1:0]   gtp_port;         // either port is 2152
reg [GTP_SLOTS-1:0]   gtp_gpdu_header;  // version 1, PT 1, message type 0xFF
reg [GTP_SLOTS-1:0]   gtp_has_optional;
reg [GTP_SLOTS-1:0]   gtp_has_extension;
reg [GTP_SLOTS-1:0]   gtp_words_fit;    // an extension of 1..4 words
reg [GTP_SLOTS-1:0]   gtp_chain_ends;   // the byte that ends such an extension is 0
reg [3*GTP_SLOTS-1:0] gtp_words;
reg [15:0] slot_sport;
reg [15:0] slot_dport;
/* verilator lint_off UNUSEDSIGNAL */ // bit 3 is spare
reg [7:0]  slot_flags;
/* verilator lint_on UNUSEDSIGNAL */
reg [7:0]  slot_words;
reg [7:0]  slot_chain_end;

always @* begin
    gtp_port = {GTP_SLOTS{1'b0}};
    gtp_gpdu_header = {GTP_SLOTS{1'b0}};
    gtp_has_optional = {GTP_SLOTS{1'b0}};
    gtp_has_extension = {GTP_SLOTS{1'b0}};
    gtp_words_fit = {GTP_SLOTS{1'b0}};
    gtp_chain_ends = {GTP_SLOTS{1'b0}};
    gtp_words = {3*GTP_SLOTS{1'b0}};
    for (i = 0; i < GTP_SLOTS - 1; i = i + 1) begin
        slot_sport = be16(padded[8*34 + 32*i +: 16]);
        slot_dport = be16(padded[8*(34+2) + 32*i +: 16]);
        slot_flags = padded[8*(34+8) + 32*i +: 8];
        slot_words = padded[8*(34+20) + 32*i +: 8];
        case (slot_words[1:0])
            2'd1: slot_chain_end = padded[8*(34+23) + 32*i +: 8];
            2'd2: slot_chain_end = padded[8*(34+27) + 32*i +: 8];
            2'd3: slot_chain_end = padded[8*(34+31) + 32*i +: 8];
            default: slot_chain_end = padded[8*(34+35) + 32*i +: 8];
        endcase
        gtp_port[i] = slot_sport == 16'd2152 || slot_dport == 16'd2152;
        gtp_gpdu_header[i] = slot_flags[7:4] == 4'h3 && padded[8*(34+9) + 32*i +: 8] == 8'hFF;
        gtp_has_optional[i] = slot_flags[2:0] != 3'd0;
        gtp_has_extension[i] = slot_flags[2] && padded[8*(34+19) + 32*i +: 8] != 8'd0;
        gtp_words_fit[i] = slot_words >= 8'd1 && slot_words <= 8'd4;
        gtp_chain_ends[i] = slot_chain_end == 8'd0;
        gtp_words[3*i +: 3] = slot_words[2:0];
    end
end

reg [GTP_SLOTS-1:0]   gp_port = {GTP_SLOTS{1'b0}};
reg [GTP_SLOTS-1:0]   gp_gpdu_header = {GTP_SLOTS{1'b0}};
reg [GTP_SLOTS-1:0]   gp_has_optional = {GTP_SLOTS{1'b0}};
reg [GTP_SLOTS-1:0]   gp_has_extension = {GTP_SLOTS{1'b0}};
reg [GTP_SLOTS-1:0]   gp_words_fit = {GTP_SLOTS{1'b0}};
reg [GTP_SLOTS-1:0]   gp_chain_ends = {GTP_SLOTS{1'b0}};
reg [3*GTP_SLOTS-1:0] gp_words = {3*GTP_SLOTS{1'b0}};

// for each slot: a G-PDU's ports, version and type; the extension chain ends where it must
// (or there is none); the words the inner IP header is beyond the mandatory GTP-U header
// (the optional fields', the extension's length)
reg [GTP_SLOTS-1:0]   o_gtp_gpdu = {GTP_SLOTS{1'b0}};
reg [GTP_SLOTS-1:0]   o_gtp_unpacked = {GTP_SLOTS{1'b0}};
reg [4*GTP_SLOTS-1:0] o_gtp_further = {4*GTP_SLOTS{1'b0}};

always @(posedge clk) begin
    gp_port <= gtp_port;
    gp_gpdu_header <= gtp_gpdu_header;
    gp_has_optional <= gtp_has_optional;
    gp_has_extension <= gtp_has_extension;
    gp_words_fit <= gtp_words_fit;
    gp_chain_ends <= gtp_chain_ends;
    gp_words <= gtp_words;
    o_gtp_gpdu <= gp_port & gp_gpdu_header;
    o_gtp_unpacked <= ~gp_has_extension | (gp_words_fit & gp_chain_ends);
    for (i = 0; i < GTP_SLOTS; i = i + 1) begin
        o_gtp_further[4*i +: 4] <= {3'd0, gp_has_optional[i]}
            + (gp_has_extension[i] ? {1'b0, gp_words[3*i +: 3]} : 4'd0);
    end
end

// the window once more, for the L4 and payload stages (they read it 4 and 6 cycles after
// it is taken; it is taken 3 cycles after parse_window_reg, which holds a window 6 cycles)
reg [WINDOW_BITS-1:0] l4_window_reg = {WINDOW_BITS{1'b0}};

reg         g_valid = 1'b0;
reg         g_fits = 1'b0;
reg         g_fragment = 1'b0;
reg         g_link_ipv4 = 1'b0;
reg         g_link_ipv6 = 1'b0;
// a G-PDU (version 1, PT 1, type 0xFF) in a whole UDP packet on port 2152
reg         g_gtp = 1'b0;
reg         g_unpacked = 1'b0;   // no extension, or one of 1..4 words that ends the chain
reg [3:0]   g_further = 4'd0;    // optional fields and extension, in words
reg [2:0]   g_l3_slot = 3'd0;
reg [4:0]   g_l4_slot_9 = 5'd0;   // the outer L4 slot plus 9 (UDP and GTP-U headers)
reg         g_ipv6 = 1'b0;
reg [1:0]   g_tags = 2'd0;
reg         g_pppoe = 1'b0;
reg [7:0]   g_byte0 = 8'd0;
reg [7:0]   g_byte1 = 8'd0;
reg [15:0]  g_checksum = 16'd0;
reg [CAP_WIDTH-1:0] g_captured = {CAP_WIDTH{1'b0}};

always @(posedge clk) begin
    g_valid <= o_valid;
    if (o_valid && o_fits) begin
        l4_window_reg <= parse_window_reg;
    end
    g_fits <= o_fits;
    g_fragment <= o_fragment;
    g_link_ipv4 <= o_link_ipv4;
    g_link_ipv6 <= o_link_ipv6;
    g_gtp <= o_fits && o_whole && o_outer_udp && o_gtp_gpdu[o_l4_slot];
    g_unpacked <= o_gtp_unpacked[o_l4_slot];
    g_further <= o_gtp_further[4*o_l4_slot +: 4];
    g_l3_slot <= o_l3_slot;
    g_l4_slot_9 <= {1'b0, o_l4_slot} + 5'd9;
    g_ipv6 <= o_ipv6;
    g_tags <= o_tags;
    g_pppoe <= o_pppoe;
    g_byte0 <= o_byte0;
    g_byte1 <= o_byte1;
    g_checksum <= o_checksum;
    g_captured <= o_captured;
    if (rst) begin
        g_valid <= 1'b0;
    end
end

// ---- stage 1e: GTP-U, which IP header the flow is ---------------------------------

// an inner (GTP-U) header's slot is up to 21 (an inner IP + UDP header must fit the window)
localparam [4:0] LAST_L3_SLOT = 5'd21;

// inner L3 offset = outer L4 offset (34 + 4 * slot) + 16 (UDP, GTP) + 4 (optional fields)
// + 4 * extension words = 14 + 4 * (slot + 9 + ...)
wire [5:0]  inner_slot = {1'b0, g_l4_slot_9} + {2'd0, g_further};

reg         t_valid = 1'b0;
reg         t_fits = 1'b0;
reg         t_fragment = 1'b0;
reg         t_tunnel = 1'b0;
reg         t_link_ipv4 = 1'b0;
reg         t_link_ipv6 = 1'b0;
reg [4:0]   t_l3_slot = 5'd0;
reg         t_ipv6 = 1'b0;
reg [1:0]   t_tags = 2'd0;
reg         t_pppoe = 1'b0;
reg [7:0]   t_byte0 = 8'd0;
reg [7:0]   t_byte1 = 8'd0;
reg [15:0]  t_checksum = 16'd0;
reg [CAP_WIDTH-1:0] t_captured = {CAP_WIDTH{1'b0}};

always @(posedge clk) begin
    t_valid <= g_valid;
    t_fits <= g_fits && (!g_gtp || (g_unpacked && inner_slot <= {1'b0, LAST_L3_SLOT}));
    t_fragment <= g_fragment;
    t_tunnel <= g_gtp;
    t_link_ipv4 <= g_link_ipv4;
    t_link_ipv6 <= g_link_ipv6;
    t_l3_slot <= g_gtp ? inner_slot[4:0] : {2'b00, g_l3_slot};
    t_ipv6 <= g_ipv6;
    t_tags <= g_tags;
    t_pppoe <= g_pppoe;
    t_byte0 <= g_byte0;
    t_byte1 <= g_byte1;
    t_checksum <= g_checksum;
    t_captured <= g_captured;
    if (rst) begin
        t_valid <= 1'b0;
    end
end

// ---- stage 1f: the flow's IP header (the outer one, or GTP-U's inner one) ----------

localparam [15:0] IP_ROOM = MAX_FRAME_LEN - 14;

reg          h_valid = 1'b0;
reg          h_fits = 1'b0;
reg          h_fragment = 1'b0;
reg          h_tunnel = 1'b0;
reg          h_link_ipv4 = 1'b0;
reg          h_link_ipv6 = 1'b0;
// the IP length the frame has room for in MAX_FRAME_LEN behind the Ethernet header and what
// comes before the flow's IP header (14 + 4 * slot bytes); the IPv6 payload length
// the slot plus 5 (an IPv6 header's L4 slot) and minus 5 (an IPv4 header's, plus its IHL)
reg [4:0]    h_l3_slot_plus5 = 5'd0;
reg [4:0]    h_l3_slot_minus5 = 5'd0;
reg [15:0]   h_ip_room = 16'd0;
reg [15:0]   h_ipv6_room = 16'd0;
// its first 40 bytes (L3 offset = 14 + 4 * slot, slot 0..21; the TOS / traffic class byte is
// the outer header's, stage 1c's), selected in two steps: here the 52 bytes from slot
// 4 * (slot / 4) on (a part-select, which yosys makes a shifter), in stage 1f' the 40 of them
// from slot % 4 on
reg [415:0]  h_l3_part = 416'd0;
reg [1:0]    h_l3_low = 2'd0;
// a copy for the L4 offset's choice (a different power-up value keeps synthesis from
// merging the two; it is never looked at before a window)
reg [1:0]    h_l3_low_ihl = 2'd1;
reg          h_ipv6 = 1'b0;
reg [1:0]    h_tags = 2'd0;
reg          h_pppoe = 1'b0;
reg [7:0]    h_byte0 = 8'd0;
reg [7:0]    h_byte1 = 8'd0;
reg [15:0]   h_checksum = 16'd0;
reg [CAP_WIDTH-1:0] h_captured = {CAP_WIDTH{1'b0}};

always @(posedge clk) begin
    h_valid <= t_valid;
    h_fits <= t_fits;
    h_fragment <= t_fragment;
    h_tunnel <= t_tunnel;
    h_link_ipv4 <= t_link_ipv4;
    h_link_ipv6 <= t_link_ipv6;
    h_l3_slot_plus5 <= t_l3_slot + 5'd5;
    h_l3_slot_minus5 <= t_l3_slot - 5'd5;
    h_ip_room <= IP_ROOM - {9'd0, t_l3_slot, 2'b00};
    h_ipv6_room <= IP_ROOM - 16'd40 - {9'd0, t_l3_slot, 2'b00};
    h_l3_part <= padded[8*14 + 128*t_l3_slot[4:2] +: 416];
    h_l3_low <= t_l3_slot[1:0];
    h_l3_low_ihl <= t_l3_slot[1:0];
    h_ipv6 <= t_ipv6;
    h_tags <= t_tags;
    h_pppoe <= t_pppoe;
    h_byte0 <= t_byte0;
    h_byte1 <= t_byte1;
    h_checksum <= t_checksum;
    h_captured <= t_captured;
    if (rst) begin
        h_valid <= 1'b0;
    end
end

wire [L4_PADDED_BITS-1:0] l4_padded = {{(L4_PADDED_BITS-WINDOW_BITS){1'b0}}, l4_window_reg};

// ---- stage 1f': the flow's IP header, second step; the L4 offset -------------------

reg [319:0] h_l3_pick;

always @* begin
    h_l3_pick = 320'd0;
    for (i = 0; i < 4; i = i + 1) begin
        if (h_l3_low == i[1:0]) begin
            h_l3_pick = h_l3_part[32*i +: 320];
        end
    end
end

// the header's first byte (version, IHL): the L4 offset is known a stage early, so that the
// L4 stage's selection can be split in two steps as well.  It is worked out for each of the
// four positions slot % 4 the header may start at, side by side from registered bytes (each
// its own adder: the sum after the choice would be the slowest path of the parser), and
// chosen by a copy of slot % 4 of its own (the other one reaches all 320 bits of the pick)
wire [4*5-1:0] h_l4_slot_at;
wire [3:0]     h_ipv6_at;

generate
    for (g = 0; g < 4; g = g + 1) begin : l4_slot_at
        assign h_ipv6_at[g] = (h_tunnel || h_link_ipv6) && h_l3_part[32*g + 4 +: 4] == 4'd6;
        assign h_l4_slot_at[5*g +: 5] = h_ipv6_at[g]
            ? h_l3_slot_plus5 : h_l3_slot_minus5 + {1'b0, h_l3_part[32*g +: 4]};
    end
endgenerate

wire [4:0] h_l4_slot = h_l4_slot_at[5*h_l3_low_ihl +: 5];
// the flow's header is IPv6 (stage 1g's is_ipv6), a stage early, in two copies for the
// source and destination addresses' choice (256 bits)
wire       h_is_ipv6 = h_ipv6_at[h_l3_low_ihl];

reg          hc_valid = 1'b0;
reg          hc_fits = 1'b0;
reg          hc_fragment = 1'b0;
reg          hc_tunnel = 1'b0;
reg          hc_link_ipv4 = 1'b0;
reg          hc_link_ipv6 = 1'b0;
reg [4:0]    hc_l4_slot = 5'd0;     // L4 offset = 34 + 4 * slot
reg          hc_is_ipv6_src = 1'b0;
reg          hc_is_ipv6_dst = 1'b1;  // a power-up value of its own: not merged with the other
reg [15:0]   hc_ip_room = 16'd0;
reg [15:0]   hc_ipv6_room = 16'd0;
reg [319:0]  hc_l3 = 320'd0;
reg          hc_ipv6 = 1'b0;
reg [1:0]    hc_tags = 2'd0;
reg          hc_pppoe = 1'b0;
reg [7:0]    hc_byte0 = 8'd0;
reg [7:0]    hc_byte1 = 8'd0;
reg [15:0]   hc_checksum = 16'd0;
reg [CAP_WIDTH-1:0] hc_captured = {CAP_WIDTH{1'b0}};

always @(posedge clk) begin
    hc_valid <= h_valid;
    hc_fits <= h_fits;
    hc_fragment <= h_fragment;
    hc_tunnel <= h_tunnel;
    hc_link_ipv4 <= h_link_ipv4;
    hc_link_ipv6 <= h_link_ipv6;
    hc_l4_slot <= h_l4_slot;
    hc_is_ipv6_src <= h_is_ipv6;
    hc_is_ipv6_dst <= h_is_ipv6;
    hc_ip_room <= h_ip_room;
    hc_ipv6_room <= h_ipv6_room;
    hc_l3 <= h_l3_pick;
    hc_ipv6 <= h_ipv6;
    hc_tags <= h_tags;
    hc_pppoe <= h_pppoe;
    hc_byte0 <= h_byte0;
    hc_byte1 <= h_byte1;
    hc_checksum <= h_checksum;
    hc_captured <= h_captured;
    if (rst) begin
        hc_valid <= 1'b0;
    end
end

// ---- stage 1g: the flow's IP header fields -----------------------------------------

/* verilator lint_off UNUSEDSIGNAL */
wire [319:0] l3 = hc_l3;
/* verilator lint_on UNUSEDSIGNAL */

wire [3:0]  ip_version = l3[7:4];
wire [3:0]  ihl = l3[3:0];
wire [15:0] ipv4_length = be16(l3[8*2 +: 16]);
wire [12:0] ipv4_fragment_offset = {l3[8*6 +: 5], l3[8*7 +: 8]};
wire [15:0] ipv6_payload_length = be16(l3[8*4 +: 16]);

// an inner header's version stands for the ethertype
wire is_ipv4 = (hc_tunnel || hc_link_ipv4) && ip_version == 4'd4 && ihl >= 4'd5;
wire is_ipv6 = (hc_tunnel || hc_link_ipv6) && ip_version == 4'd6;
wire [7:0] proto = is_ipv6 ? l3[8*6 +: 8] : l3[8*9 +: 8];
wire [16:0] ip_length = is_ipv6 ? 17'd40 + {1'b0, ipv6_payload_length} : {1'b0, ipv4_length};
wire [5:0] l3_header = is_ipv6 ? 6'd40 : {ihl, 2'b00};
// the IP length fits the room: IPv4 and IPv6 compared side by side and registered, the
// header's version picks one in stage 2a
wire ipv4_fits = ipv4_length <= hc_ip_room;
wire ipv6_fits = ipv6_payload_length <= hc_ipv6_room;
wire inner_fragment = hc_tunnel && is_ipv4 && ipv4_fragment_offset != 13'd0;

// the L4 ports and TCP data offset, first step: the bytes from slot 4 * (slot / 4) on (slot
// 0..21, L4 offset = 34 + 4 * slot), at each of the four positions below: the ports (bytes
// 4 * i .. 4 * i + 3) and the data offset (byte 4 * i + 12); the second step (stage 2a) picks
// position slot % 4 (slots beyond 23 read zeros)
localparam L4_CHUNK_BYTES = 32;
wire [8*L4_CHUNK_BYTES-1:0] l4_chunk;

// each 8 bytes of the chunk selected by a copy of its own of the slot's group (hc_l4_slot
// [4:2]): one select net to all 256 bits is the slowest route of the parser otherwise
generate
    for (g = 0; g < L4_CHUNK_BYTES / 8; g = g + 1) begin : l4_part
        // the copies differ in their power-up value only, which keeps synthesis from merging
        // them (it is never looked at before a window)
        reg [2:0]  group = g;
        reg [63:0] bytes;

        always @(posedge clk) begin
            group <= h_l4_slot[4:2];
        end

        always @* begin
            bytes = 64'd0;
            for (i = 0; i < 6; i = i + 1) begin
                if (group == i[2:0]) begin
                    bytes = l4_padded[8*34 + 128*i + 64*g +: 64];
                end
            end
        end

        assign l4_chunk[64*g +: 64] = bytes;
    end
endgenerate

reg         s1_valid = 1'b0;
// but for the IP length, which the next two say fits: an IPv4 and an IPv6 candidate, each
// checked on its own (the version is one or the other), so that neither waits for the
// choice of the protocol byte
reg         s1_ipv4_candidate = 1'b0;
reg         s1_ipv6_candidate = 1'b0;
reg         s1_ipv4_fits = 1'b0;
reg         s1_ipv6_fits = 1'b0;
reg         s1_fragment = 1'b0;
reg         s1_flow_ipv6 = 1'b0;
reg [7:0]   s1_proto = 8'd0;
// the protocol is TCP, compared here for the payload's slot and room (s1_proto's compare there,
// before the slot's sum, was a failing path at seed 2 of make timing at 84cc3d4, -0.21 ns)
reg         s1_tcp = 1'b0;
reg [127:0] s1_src = 128'd0;
reg [127:0] s1_dst = 128'd0;
reg [16:0]  s1_ip_length = 17'd0;
reg [5:0]   s1_l3_header = 6'd0;
reg [4:0]   s1_l4_slot = 5'd0;
// slot % 4 once more, for the payload group's choice (a different power-up value keeps
// synthesis from merging the two)
reg [1:0]   s1_l4_low_payload = 2'd1;
reg [1:0]   s1_l4_low_slot = 2'd2;     // and for the payload slot's
reg [1:0]   s1_l4_low_room = 2'd3;     // and for the payload room's
reg [8:0]   s1_l4_room = 9'd0;         // window bytes from the L4 header on (negative: none)
reg [5:0]   s1_l4_slot_less_2 = 6'd0;  // a TCP payload's slot, less its data offset
reg [8*L4_CHUNK_BYTES-1:0] s1_l4_chunk = {8*L4_CHUNK_BYTES{1'b0}};
reg         s1_ipv6 = 1'b0;
reg [1:0]   s1_tags = 2'd0;
reg         s1_pppoe = 1'b0;
reg [7:0]   s1_byte0 = 8'd0;
reg [7:0]   s1_byte1 = 8'd0;
reg [15:0]  s1_checksum = 16'd0;

always @(posedge clk) begin
    s1_valid <= hc_valid;
    s1_ipv4_candidate <= hc_fits && is_ipv4 && (l3[8*9 +: 8] == 8'd6 || l3[8*9 +: 8] == 8'd17)
        && !inner_fragment;
    s1_ipv6_candidate <= hc_fits && is_ipv6 && (l3[8*6 +: 8] == 8'd6 || l3[8*6 +: 8] == 8'd17);
    s1_ipv4_fits <= ipv4_fits;
    s1_ipv6_fits <= ipv6_fits;
    s1_fragment <= hc_fragment || (hc_fits && inner_fragment);
    s1_flow_ipv6 <= is_ipv6;
    s1_proto <= proto;
    s1_tcp <= is_ipv6 ? l3[8*6 +: 8] == 8'd6 : l3[8*9 +: 8] == 8'd6;
    s1_src <= hc_is_ipv6_src ? be128(l3[8*8 +: 128]) : {96'd0, be32(l3[8*12 +: 32])};
    s1_dst <= hc_is_ipv6_dst ? be128(l3[8*24 +: 128]) : {96'd0, be32(l3[8*16 +: 32])};
    s1_ip_length <= ip_length;
    s1_l3_header <= l3_header;
    s1_l4_slot <= hc_l4_slot;
    s1_l4_low_payload <= hc_l4_slot[1:0];
    s1_l4_low_slot <= hc_l4_slot[1:0];
    s1_l4_low_room <= hc_l4_slot[1:0];
    s1_l4_room <= {1'b0, hc_captured} - (9'd34 + {2'd0, hc_l4_slot, 2'b00});
    s1_l4_slot_less_2 <= {1'b0, hc_l4_slot} - 6'd2;
    s1_l4_chunk <= l4_chunk;
    s1_ipv6 <= hc_ipv6;
    s1_tags <= hc_tags;
    s1_pppoe <= hc_pppoe;
    s1_byte0 <= hc_byte0;
    s1_byte1 <= hc_byte1;
    s1_checksum <= hc_checksum;
    if (rst) begin
        s1_valid <= 1'b0;
    end
end

// ---- stage 2a: ports, addresses ----------------------------------------------

// the L4 ports and TCP data offset, second step: the position slot % 4 of the chunk
reg [31:0] window_ports;
reg [3:0]  window_data_offset;
reg        window_fin_rst;     // TCP's FIN or RST flag (byte 13, bits 0 and 2)
reg        window_syn;         // TCP's SYN flag (byte 13, bit 1)

always @* begin
    window_ports = 32'd0;
    window_data_offset = 4'd0;
    window_fin_rst = 1'b0;
    window_syn = 1'b0;
    for (i = 0; i < 4; i = i + 1) begin
        if (s1_l4_slot[1:0] == i[1:0]) begin
            window_ports = s1_l4_chunk[32*i +: 32];
            window_data_offset = s1_l4_chunk[8*(4*i+12) + 4 +: 4];
            window_fin_rst = s1_l4_chunk[8*(4*i+13)] || s1_l4_chunk[8*(4*i+13) + 2];
            window_syn = s1_l4_chunk[8*(4*i+13) + 1];
        end
    end
end

// the source port at most the destination's, compared at each position, then picked
reg [3:0] chunk_ports_ordered;

always @* begin
    for (i = 0; i < 4; i = i + 1) begin
        chunk_ports_ordered[i] = be16(s1_l4_chunk[32*i +: 16]) <= be16(s1_l4_chunk[32*i + 16 +: 16]);
    end
end

wire window_ports_ordered = chunk_ports_ordered[s1_l4_slot[1:0]];

// payload offset = 42 + 4 * payload slot (stage 2b's, known here so that the payload stage's
// selection can be split in two steps), and its group (slot / 4, for the payload stage's
// first step) once more: each worked out for the four positions side by side (each its own
// adder) and chosen after, by a copy of slot % 4 of its own; the data offset's choice, then
// the sum, is too long a path (into the group's copies; into the slot, make timing's worst
// path at seed 1 at 24a13d9, -0.45 ns)
wire [4*6-1:0] payload_slot_at;
wire [4*3-1:0] payload_group_at;
// and the window bytes from the payload on (stage 2b's; negative, bit 8, when the L4 header
// ends beyond the window), the same way: into stage 2b's parsed and the signature bytes'
// zeroing, its subtraction there was a failing path at seed 1 (24a13d9, -0.21 ns)
wire [4*9-1:0] payload_room_at;

generate
    for (g = 0; g < 4; g = g + 1) begin : payload_group_of
        wire [5:0] slot = s1_tcp
            ? s1_l4_slot_less_2 + {2'b00, s1_l4_chunk[8*(4*g+12) + 4 +: 4]} : {1'b0, s1_l4_slot};

        assign payload_slot_at[6*g +: 6] = slot;
        assign payload_room_at[9*g +: 9] = s1_tcp
            ? s1_l4_room - {3'd0, s1_l4_chunk[8*(4*g+12) + 4 +: 4], 2'b00} : s1_l4_room - 9'd8;
        assign payload_group_at[3*g +: 3] = slot[4:2];
    end
endgenerate

wire [2:0] window_payload_group = payload_group_at[3*s1_l4_low_payload +: 3];
// chosen by compares with each position, not by a part-select at a computed index (yosys 0.23
// made 6 * index a DSP multiplier: 4.3 ns of logic, make timing at 1ce7c1c)
reg [5:0] window_payload_slot;
reg [8:0] window_payload_room;

always @* begin
    window_payload_slot = payload_slot_at[5:0];
    window_payload_room = payload_room_at[8:0];
    for (i = 1; i < 4; i = i + 1) begin
        if (s1_l4_low_slot == i[1:0]) begin
            window_payload_slot = payload_slot_at[6*i +: 6];
        end
        if (s1_l4_low_room == i[1:0]) begin
            window_payload_room = payload_room_at[9*i +: 9];
        end
    end
end

reg         l4_valid = 1'b0;
reg         l4_candidate = 1'b0;
reg         l4_fragment = 1'b0;
reg         l4_flow_ipv6 = 1'b0;
reg         l4_ipv6 = 1'b0;
reg [1:0]   l4_tags = 2'd0;
reg         l4_pppoe = 1'b0;
reg [7:0]   l4_proto = 8'd0;
reg [31:0]  l4_ports = 32'd0;
reg [3:0]   l4_data_offset = 4'd0;
reg         l4_end = 1'b0;           // FIN or RST, if TCP
reg         l4_syn = 1'b0;           // SYN, if TCP
reg         l4_ports_ordered = 1'b0; // source port <= destination port
reg [5:0]   l4_payload_slot = 6'd0;
reg [31:0]  l4_src = 32'd0;          // folded
reg [31:0]  l4_dst = 32'd0;
// the addresses compared a 32-bit word at a time (a 128-bit compare is too long a carry
// chain for one cycle): word n of the source below / equal to the destination's
reg [3:0]   l4_word_below = 4'd0;
reg [3:0]   l4_word_same = 4'd0;
reg         l4_tcp = 1'b0;
reg [8:0]   l4_payload_room = 9'd0;  // window bytes from the payload on (negative: none)
reg [16:0]  l4_ip_payload = 17'd0;   // the IP length beyond the L3 header
reg         l4_covers_l3 = 1'b0;     // the IP length covers the L3 header
reg [7:0]   l4_byte0 = 8'd0;
reg [7:0]   l4_byte1 = 8'd0;
reg [15:0]  l4_checksum = 16'd0;

always @(posedge clk) begin
    l4_valid <= s1_valid;
    l4_candidate <= (s1_ipv4_candidate && s1_ipv4_fits) || (s1_ipv6_candidate && s1_ipv6_fits);
    l4_fragment <= s1_fragment;
    l4_flow_ipv6 <= s1_flow_ipv6;
    l4_ipv6 <= s1_ipv6;
    l4_tags <= s1_tags;
    l4_pppoe <= s1_pppoe;
    l4_proto <= s1_proto;
    l4_tcp <= s1_tcp;
    l4_payload_room <= window_payload_room;
    l4_ports <= window_ports;
    l4_data_offset <= window_data_offset;
    l4_end <= window_fin_rst;
    l4_syn <= window_syn;
    l4_ports_ordered <= window_ports_ordered;
    l4_payload_slot <= window_payload_slot;
    l4_src <= fold(s1_src);
    l4_dst <= fold(s1_dst);
    for (i = 0; i < 4; i = i + 1) begin
        l4_word_below[i] <= s1_src[32*i +: 32] < s1_dst[32*i +: 32];
        l4_word_same[i] <= s1_src[32*i +: 32] == s1_dst[32*i +: 32];
    end
    l4_ip_payload <= s1_ip_length - {11'd0, s1_l3_header};
    l4_covers_l3 <= s1_ip_length >= {11'd0, s1_l3_header};
    l4_byte0 <= s1_byte0;
    l4_byte1 <= s1_byte1;
    l4_checksum <= s1_checksum;
    if (rst) begin
        l4_valid <= 1'b0;
    end
end

// ---- stage 2b: L4 header, canonical key -------------------------------------

wire [15:0] sport = be16(l4_ports[15:0]);
wire [15:0] dport = be16(l4_ports[31:16]);
wire [3:0]  data_offset = l4_data_offset;
wire        is_tcp = l4_tcp;
wire [5:0]  l4_header = is_tcp ? {data_offset, 2'b00} : 6'd8;
wire [8:0]  payload_room = l4_payload_room;
wire [16:0] payload_length = l4_ip_payload - {11'd0, l4_header};
// the IP length covers the L3 and L4 headers (an L4 header is at most 60 bytes: a 6-bit
// compare, not a 17-bit one)
wire        covers_headers = l4_covers_l3
    && (|l4_ip_payload[16:6] || l4_ip_payload[5:0] >= l4_header);
wire        parsed = l4_candidate && (!is_tcp || data_offset >= 4'd5)
    && !payload_room[8] && covers_headers;
// the (address, port) that compares lower is endpoint a
wire        src_below = l4_word_below[3] || (l4_word_same[3] && (l4_word_below[2]
    || (l4_word_same[2] && (l4_word_below[1] || (l4_word_same[1] && l4_word_below[0])))));
wire        src_is_a = src_below || (&l4_word_same && l4_ports_ordered);

// the 12 signature bytes, first step: the bytes from payload slot 4 * (slot / 4) on (payload
// offset = 42 + 4 * slot; a parsed frame's payload starts inside the window, slot 0..21); the
// second step (stage 3a) picks slot % 4.  Slots beyond 23 read zeros: they are flagged here
// and zeroed there, so that this selection is a plain multiplexer over six chunks (a zero
// default becomes the flip-flops' synchronous reset, one net to every bit of the chunk)
localparam PAYLOAD_CHUNK_BYTES = 12 + SIGNATURE_BYTES;
wire [8*PAYLOAD_CHUNK_BYTES-1:0] payload_chunk;
wire        payload_beyond = l4_payload_slot[5:2] > 4'd5;

// each 8 bytes selected by a copy of its own of the group, as the L4 chunk's
generate
    for (g = 0; g < PAYLOAD_CHUNK_BYTES / 8; g = g + 1) begin : payload_part
        reg [2:0]  group = g;
        reg [63:0] bytes;

        always @(posedge clk) begin
            group <= window_payload_group;
        end

        always @* begin
            bytes = l4_padded[8*42 + 128*5 + 64*g +: 64];
            for (i = 0; i < 5; i = i + 1) begin
                if (group == i[2:0]) begin
                    bytes = l4_padded[8*42 + 128*i + 64*g +: 64];
                end
            end
        end

        assign payload_chunk[64*g +: 64] = bytes;
    end
endgenerate

reg         s2_valid = 1'b0;
reg         s2_parsed = 1'b0;
reg         s2_fragment = 1'b0;
reg         s2_end = 1'b0;
reg         s2_syn = 1'b0;
reg [104:0] s2_key = 105'd0;
reg [1:0]   s2_payload_low = 2'd0;
reg [8*PAYLOAD_CHUNK_BYTES-1:0] s2_payload_chunk = {8*PAYLOAD_CHUNK_BYTES{1'b0}};
// per signature byte: it reads 0 (past the room the window has from the payload on, or the
// payload slot beyond 23), worked out here so that stage 3a zeroes from a register (the 8-bit
// compare with the room there was seed 1's worst path at fd678cc, -0.32 ns)
reg [SIGNATURE_BYTES-1:0] s2_payload_zero = {SIGNATURE_BYTES{1'b0}};
integer z;
reg [16:0]  s2_payload_length = 17'd0;
reg [5:0]   s2_payload_slot = 6'd0;
reg [15:0]  s2_sport = 16'd0;
reg [15:0]  s2_dport = 16'd0;
reg [7:0]   s2_proto = 8'd0;
reg         s2_ipv6 = 1'b0;
reg [1:0]   s2_tags = 2'd0;
reg         s2_pppoe = 1'b0;
reg [7:0]   s2_byte0 = 8'd0;
reg [7:0]   s2_byte1 = 8'd0;
reg [15:0]  s2_checksum = 16'd0;

always @(posedge clk) begin
    s2_valid <= l4_valid;
    s2_parsed <= parsed && !l4_fragment;
    s2_fragment <= l4_fragment;
    s2_end <= is_tcp && l4_end;
    s2_syn <= is_tcp && l4_syn;
    if (src_is_a) begin
        s2_key <= {l4_flow_ipv6, l4_proto, l4_src, sport, l4_dst, dport};
    end else begin
        s2_key <= {l4_flow_ipv6, l4_proto, l4_dst, dport, l4_src, sport};
    end
    s2_payload_low <= l4_payload_slot[1:0];
    s2_payload_chunk <= payload_chunk;
    for (z = 0; z < SIGNATURE_BYTES; z = z + 1) begin
        s2_payload_zero[z] <= payload_beyond || z[7:0] >= payload_room[7:0];
    end
    s2_payload_length <= payload_length;
    s2_payload_slot <= l4_payload_slot;
    s2_sport <= sport;
    s2_dport <= dport;
    s2_proto <= l4_proto;
    s2_ipv6 <= l4_ipv6;
    s2_tags <= l4_tags;
    s2_pppoe <= l4_pppoe;
    s2_byte0 <= l4_byte0;
    s2_byte1 <= l4_byte1;
    s2_checksum <= l4_checksum;

    if (rst) begin
        s2_valid <= 1'b0;
    end
end

// ---- stage 3a: payload bytes, hash -------------------------------------------

// the signature bytes, second step (position slot % 4 of the chunk); bytes past the
// frame's end (past the room the window has) and beyond slot 23 read 0
reg [8*SIGNATURE_BYTES-1:0] payload;

always @* begin
    payload = {8*SIGNATURE_BYTES{1'b0}};
    for (i = 0; i < 4; i = i + 1) begin
        if (s2_payload_low == i[1:0]) begin
            payload = s2_payload_chunk[32*i +: 8*SIGNATURE_BYTES];
        end
    end
    for (i = 0; i < SIGNATURE_BYTES; i = i + 1) begin
        if (s2_payload_zero[i]) begin
            payload[8*i +: 8] = 8'd0;
        end
    end
end

// bucket hash of the canonical key (vtc_model.bucket_index): the low bits of the
// CRC-32 (polynomial 0x04C11DB7, register preset to ones, key MSB first, no final XOR).
// The CRC is affine in the key: each bit is a constant XORed with a fixed set of key
// bits (its taps), one balanced XOR tree instead of 105 chained steps.
function [31:0] crc32(input [104:0] data);
    integer n;
    reg feedback;
    begin
        crc32 = 32'hFFFFFFFF;
        for (n = 104; n >= 0; n = n - 1) begin
            feedback = crc32[31] ^ data[n];
            crc32 = {crc32[30:0], 1'b0} ^ (feedback ? 32'h04C11DB7 : 32'd0);
        end
    end
endfunction

localparam [31:0] CRC_OF_ZERO = crc32(105'd0);

// the key bits CRC bit crc_bit depends on
function [104:0] crc_taps(input [4:0] crc_bit);
    integer n;
    reg [31:0] crc;
    begin
        for (n = 0; n < 105; n = n + 1) begin
            crc = crc32(105'd1 << n) ^ CRC_OF_ZERO;
            crc_taps[n] = crc[crc_bit];
        end
    end
endfunction

wire [BUCKET_BITS-1:0] bucket;

generate
    for (g = 0; g < BUCKET_BITS; g = g + 1) begin : bucket_bit
        localparam [4:0] CRC_BIT = g;
        localparam [104:0] TAPS = crc_taps(CRC_BIT);
        assign bucket[g] = CRC_OF_ZERO[g] ^ ^(s2_key & TAPS);
    end
endgenerate

reg                   sig_valid = 1'b0;
reg                   sig_parsed = 1'b0;
reg                   sig_fragment = 1'b0;
reg                   sig_end = 1'b0;
reg                   sig_syn = 1'b0;
reg [104:0]           sig_key = 105'd0;
reg [BUCKET_BITS-1:0] sig_bucket = {BUCKET_BITS{1'b0}};
reg [8*SIGNATURE_BYTES-1:0] sig_payload_bytes = {8*SIGNATURE_BYTES{1'b0}};
// the same bytes once more, for the signatures' method words alone (see vtc_signatures):
// loaded every cycle, equal to sig_payload_bytes from the first clock on; every bit powers up
// to the opposite, which keeps synthesis from merging the two
reg [8*SIGNATURE_BYTES-1:0] sig_payload_words = {8*SIGNATURE_BYTES{1'b1}};
reg                   sig_payload = 1'b0;
reg [16:0]            sig_payload_length = 17'd0;
reg [7:0]             sig_payload_start = 8'd0;  // 42 + 4 * payload slot
// the payload length less 2 and less 20 (bit 17: negative), for the signatures' length
// compares (no adder before a compare)
reg [17:0]            sig_length_less_2 = 18'd0;
reg [17:0]            sig_length_less_20 = 18'd0;
reg [15:0]            sig_sport = 16'd0;
reg [15:0]            sig_dport = 16'd0;
reg                   sig_tcp = 1'b0;
reg                   sig_udp = 1'b0;
reg                   sig_ipv6 = 1'b0;
reg [1:0]             sig_tags = 2'd0;
reg                   sig_pppoe = 1'b0;
reg [7:0]             sig_byte0 = 8'd0;
reg [7:0]             sig_byte1 = 8'd0;
reg [15:0]            sig_checksum = 16'd0;

always @(posedge clk) begin
    sig_valid <= s2_valid;
    sig_parsed <= s2_parsed;
    sig_fragment <= s2_fragment;
    sig_end <= s2_end;
    sig_syn <= s2_syn;
    sig_key <= s2_key;
    sig_bucket <= bucket;
    sig_payload_bytes <= payload;
    sig_payload_words <= payload;
    sig_payload <= s2_payload_length != 17'd0;
    sig_payload_length <= s2_payload_length;
    sig_payload_start <= 8'd42 + {s2_payload_slot, 2'b00};
    sig_length_less_2 <= {1'b0, s2_payload_length} - 18'd2;
    sig_length_less_20 <= {1'b0, s2_payload_length} - 18'd20;
    sig_sport <= s2_sport;
    sig_dport <= s2_dport;
    sig_tcp <= s2_proto == 8'd6;
    sig_udp <= s2_proto == 8'd17;
    sig_ipv6 <= s2_ipv6;
    sig_tags <= s2_tags;
    sig_pppoe <= s2_pppoe;
    sig_byte0 <= s2_byte0;
    sig_byte1 <= s2_byte1;
    sig_checksum <= s2_checksum;
    if (rst) begin
        sig_valid <= 1'b0;
    end
end

// ---- stages 3b, 3c, 3d: signatures (compares, matches, class; registered inside) -

wire [3:0] match;  // two cycles behind sig_*, with cls_*
wire       rtp_candidate;
wire       connect;
wire       other;

vtc_signatures signatures (
    .clk(clk),
    .payload(sig_payload_bytes),
    .payload_words(sig_payload_words),
    .tcp(sig_tcp),
    .udp(sig_udp),
    .sport(sig_sport),
    .dport(sig_dport),
    .payload_length(sig_payload_length),
    .length_less_2(sig_length_less_2),
    .length_less_20(sig_length_less_20),
    .match(match),
    .rtp_candidate(rtp_candidate),
    .connect(connect),
    .other(other)
);

// an RTP header's {SSRC (bytes 8..11), sequence number (bytes 2..3)}, big-endian
wire [47:0] sig_rtp_id = {be32(sig_payload_bytes[8*8 +: 32]), be16(sig_payload_bytes[8*2 +: 16])};

reg                   mid_valid = 1'b0;
reg                   mid_parsed = 1'b0;
reg                   mid_fragment = 1'b0;
reg                   mid_end = 1'b0;
reg                   mid_syn = 1'b0;
reg [47:0]            mid_rtp_id = 48'd0;
reg [104:0]           mid_key = 105'd0;
reg [BUCKET_BITS-1:0] mid_bucket = {BUCKET_BITS{1'b0}};
reg                   mid_payload = 1'b0;
reg                   mid_ipv6 = 1'b0;
reg [1:0]             mid_tags = 2'd0;
reg                   mid_pppoe = 1'b0;
reg [7:0]             mid_byte0 = 8'd0;
reg [7:0]             mid_byte1 = 8'd0;
reg [15:0]            mid_checksum = 16'd0;
reg [7:0]             mid_payload_start = 8'd0;
reg [15:0]            mid_payload_length = 16'd0;

always @(posedge clk) begin
    mid_valid <= sig_valid;
    mid_parsed <= sig_parsed;
    mid_fragment <= sig_fragment;
    mid_end <= sig_end;
    mid_syn <= sig_syn;
    mid_rtp_id <= sig_rtp_id;
    mid_key <= sig_key;
    mid_bucket <= sig_bucket;
    mid_payload <= sig_payload;
    mid_ipv6 <= sig_ipv6;
    mid_tags <= sig_tags;
    mid_pppoe <= sig_pppoe;
    mid_byte0 <= sig_byte0;
    mid_byte1 <= sig_byte1;
    mid_checksum <= sig_checksum;
    mid_payload_start <= sig_payload_start;
    mid_payload_length <= sig_payload_length[15:0];
    if (rst) begin
        mid_valid <= 1'b0;
    end
end

reg                   cls_valid = 1'b0;
reg                   cls_parsed = 1'b0;
reg                   cls_fragment = 1'b0;
reg                   cls_end = 1'b0;
reg                   cls_syn = 1'b0;
reg [47:0]            cls_rtp_id = 48'd0;
reg [104:0]           cls_key = 105'd0;
reg [BUCKET_BITS-1:0] cls_bucket = {BUCKET_BITS{1'b0}};
reg                   cls_payload = 1'b0;
reg                   cls_ipv6 = 1'b0;
reg [1:0]             cls_tags = 2'd0;
reg                   cls_pppoe = 1'b0;
reg [7:0]             cls_byte0 = 8'd0;
reg [7:0]             cls_byte1 = 8'd0;
reg [15:0]            cls_checksum = 16'd0;
reg [7:0]             cls_payload_start = 8'd0;
reg [15:0]            cls_payload_length = 16'd0;

always @(posedge clk) begin
    cls_valid <= mid_valid;
    cls_parsed <= mid_parsed;
    cls_fragment <= mid_fragment;
    cls_end <= mid_end;
    cls_syn <= mid_syn;
    cls_rtp_id <= mid_rtp_id;
    cls_key <= mid_key;
    cls_bucket <= mid_bucket;
    cls_payload <= mid_payload;
    cls_ipv6 <= mid_ipv6;
    cls_tags <= mid_tags;
    cls_pppoe <= mid_pppoe;
    cls_byte0 <= mid_byte0;
    cls_byte1 <= mid_byte1;
    cls_checksum <= mid_checksum;
    cls_payload_start <= mid_payload_start;
    cls_payload_length <= mid_payload_length;
    if (rst) begin
        cls_valid <= 1'b0;
    end
end

always @(posedge clk) begin
    req_valid <= cls_valid;
    req_parsed <= cls_parsed;
    req_fragment <= cls_fragment;
    req_key <= cls_key;
    req_bucket <= cls_bucket;
    req_payload <= cls_payload;
    req_match <= cls_payload ? match : 4'd0;
    req_end <= cls_end;
    req_syn <= cls_syn;
    req_other <= cls_payload && other;
    req_connect <= cls_payload && connect;
    req_rtp <= cls_payload && rtp_candidate;
    req_rtp_id <= cls_rtp_id;
    req_ipv6 <= cls_ipv6;
    req_tags <= cls_tags;
    req_pppoe <= cls_pppoe;
    req_byte0 <= cls_byte0;
    req_byte1 <= cls_byte1;
    req_checksum <= cls_checksum;
    req_payload_start <= cls_payload_start;
    req_payload_length <= cls_payload_length;
    if (rst) begin
        req_valid <= 1'b0;
    end
end

endmodule

`resetall
