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
// the window padded with zeros far enough for any L4 or payload offset
localparam PADDED_BITS = WINDOW_BITS + 8 * 32;
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

// ---- stage 1: tags, IPv4 / IPv6 -------------------------------------------

wire [15:0] ethertype0 = be16(padded[8*12 +: 16]);
wire [15:0] ethertype1 = be16(padded[8*16 +: 16]);
wire [15:0] ethertype2 = be16(padded[8*20 +: 16]);
wire        tag1 = is_vlan(ethertype0);
wire        tag2 = tag1 && is_vlan(ethertype1);
wire [1:0]  tags = {tag2, tag1 && !tag2};
wire [15:0] ethertype = tag2 ? ethertype2 : (tag1 ? ethertype1 : ethertype0);
// the L3 header's first 40 bytes
wire [319:0] l3 = tag2 ? padded[8*22 +: 320] : (tag1 ? padded[8*18 +: 320] : padded[8*14 +: 320]);

wire [3:0]  ip_version = l3[7:4];
wire [3:0]  ihl = l3[3:0];
wire [15:0] ipv4_length = be16(l3[8*2 +: 16]);
wire [13:0] ipv4_fragment = {l3[8*6 +: 6], l3[8*7 +: 8]};
wire [15:0] ipv6_payload_length = be16(l3[8*4 +: 16]);

wire is_ipv4 = ethertype == 16'h0800 && ip_version == 4'd4 && ihl >= 4'd5
    && ipv4_fragment == 14'd0;
