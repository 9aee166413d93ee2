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
 * three pipeline stages: L2/L3 (tags, IPv4/IPv6 fields), L4 (ports, header
 * length, canonical key), payload (signature bytes, hash).  One request
 * leaves per frame, in frame order, a fixed PARSE_LATENCY cycles after the
 * window's end.  Only windows of at least MIN_PARSE_BYTES are copied (the
 * shortest TCP/UDP frame), so a copy is held for at least that many beats:
 * the stages may read it on the three cycles after it was taken.
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
    output reg  [7:0]             req_byte0 = 8'd0,
    output reg  [7:0]             req_byte1 = 8'd0,
    output reg  [15:0]            req_checksum = 16'd0
);

localparam WINDOW_BYTES = 128;
localparam WINDOW_BEATS = WINDOW_BYTES / KEEP_WIDTH;
localparam WINDOW_BITS = WINDOW_BYTES * 8;
localparam BEAT_INDEX_WIDTH = $clog2(WINDOW_BEATS + 1);
localparam SIGNATURE_BYTES = 12;
// Ethernet + IPv4 + UDP headers
localparam MIN_PARSE_BYTES = 42;
// the window padded with zeros far enough for any L3 (slot 0..31), L4 or payload offset
localparam PADDED_BITS = WINDOW_BITS + 8 * 64;
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