wire is_ipv6 = ethertype == 16'h86DD && ip_version == 4'd6;
wire [7:0] proto = is_ipv6 ? l3[8*6 +: 8] : l3[8*9 +: 8];
wire [16:0] ip_length = is_ipv6 ? 17'd40 + {1'b0, ipv6_payload_length} : {1'b0, ipv4_length};
wire [5:0] l3_header = is_ipv6 ? 6'd40 : {ihl, 2'b00};
wire [4:0] l3_offset = 5'd14 + {1'b0, tags, 2'b00};
// L4 offset = 34 + 4 * l4_slot
wire [3:0] l4_slot = {2'b00, tags} + (is_ipv6 ? 4'd5 : ihl - 4'd5);
wire [17:0] ip_end = {13'd0, l3_offset} + {1'b0, ip_length};

reg         s1_valid = 1'b0;
reg         s1_candidate = 1'b0;
reg         s1_ipv6 = 1'b0;
reg [1:0]   s1_tags = 2'd0;
reg [7:0]   s1_proto = 8'd0;
reg [127:0] s1_src = 128'd0;
reg [127:0] s1_dst = 128'd0;
reg [16:0]  s1_ip_length = 17'd0;
reg [5:0]   s1_l3_header = 6'd0;
reg [3:0]   s1_l4_slot = 4'd0;
reg [7:0]   s1_byte0 = 8'd0;
reg [7:0]   s1_byte1 = 8'd0;
reg [15:0]  s1_checksum = 16'd0;
reg [CAP_WIDTH-1:0] s1_captured = {CAP_WIDTH{1'b0}};

always @(posedge clk) begin
    s1_valid <= s0_valid;
    s1_candidate <= s0_full && (is_ipv4 || is_ipv6) && (proto == 8'd6 || proto == 8'd17)
        && ip_end <= MAX_FRAME_LEN;
    s1_ipv6 <= is_ipv6;
    s1_tags <= tags;
    s1_proto <= proto;
    s1_src <= is_ipv6 ? be128(l3[8*8 +: 128]) : {96'd0, be32(l3[8*12 +: 32])};
    s1_dst <= is_ipv6 ? be128(l3[8*24 +: 128]) : {96'd0, be32(l3[8*16 +: 32])};
    s1_ip_length <= ip_length;
    s1_l3_header <= l3_header;
    s1_l4_slot <= l4_slot;
    s1_byte0 <= l3[7:0];
    s1_byte1 <= l3[15:8];
    s1_checksum <= be16(l3[8*10 +: 16]);
    s1_captured <= s0_captured;
    if (rst) begin
        s1_valid <= 1'b0;
    end
end

// ---- stage 2: ports, L4 header, canonical key -----------------------------

// the L4 ports and TCP data offset (L4 offset = 34 + 4 * slot, slot 0..12)
reg [31:0] ports;
reg [3:0]  data_offset;

always @* begin
    ports = 32'd0;
    data_offset = 4'd0;
    for (i = 0; i < 13; i = i + 1) begin
        if (s1_l4_slot == i[3:0]) begin
            ports = padded[8*34 + 32*i +: 32];
            data_offset = padded[8*(34+12) + 4 + 32*i +: 4];
        end
    end
end
wire [15:0] sport = be16(ports[15:0]);
wire [15:0] dport = be16(ports[31:16]);
wire        is_tcp = s1_proto == 8'd6;
wire [5:0]  l4_header = is_tcp ? {data_offset, 2'b00} : 6'd8;
wire [7:0]  payload_offset = 8'd34 + {2'b00, s1_l4_slot, 2'b00} + {2'b00, l4_header};
// payload offset = 42 + 4 * payload_slot
wire [4:0]  payload_slot = {1'b0, s1_l4_slot} + (is_tcp ? {1'b0, data_offset} - 5'd2 : 5'd0);
wire [16:0] headers = {11'd0, s1_l3_header} + {11'd0, l4_header};
wire [16:0] payload_length = s1_ip_length - headers;
wire        parsed = s1_candidate && (!is_tcp || data_offset >= 4'd5)
    && payload_offset <= s1_captured && s1_ip_length >= headers;
// the (address, port) that compares lower is endpoint a
wire        src_is_a = {s1_src, sport} <= {s1_dst, dport};

reg         s2_valid = 1'b0;
reg         s2_parsed = 1'b0;
reg [104:0] s2_key = 105'd0;
reg [4:0]   s2_payload_slot = 5'd0;
reg         s2_payload = 1'b0;
reg         s2_length_12 = 1'b0;
reg         s2_length_48 = 1'b0;
reg [15:0]  s2_sport = 16'd0;
reg [15:0]  s2_dport = 16'd0;
reg [7:0]   s2_proto = 8'd0;
reg         s2_ipv6 = 1'b0;
reg [1:0]   s2_tags = 2'd0;
reg [7:0]   s2_byte0 = 8'd0;
reg [7:0]   s2_byte1 = 8'd0;
reg [15:0]  s2_checksum = 16'd0;
reg [CAP_WIDTH-1:0] s2_captured = {CAP_WIDTH{1'b0}};

always @(posedge clk) begin
    s2_valid <= s1_valid;
    s2_parsed <= parsed;
    if (src_is_a) begin
        s2_key <= {s1_ipv6, s1_proto, fold(s1_src), sport, fold(s1_dst), dport};
    end else begin
        s2_key <= {s1_ipv6, s1_proto, fold(s1_dst), dport, fold(s1_src), sport};
    end
    s2_payload_slot <= payload_slot;
    s2_payload <= payload_length != 17'd0;
    s2_length_12 <= payload_length >= 17'd12;
    s2_length_48 <= payload_length >= 17'd48;
    s2_sport <= sport;
    s2_dport <= dport;
    s2_proto <= s1_proto;
    s2_ipv6 <= s1_ipv6;
    s2_tags <= s1_tags;
    s2_byte0 <= s1_byte0;
    s2_byte1 <= s1_byte1;
    s2_checksum <= s1_checksum;
    s2_captured <= s1_captured;
    if (rst) begin
        s2_valid <= 1'b0;
    end
end

// ---- stage 3: signatures and hash ------------------------------------------

// payload offset = 42 + 4 * slot; a parsed frame's payload starts inside the window
// (slot 0..21); bytes past the frame's end read 0
reg [8*SIGNATURE_BYTES-1:0] payload;
reg [7:0] payload_offset_byte;

always @* begin
    payload = {8*SIGNATURE_BYTES{1'b0}};
    for (i = 0; i < 22; i = i + 1) begin
        if (s2_payload_slot == i[4:0]) begin
            payload = padded[8*42 + 32*i +: 8*SIGNATURE_BYTES];
        end
    end
    for (i = 0; i < SIGNATURE_BYTES; i = i + 1) begin
        payload_offset_byte = 8'd42 + {1'b0, s2_payload_slot, 2'b00} + i[7:0];
        if (payload_offset_byte >= s2_captured) begin
            payload[8*i +: 8] = 8'd0;
        end
    end
end
wire [3:0] match;

vtc_signatures signatures (
    .payload(payload),
    .tcp(s2_proto == 8'd6),
    .udp(s2_proto == 8'd17),
    .sport(s2_sport),
    .dport(s2_dport),
    .length_12(s2_length_12),
    .length_48(s2_length_48),
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
wire [31:0] key_crc = crc32(s2_key);
/* verilator lint_on UNUSEDSIGNAL */

always @(posedge clk) begin
    req_valid <= s2_valid;
    req_parsed <= s2_parsed;
    req_key <= s2_key;
    req_bucket <= key_crc[BUCKET_BITS-1:0];
    req_payload <= s2_payload;
    req_match <= s2_payload ? match : 4'd0;
    req_ipv6 <= s2_ipv6;
    req_tags <= s2_tags;
    req_byte0 <= s2_byte0;
    req_byte1 <= s2_byte1;
    req_checksum <= s2_checksum;
    if (rst) begin
        req_valid <= 1'b0;
    end
end

endmodule

`resetall