// one register per beat of the window, each written when its beat comes in (an indexed
// write into one wide register costs thousands of LUTs)
genvar g;
generate
    for (g = 0; g < WINDOW_BEATS; g = g + 1) begin : window_beat
        localparam [BEAT_INDEX_WIDTH-1:0] INDEX = g;
        reg [DATA_WIDTH-1:0] beat_reg = {DATA_WIDTH{1'b0}};

        always @(posedge clk) begin
            if (in_beat && beat_index_reg == INDEX) begin
                beat_reg <= in_tdata & keep_mask;
            end
        end

        assign window[DATA_WIDTH*g +: DATA_WIDTH] = beat_reg;
    end
endgenerate
wire window_end = in_beat && in_window && (in_tlast || beat_index_reg == WINDOW_END_BEAT);
wire [CAP_WIDTH-1:0] captured = {{(CAP_WIDTH-BEAT_INDEX_WIDTH){1'b0}}, beat_index_reg} * BEAT_BYTES
    + {{(CAP_WIDTH-COUNT_WIDTH){1'b0}}, beat_bytes};
wire [LEN_WIDTH:0] frame_length = {1'b0, length_reg} + {{(LEN_WIDTH+1-COUNT_WIDTH){1'b0}}, beat_bytes};

// the window whose last beat is being written; bytes past `captured` are stale and
// never looked at, except payload bytes, which are masked in stage 3
reg                   w_valid = 1'b0;
reg                   w_full = 1'b0;
reg [CAP_WIDTH-1:0]   w_captured = {CAP_WIDTH{1'b0}};
// stage 0: the window being parsed
reg [WINDOW_BITS-1:0] parse_window_reg = {WINDOW_BITS{1'b0}};
reg                   s0_valid = 1'b0;
reg                   s0_full = 1'b0;
reg [CAP_WIDTH-1:0]   s0_captured = {CAP_WIDTH{1'b0}};

always @(posedge clk) begin
    oversize <= 1'b0;
    if (in_beat) begin
        if (in_window) begin
            beat_index_reg <= beat_index_reg + 1'b1;
        end
        if (frame_length > MAX_FRAME_LEN) begin
            length_reg <= {LEN_WIDTH{1'b1}};
        end else begin
            length_reg <= frame_length[LEN_WIDTH-1:0];
        end
        if (in_tlast) begin
            beat_index_reg <= {BEAT_INDEX_WIDTH{1'b0}};
            length_reg <= {LEN_WIDTH{1'b0}};
            oversize <= frame_length > MAX_FRAME_LEN;
        end
    end
    w_valid <= window_end;
    w_full <= window_end && captured >= MIN_PARSE_BYTES;
    w_captured <= captured;
    s0_valid <= w_valid;
    s0_full <= w_full;
    s0_captured <= w_captured;
    if (w_full) begin
        parse_window_reg <= window;
    end

    if (rst) begin
        oversize <= 1'b0;
        beat_index_reg <= {BEAT_INDEX_WIDTH{1'b0}};
        length_reg <= {LEN_WIDTH{1'b0}};
        w_valid <= 1'b0;
        w_full <= 1'b0;
        s0_valid <= 1'b0;
    end
end

wire [PADDED_BITS-1:0] padded = {{(PADDED_BITS-WINDOW_BITS){1'b0}}, parse_window_reg};

// ---- stage 1: link layer, the outer IP header -------------------------------

// L3 offset = 14 + 4 * slot: the outer header's slot is 0..4 (two tags, PPPoE), an inner
// (GTP-U) header's up to 21 (an inner IP + UDP header must fit the window)
localparam [4:0] LAST_L3_SLOT = 5'd21;

wire [15:0] ethertype0 = be16(padded[8*12 +: 16]);
wire [15:0] ethertype1 = be16(padded[8*16 +: 16]);
wire [15:0] ethertype2 = be16(padded[8*20 +: 16]);
wire        tag1 = is_vlan(ethertype0);
wire        tag2 = tag1 && is_vlan(ethertype1);
wire [1:0]  tags = {tag2, tag1 && !tag2};
wire [15:0] link_type = tag2 ? ethertype2 : (tag1 ? ethertype1 : ethertype0);
// after the tags: the PPPoE session header's version/type and code, and the PPP protocol
wire [15:0] pppoe_start = tag2 ? padded[8*22 +: 16] : (tag1 ? padded[8*18 +: 16] : padded[8*14 +: 16]);
wire [15:0] ppp_protocol = be16(tag2 ? padded[8*28 +: 16]
    : (tag1 ? padded[8*24 +: 16] : padded[8*20 +: 16]));
wire        pppoe = link_type == 16'h8864;
wire        pppoe_session = pppoe_start == 16'h0011;
wire        link_ipv4 = pppoe ? pppoe_session && ppp_protocol == 16'h0021 : link_type == 16'h0800;
wire        link_ipv6 = pppoe ? pppoe_session && ppp_protocol == 16'h0057 : link_type == 16'h86DD;
wire [2:0]  outer_slot = {1'b0, tags} + {1'b0, pppoe, 1'b0};
// the outer L3 header's first 12 bytes (IPv4's TTL is not looked at)
/* verilator lint_off UNUSEDSIGNAL */
reg  [95:0] outer;
/* verilator lint_on UNUSEDSIGNAL */

always @* begin
    outer = 96'd0;
    for (i = 0; i < 5; i = i + 1) begin
        if (outer_slot == i[2:0]) begin
            outer = padded[8*14 + 32*i +: 96];
        end
    end
end

wire [3:0]  outer_version = outer[7:4];
wire [3:0]  outer_ihl = outer[3:0];
wire        outer_ipv4 = link_ipv4 && outer_version == 4'd4 && outer_ihl >= 4'd5;
wire        outer_ipv6 = link_ipv6 && outer_version == 4'd6;
wire        outer_more_fragments = outer[8*6 + 5];
wire [12:0] outer_fragment_offset = {outer[8*6 +: 5], outer[8*7 +: 8]};
wire [16:0] outer_length = outer_ipv6 ? 17'd40 + {1'b0, be16(outer[8*4 +: 16])}
    : {1'b0, be16(outer[8*2 +: 16])};
wire [17:0] outer_end = 18'd14 + {13'd0, outer_slot, 2'b00} + {1'b0, outer_length};

reg         s1_valid = 1'b0;
reg         s1_fits = 1'b0;      // an outer IP header whose length keeps the frame in MAX_FRAME_LEN
reg         s1_fragment = 1'b0;  // an IPv4 fragment other than the first
reg         s1_whole = 1'b0;     // not a fragment at all
reg         s1_link_ipv4 = 1'b0;
reg         s1_link_ipv6 = 1'b0;
reg         s1_outer_udp = 1'b0;
reg         s1_ipv6 = 1'b0;
reg [1:0]   s1_tags = 2'd0;
reg         s1_pppoe = 1'b0;
reg [2:0]   s1_l3_slot = 3'd0;
reg [3:0]   s1_l4_slot = 4'd0;
reg [7:0]   s1_byte0 = 8'd0;
reg [7:0]   s1_byte1 = 8'd0;
reg [15:0]  s1_checksum = 16'd0;
reg [CAP_WIDTH-1:0] s1_captured = {CAP_WIDTH{1'b0}};

always @(posedge clk) begin
    s1_valid <= s0_valid;
    s1_fits <= s0_full && (outer_ipv4 || outer_ipv6) && outer_end <= MAX_FRAME_LEN;
    s1_fragment <= s0_full && outer_ipv4 && outer_fragment_offset != 13'd0;
    s1_whole <= outer_ipv6 || (!outer_more_fragments && outer_fragment_offset == 13'd0);
    s1_link_ipv4 <= link_ipv4;
    s1_link_ipv6 <= link_ipv6;
    s1_outer_udp <= (outer_ipv6 ? outer[8*6 +: 8] : outer[8*9 +: 8]) == 8'd17;
    s1_ipv6 <= outer_ipv6;
    s1_tags <= tags;
    s1_pppoe <= pppoe;
    s1_l3_slot <= outer_slot;
    // L4 offset = 34 + 4 * slot
    s1_l4_slot <= {1'b0, outer_slot} + (outer_ipv6 ? 4'd5 : outer_ihl - 4'd5);
    s1_byte0 <= outer[7:0];
    s1_byte1 <= outer[15:8];
    s1_checksum <= be16(outer[8*10 +: 16]);
    s1_captured <= s0_captured;
    if (rst) begin
        s1_valid <= 1'b0;
    end
end

// ---- stage 2: GTP-U, which IP header the flow is ---------------------------

// the outer UDP header and the GTP-U bytes looked at, from the outer L4 offset (34 + 4 * slot,
// slot 0..14): ports 0..3, flags 8, message type 9, next extension type 19, extension
// length 20 and the byte that ends an extension of 1..4 words (23, 27, 31, 35)
reg [31:0] outer_ports;
/* verilator lint_off UNUSEDSIGNAL */ // bit 3 is spare
reg [7:0]  gtp_flags;
/* verilator lint_on UNUSEDSIGNAL */
reg [7:0]  gtp_type;
reg [7:0]  gtp_next;
reg [7:0]  gtp_words;
reg [31:0] gtp_chain_ends;

always @* begin
    outer_ports = 32'd0;
    gtp_flags = 8'd0;
    gtp_type = 8'd0;
    gtp_next = 8'd0;
    gtp_words = 8'd0;
    gtp_chain_ends = 32'd0;
    for (i = 0; i < 15; i = i + 1) begin
        if (s1_l4_slot == i[3:0]) begin
            outer_ports = padded[8*34 + 32*i +: 32];
            gtp_flags = padded[8*(34+8) + 32*i +: 8];
            gtp_type = padded[8*(34+9) + 32*i +: 8];
            gtp_next = padded[8*(34+19) + 32*i +: 8];
            gtp_words = padded[8*(34+20) + 32*i +: 8];
            gtp_chain_ends = {padded[8*(34+35) + 32*i +: 8], padded[8*(34+31) + 32*i +: 8],
                              padded[8*(34+27) + 32*i +: 8], padded[8*(34+23) + 32*i +: 8]};
        end
    end
end

wire        gtp_port = be16(outer_ports[15:0]) == 16'd2152 || be16(outer_ports[31:16]) == 16'd2152;
// a G-PDU (version 1, PT 1, type 0xFF) in a whole UDP packet on port 2152
wire        gtp = s1_fits && s1_whole && s1_outer_udp && gtp_port && gtp_flags[7:4] == 4'h3
    && gtp_type == 8'hFF;
wire        gtp_optional = gtp_flags[2:0] != 3'd0;
wire        gtp_extension = gtp_flags[2] && gtp_next != 8'd0;
wire [1:0]  gtp_chain_index = gtp_words[1:0] - 2'd1;
wire [7:0]  gtp_chain_end = gtp_chain_ends[8*gtp_chain_index +: 8];
wire        gtp_unpacked = !gtp_extension
    || (gtp_words >= 8'd1 && gtp_words <= 8'd4 && gtp_chain_end == 8'd0);
// inner L3 offset = outer L4 offset (34 + 4 * slot) + 16 (UDP, GTP) + 4 (optional fields)
// + 4 * extension words = 14 + 4 * (slot + 9 + ...)
wire [5:0]  inner_slot = {2'b00, s1_l4_slot} + 6'd9 + {5'd0, gtp_optional}
    + (gtp_extension ? {3'd0, gtp_words[2:0]} : 6'd0);

reg         s2_valid = 1'b0;
reg         s2_fits = 1'b0;
reg         s2_fragment = 1'b0;
reg         s2_tunnel = 1'b0;
reg         s2_link_ipv4 = 1'b0;
reg         s2_link_ipv6 = 1'b0;
reg [4:0]   s2_l3_slot = 5'd0;
reg         s2_ipv6 = 1'b0;
reg [1:0]   s2_tags = 2'd0;
reg         s2_pppoe = 1'b0;
reg [7:0]   s2_byte0 = 8'd0;
reg [7:0]   s2_byte1 = 8'd0;
reg [15:0]  s2_checksum = 16'd0;
reg [CAP_WIDTH-1:0] s2_captured = {CAP_WIDTH{1'b0}};

always @(posedge clk) begin
    s2_valid <= s1_valid;
    s2_fits <= s1_fits && (!gtp || (gtp_unpacked && inner_slot <= {1'b0, LAST_L3_SLOT}));
    s2_fragment <= s1_fragment;
    s2_tunnel <= gtp;
    s2_link_ipv4 <= s1_link_ipv4;
    s2_link_ipv6 <= s1_link_ipv6;
    s2_l3_slot <= gtp ? inner_slot[4:0] : {2'b00, s1_l3_slot};
    s2_ipv6 <= s1_ipv6;
    s2_tags <= s1_tags;
    s2_pppoe <= s1_pppoe;
    s2_byte0 <= s1_byte0;
    s2_byte1 <= s1_byte1;
    s2_checksum <= s1_checksum;
    s2_captured <= s1_captured;
    if (rst) begin
        s2_valid <= 1'b0;
    end
end

// ---- stage 3: the flow's IP header (the outer one, or GTP-U's inner one) ---

// its first 40 bytes (L3 offset = 14 + 4 * slot, slot 0..21; the TOS / traffic class byte is
// the outer header's, stage 1's).  A part-select: yosys makes it a shifter, 1,300 LUTs fewer
// than a multiplexer over the 22 slots
/* verilator lint_off UNUSEDSIGNAL */
wire [319:0] l3 = padded[8*14 + 32*s2_l3_slot +: 320];
/* verilator lint_on UNUSEDSIGNAL */

wire [3:0]  ip_version = l3[7:4];
wire [3:0]  ihl = l3[3:0];
wire [15:0] ipv4_length = be16(l3[8*2 +: 16]);
wire [12:0] ipv4_fragment_offset = {l3[8*6 +: 5], l3[8*7 +: 8]};
wire [15:0] ipv6_payload_length = be16(l3[8*4 +: 16]);

// an inner header's version stands for the ethertype
wire is_ipv4 = (s2_tunnel || s2_link_ipv4) && ip_version == 4'd4 && ihl >= 4'd5;
wire is_ipv6 = (s2_tunnel || s2_link_ipv6) && ip_version == 4'd6;
wire [7:0] proto = is_ipv6 ? l3[8*6 +: 8] : l3[8*9 +: 8];
wire [16:0] ip_length = is_ipv6 ? 17'd40 + {1'b0, ipv6_payload_length} : {1'b0, ipv4_length};
wire [5:0] l3_header = is_ipv6 ? 6'd40 : {ihl, 2'b00};
// L4 offset = 34 + 4 * l4_slot
wire [4:0] l4_slot = s2_l3_slot + (is_ipv6 ? 5'd5 : {1'b0, ihl} - 5'd5);
wire [17:0] ip_end = 18'd14 + {11'd0, s2_l3_slot, 2'b00} + {1'b0, ip_length};

reg         s3_valid = 1'b0;
reg         s3_candidate = 1'b0;
reg         s3_fragment = 1'b0;
reg         s3_flow_ipv6 = 1'b0;
reg [7:0]   s3_proto = 8'd0;
reg [127:0] s3_src = 128'd0;
reg [127:0] s3_dst = 128'd0;
reg [16:0]  s3_ip_length = 17'd0;
reg [5:0]   s3_l3_header = 6'd0;
reg [4:0]   s3_l4_slot = 5'd0;
reg         s3_ipv6 = 1'b0;
reg [1:0]   s3_tags = 2'd0;
reg         s3_pppoe = 1'b0;
reg [7:0]   s3_byte0 = 8'd0;
reg [7:0]   s3_byte1 = 8'd0;
reg [15:0]  s3_checksum = 16'd0;
reg [CAP_WIDTH-1:0] s3_captured = {CAP_WIDTH{1'b0}};

always @(posedge clk) begin
    s3_valid <= s2_valid;
    s3_candidate <= s2_fits && (is_ipv4 || is_ipv6) && (proto == 8'd6 || proto == 8'd17)
        && ip_end <= MAX_FRAME_LEN && !(s2_tunnel && is_ipv4 && ipv4_fragment_offset != 13'd0);
    s3_fragment <= s2_fragment
        || (s2_fits && s2_tunnel && is_ipv4 && ipv4_fragment_offset != 13'd0);
    s3_flow_ipv6 <= is_ipv6;
    s3_proto <= proto;
    s3_src <= is_ipv6 ? be128(l3[8*8 +: 128]) : {96'd0, be32(l3[8*12 +: 32])};
    s3_dst <= is_ipv6 ? be128(l3[8*24 +: 128]) : {96'd0, be32(l3[8*16 +: 32])};
    s3_ip_length <= ip_length;
    s3_l3_header <= l3_header;
    s3_l4_slot <= l4_slot;
    s3_ipv6 <= s2_ipv6;
    s3_tags <= s2_tags;
    s3_pppoe <= s2_pppoe;
    s3_byte0 <= s2_byte0;
    s3_byte1 <= s2_byte1;
    s3_checksum <= s2_checksum;
    s3_captured <= s2_captured;
    if (rst) begin
        s3_valid <= 1'b0;
    end
end

// ---- stage 4: ports, L4 header, canonical key -----------------------------

// the L4 ports and TCP data offset (L4 offset = 34 + 4 * slot; an L4 header that fits the
// window starts in slot 0..21)
reg [31:0] ports;
reg [3:0]  data_offset;

always @* begin
    ports = 32'd0;
    data_offset = 4'd0;
    for (i = 0; i < 22; i = i + 1) begin
        if (s3_l4_slot == i[4:0]) begin
            ports = padded[8*34 + 32*i +: 32];
            data_offset = padded[8*(34+12) + 4 + 32*i +: 4];
        end
    end
end
wire [15:0] sport = be16(ports[15:0]);
wire [15:0] dport = be16(ports[31:16]);
wire        is_tcp = s3_proto == 8'd6;
wire [5:0]  l4_header = is_tcp ? {data_offset, 2'b00} : 6'd8;
wire [8:0]  payload_offset = 9'd34 + {2'b00, s3_l4_slot, 2'b00} + {3'b000, l4_header};
// payload offset = 42 + 4 * payload_slot
wire [5:0]  payload_slot = {1'b0, s3_l4_slot} + (is_tcp ? {2'b00, data_offset} - 6'd2 : 6'd0);
wire [16:0] headers = {11'd0, s3_l3_header} + {11'd0, l4_header};
wire [16:0] payload_length = s3_ip_length - headers;
wire        parsed = s3_candidate && (!is_tcp || data_offset >= 4'd5)
    && payload_offset <= {1'b0, s3_captured} && s3_ip_length >= headers;
// the (address, port) that compares lower is endpoint a
wire        src_is_a = {s3_src, sport} <= {s3_dst, dport};

reg         s4_valid = 1'b0;
reg         s4_parsed = 1'b0;
reg         s4_fragment = 1'b0;
reg [104:0] s4_key = 105'd0;
reg [5:0]   s4_payload_slot = 6'd0;
reg [16:0]  s4_payload_length = 17'd0;
reg [15:0]  s4_sport = 16'd0;
reg [15:0]  s4_dport = 16'd0;
reg [7:0]   s4_proto = 8'd0;
reg         s4_ipv6 = 1'b0;
reg [1:0]   s4_tags = 2'd0;
reg         s4_pppoe = 1'b0;
reg [7:0]   s4_byte0 = 8'd0;
reg [7:0]   s4_byte1 = 8'd0;
reg [15:0]  s4_checksum = 16'd0;
reg [CAP_WIDTH-1:0] s4_captured = {CAP_WIDTH{1'b0}};

always @(posedge clk) begin
    s4_valid <= s3_valid;
    s4_parsed <= parsed && !s3_fragment;
    s4_fragment <= s3_fragment;
    if (src_is_a) begin
        s4_key <= {s3_flow_ipv6, s3_proto, fold(s3_src), sport, fold(s3_dst), dport};
    end else begin
        s4_key <= {s3_flow_ipv6, s3_proto, fold(s3_dst), dport, fold(s3_src), sport};
    end
    s4_payload_slot <= payload_slot;
    s4_payload_length <= payload_length;
    s4_sport <= sport;
    s4_dport <= dport;
    s4_proto <= s3_proto;
    s4_ipv6 <= s3_ipv6;
    s4_tags <= s3_tags;
    s4_pppoe <= s3_pppoe;
    s4_byte0 <= s3_byte0;
    s4_byte1 <= s3_byte1;
    s4_checksum <= s3_checksum;
    s4_captured <= s3_captured;
    if (rst) begin
        s4_valid <= 1'b0;
    end
end

// ---- stage 5: signatures and hash ------------------------------------------

// payload offset = 42 + 4 * slot; a parsed frame's payload starts inside the window
// (slot 0..21); bytes past the frame's end read 0
reg [8*SIGNATURE_BYTES-1:0] payload;
reg [8:0] payload_offset_byte;

always @* begin
    payload = {8*SIGNATURE_BYTES{1'b0}};
    for (i = 0; i < 22; i = i + 1) begin
        if (s4_payload_slot == i[5:0]) begin
            payload = padded[8*42 + 32*i +: 8*SIGNATURE_BYTES];
        end
    end
    for (i = 0; i < SIGNATURE_BYTES; i = i + 1) begin
        payload_offset_byte = 9'd42 + {1'b0, s4_payload_slot, 2'b00} + i[8:0];
        if (payload_offset_byte >= {1'b0, s4_captured}) begin
            payload[8*i +: 8] = 8'd0;
        end
    end
end
wire       carries_payload = s4_payload_length != 17'd0;
wire [3:0] match;

vtc_signatures signatures (
    .payload(payload),
    .tcp(s4_proto == 8'd6),
    .udp(s4_proto == 8'd17),
    .sport(s4_sport),
    .dport(s4_dport),
    .payload_length(s4_payload_length),
    .match(match)
);

// bucket hash of the canonical key (vtc_model.bucket_index): the low bits of the
// CRC-32 (polynomial 0x04C11DB7, register preset to ones, key MSB first, no final XOR)
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

/* verilator lint_off UNUSEDSIGNAL */ // the low BUCKET_BITS are the bucket
wire [31:0] key_crc = crc32(s4_key);
/* verilator lint_on UNUSEDSIGNAL */

always @(posedge clk) begin
    req_valid <= s4_valid;
    req_parsed <= s4_parsed;
    req_fragment <= s4_fragment;
    req_key <= s4_key;
    req_bucket <= key_crc[BUCKET_BITS-1:0];
    req_payload <= carries_payload;
    req_match <= carries_payload ? match : 4'd0;
    req_ipv6 <= s4_ipv6;
    req_tags <= s4_tags;
    req_pppoe <= s4_pppoe;
    req_byte0 <= s4_byte0;
    req_byte1 <= s4_byte1;
    req_checksum <= s4_checksum;
    if (rst) begin
        req_valid <= 1'b0;
    end
end

endmodule

`resetall
