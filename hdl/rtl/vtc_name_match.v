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
 * The vTC's name matcher: a host name in, the application the table gives
 * it out (doc/source/contributor/vtc.rst, "Applications"; bit-exact model:
 * hdl/tests/vtc_names.py, Table.lookup).
 *
 * A name comes a byte a cycle (name_valid, name_last on its last byte);
 * the last NAME_BYTES bytes are kept, ASCII upper case folded.  Then the
 * name is walked backwards, a byte a cycle, a final dot dropped.  Three
 * CRC-32s run over the bytes walked: the suffix's (from the name's end),
 * the current label's and the last two labels' (each from a dot).  At each
 * dot, and at the start of the kept bytes when no label is cut there, the
 * walk stops for up to three lookups: the suffix after the dot, and, when
 * more labels follow them, the label entries of the label before it and of
 * it with the next one.  A lookup reads the bucket (the key's low
 * INDEX_BITS) and compares the four ways' tags (the key's high bits); the
 * hit of the highest score wins (2 a label, 1 more for a label entry; a
 * later hit wins a tie, so the leftmost label entry).  An empty label names
 * nothing.  app_valid pulses with the application number (0: none; 63:
 * another application's name, none either) after the walk; the next name
 * is taken once name_ready is high again.
 *
 * The table is TABLE_BUCKETS buckets of four 32-bit words {valid,
 * application[5:0], tag}, word address = bucket * 4 + way, written through
 * tbl_wr_* (one word a cycle; a write during a walk is allowed and may or
 * may not be seen by it).  It starts empty, and a reset empties it: for
 * TABLE_BUCKETS cycles after one (clearing high) writes are ignored and no
 * name is taken.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module vtc_name_match #
(
    // bytes of a name kept, from its end (a power of two)
    parameter NAME_BYTES = 64,
    // buckets of the table (a power of two), four words each
    parameter TABLE_BUCKETS = 1024
)
(
    input  wire                        clk,
    input  wire                        rst,

    input  wire                        tbl_wr_en,
    input  wire [$clog2(TABLE_BUCKETS)+1:0] tbl_wr_addr,
    input  wire [31:0]                 tbl_wr_data,

    input  wire [7:0]                  name_byte,
    input  wire                        name_valid,
    input  wire                        name_last,
    output wire                        name_ready,
    output wire                        clearing,

    output reg                         app_valid = 1'b0,
    output reg  [5:0]                  app = 6'd0
);

localparam INDEX_BITS = $clog2(TABLE_BUCKETS);
localparam TAG_BITS = 32 - INDEX_BITS;
localparam POS_BITS = $clog2(NAME_BYTES);
localparam [7:0] DOT = 8'h2E;
localparam [31:0] CRC_INIT = 32'hFFFFFFFF;
localparam [POS_BITS:0] FULL = NAME_BYTES;

// one byte of CRC-32 (IEEE 802.3, reflected), on the inverted state
function [31:0] crc_byte(input [31:0] state, input [7:0] data);
    integer i;
    reg [31:0] x;
    begin
        x = state ^ {24'd0, data};
        for (i = 0; i < 8; i = i + 1)
            x = x[0] ? (x >> 1) ^ 32'hEDB88320 : x >> 1;
        crc_byte = x;
    end
endfunction

localparam [31:0] CRC_DOT = crc_byte(CRC_INIT, DOT);

// ---- the table: a RAM per way (vtc_flow_ram: two cycles a read),
// written a word at a time; after a reset every bucket is written 0 ----
reg                  clear = 1'b0;
reg [INDEX_BITS-1:0] clear_bucket = {INDEX_BITS{1'b0}};
assign clearing = clear;

always @(posedge clk) begin
    if (clear) begin
        clear_bucket <= clear_bucket + 1'b1;
        if (&clear_bucket)
            clear <= 1'b0;
    end
    if (rst) begin
        clear <= 1'b1;
        clear_bucket <= {INDEX_BITS{1'b0}};
    end
end

wire [INDEX_BITS-1:0] wr_bucket = clear ? clear_bucket
                                        : tbl_wr_addr[INDEX_BITS+1:2];
wire [31:0]           wr_word = clear ? 32'd0 : tbl_wr_data;
wire [3:0]            wr_way = clear ? 4'b1111
                             : tbl_wr_en ? 4'b0001 << tbl_wr_addr[1:0]
                             : 4'b0000;
reg  [INDEX_BITS-1:0] rd_index = {INDEX_BITS{1'b0}};
wire [127:0]          rd_words;

genvar w;
generate
    for (w = 0; w < 4; w = w + 1) begin : way
        vtc_flow_ram #(.WIDTH(32), .ADDR_WIDTH(INDEX_BITS)) ram (
            .clk(clk), .wr_en(wr_way[w]), .wr_addr(wr_bucket),
            .wr_data(wr_word), .rd_addr(rd_index),
            .rd_data(rd_words[32*w +: 32]));
    end
endgenerate

// ---- the name buffer ---------------------------------------------------
reg [7:0]          name_buf [0:NAME_BYTES-1];
reg [POS_BITS-1:0] wr_pos = {POS_BITS{1'b0}};
reg [POS_BITS:0]   kept = {(POS_BITS+1){1'b0}};  // bytes kept, at most NAME_BYTES
reg                cut = 1'b0;          // bytes were dropped from the start
reg                dropped_dot = 1'b0;  // the last byte dropped was a dot
reg [NAME_BYTES-1:0] dot_at = {NAME_BYTES{1'b0}};  // which kept bytes are dots
reg                last_dot = 1'b0;     // the last byte taken was a dot

// bytes are kept folded to lower case (an upper-case letter's bit 5 set: no adder)
wire       upper = name_byte >= 8'h41 && name_byte <= 8'h5A;
wire [7:0] taken = {name_byte[7:6], name_byte[5] || upper, name_byte[4:0]};
// a dot is a dot folded or not: compared before the fold, once for every position's flag
wire       taken_dot = name_byte == DOT;

// which kept bytes are dots, a decoded write per position
genvar d;
generate
    for (d = 0; d < NAME_BYTES; d = d + 1) begin : dots
        always @(posedge clk) begin
            if (name_valid && name_ready && wr_pos == d)
                dot_at[d] <= taken_dot;
        end
    end
endgenerate

localparam [2:0] S_TAKE = 3'd0, S_START = 3'd1, S_FETCH = 3'd2,
                 S_WALK = 3'd3, S_LOOK = 3'd4, S_DRAIN = 3'd5;
reg [2:0] state = S_TAKE;

// name_ready is state == S_TAKE and not clearing, a register of its own set from what the
// two will be after the edge: the extractor starts a job on it, and through a LUT of this
// module's state it was the slowest path between the two modules (make timing, seed 3)
reg  ready = 1'b1;
wire clear_next = rst || (clear && !(&clear_bucket));
wire take_next = (state == S_TAKE && !(name_valid && !clear && name_last))
    || (state == S_DRAIN && drain == 3'd0) || state > S_DRAIN;
assign name_ready = ready;

always @(posedge clk) begin
    ready <= take_next && !clear_next;
end

// ---- the walk ------------------------------------------------------------
reg [POS_BITS-1:0] rd_pos = {POS_BITS{1'b0}};
reg [POS_BITS:0]   left = {(POS_BITS+1){1'b0}};  // bytes not yet fetched
reg [7:0]          byte_q = 8'd0;  // the next byte to walk, folded
reg                byte_ok = 1'b0;  // byte_q holds one (else: the start)
reg [31:0]         crc_suffix = CRC_INIT;
reg [31:0]         crc_label = CRC_DOT;     // '.' and the current label
reg [31:0]         crc_pair = CRC_DOT;      // '.' and the last two labels
reg                label_seen = 1'b0;       // the current label has a byte
reg [5:0]          labels_done = 6'd0;      // labels walked before it
reg                invalid = 1'b0;          // an empty label
reg                at_start = 1'b0;         // the boundary is the start
// the boundary's lookups, in order, the first issued and the rest shifted
// up: key, score; how many are left
reg [31:0]         look_key0 = 32'd0, look_key1 = 32'd0, look_key2 = 32'd0;
reg [6:0]          look_score0 = 7'd0, look_score1 = 7'd0, look_score2 = 7'd0;
reg [1:0]          look_n = 2'd0;

wire [7:0] folded = name_buf[rd_pos];

// the byte at rd_pos into byte_q, a cycle ahead of the walk
task fetch;
    begin
        byte_q <= folded;
        byte_ok <= left != 0;
        if (left != 0) begin
            rd_pos <= rd_pos - 1'b1;
            left <= left - 1'b1;
        end
    end
endtask

// the lookups of a boundary after the label just walked: its suffix, and
// its label entries when labels follow (labels_done >= 1, >= 2)
task boundary;
    begin
        look_key0 <= ~crc_suffix;
        look_score0 <= {labels_done + 6'd1, 1'b0};
        look_key1 <= ~crc_label;
        look_score1 <= {6'd1, 1'b1};
        look_key2 <= ~crc_pair;
        look_score2 <= {6'd2, 1'b1};
        look_n <= labels_done >= 6'd2 ? 2'd3 : labels_done >= 6'd1 ? 2'd2
                                             : 2'd1;
    end
endtask

// lookup pipeline: issue (rd_*) -> two cycles in the RAM (p1_*, p2_*)
// -> compare the ways' tags (cmp_*) -> the best so far
reg                  rd_valid = 1'b0, p1_valid = 1'b0, p2_valid = 1'b0,
                     cmp_valid = 1'b0;
reg [TAG_BITS-1:0]   rd_tag = {TAG_BITS{1'b0}}, p1_tag = {TAG_BITS{1'b0}},
                     p2_tag = {TAG_BITS{1'b0}};
reg [6:0]            rd_score = 7'd0, p1_score = 7'd0, p2_score = 7'd0,
                     cmp_score = 7'd0;
reg [3:0]            cmp_hit = 4'd0;
reg [23:0]           cmp_apps = 24'd0;  // the four ways' applications
reg [5:0]            best = 6'd0;
reg [6:0]            best_score = 7'd0;
reg [2:0]            drain = 3'd0;
// a word's bits above the application (30:TAG_BITS+6) are reserved, 0
/* verilator lint_off UNUSEDSIGNAL */
wire [31:0]          rd_w0 = rd_words[0 +: 32], rd_w1 = rd_words[32 +: 32],
                     rd_w2 = rd_words[64 +: 32], rd_w3 = rd_words[96 +: 32];
/* verilator lint_on UNUSEDSIGNAL */

wire [5:0] cmp_app =
    cmp_hit[0] ? cmp_apps[0 +: 6] :
    cmp_hit[1] ? cmp_apps[6 +: 6] :
    cmp_hit[2] ? cmp_apps[12 +: 6] :
    cmp_hit[3] ? cmp_apps[18 +: 6] : 6'd0;


always @(posedge clk) begin
    app_valid <= 1'b0;
    rd_valid <= 1'b0;

    // the RAM's two cycles, compare, best
    p1_valid <= rd_valid;
    p1_tag <= rd_tag;
    p1_score <= rd_score;
    p2_valid <= p1_valid;
    p2_tag <= p1_tag;
    p2_score <= p1_score;
    cmp_valid <= p2_valid;
    cmp_score <= p2_score;
    cmp_hit <= {rd_w3[31] && rd_w3[TAG_BITS-1:0] == p2_tag,
                rd_w2[31] && rd_w2[TAG_BITS-1:0] == p2_tag,
                rd_w1[31] && rd_w1[TAG_BITS-1:0] == p2_tag,
                rd_w0[31] && rd_w0[TAG_BITS-1:0] == p2_tag};
    cmp_apps <= {rd_w3[TAG_BITS +: 6], rd_w2[TAG_BITS +: 6],
                 rd_w1[TAG_BITS +: 6], rd_w0[TAG_BITS +: 6]};
    if (cmp_valid && cmp_app != 6'd0 && cmp_score >= best_score) begin
        best <= cmp_app;
        best_score <= cmp_score;
    end

    case (state)
    S_TAKE: begin
        if (name_valid && !clear) begin
            name_buf[wr_pos] <= taken;
            last_dot <= taken_dot;
            wr_pos <= wr_pos + 1'b1;
            if (kept == FULL) begin
                cut <= 1'b1;
                dropped_dot <= dot_at[wr_pos];
            end else begin
                kept <= kept + 1'b1;
            end
            if (name_last)
                state <= S_START;
        end
    end
    S_START: begin
        // walk from the last byte; a final dot is dropped
        rd_pos <= wr_pos - 1'b1;
        left <= kept;
        crc_suffix <= CRC_INIT;
        crc_label <= CRC_DOT;
        crc_pair <= CRC_DOT;
        label_seen <= 1'b0;
        labels_done <= 6'd0;
        invalid <= kept == 0;
        at_start <= 1'b0;
        best <= 6'd0;
        best_score <= 7'd0;
        look_n <= 2'd0;
        if (kept != 0 && last_dot) begin
            rd_pos <= wr_pos - {{(POS_BITS-2){1'b0}}, 2'd2};
            left <= kept - 1'b1;
        end
        state <= S_FETCH;
    end
    S_FETCH: begin
        fetch;
        state <= S_WALK;
    end
    S_WALK: begin
        if (invalid) begin
            drain <= 3'd5;
            state <= S_DRAIN;
        end else if (!byte_ok) begin
            // the start of the kept bytes: a boundary unless a label is cut
            at_start <= 1'b1;
            if (!label_seen && !(cut && !dropped_dot)) begin
                invalid <= 1'b1;
            end else if (!cut || dropped_dot) begin
                boundary;
                state <= S_LOOK;
            end else begin
                drain <= 3'd5;
                state <= S_DRAIN;
            end
        end else if (byte_q == DOT) begin
            if (!label_seen) begin
                invalid <= 1'b1;
            end else begin
                boundary;
                state <= S_LOOK;
            end
        end else begin
            crc_suffix <= crc_byte(crc_suffix, byte_q);
            crc_label <= crc_byte(crc_label, byte_q);
            crc_pair <= crc_byte(crc_pair, byte_q);
            label_seen <= 1'b1;
            fetch;
        end
    end
    S_LOOK: begin
        if (look_n != 2'd0) begin
            rd_valid <= 1'b1;
            rd_index <= look_key0[INDEX_BITS-1:0];
            rd_tag <= look_key0[31:INDEX_BITS];
            rd_score <= look_score0;
            look_key0 <= look_key1;
            look_score0 <= look_score1;
            look_key1 <= look_key2;
            look_score1 <= look_score2;
            look_n <= look_n - 1'b1;
        end else if (at_start) begin
            drain <= 3'd5;
            state <= S_DRAIN;
        end else begin
            // past the dot: the suffix takes it, the pair restarts from
            // the label, the label restarts
            crc_suffix <= crc_byte(crc_suffix, DOT);
            crc_pair <= crc_byte(crc_label, DOT);
            crc_label <= CRC_DOT;
            label_seen <= 1'b0;
            labels_done <= labels_done + 1'b1;
            fetch;
            state <= S_WALK;
        end
    end
    S_DRAIN: begin
        // the last lookups leave the pipeline
        drain <= drain - 1'b1;
        if (drain == 3'd0) begin
            app_valid <= 1'b1;
            app <= invalid ? 6'd0 : best;
            kept <= {(POS_BITS+1){1'b0}};
            wr_pos <= {POS_BITS{1'b0}};
            cut <= 1'b0;
            dropped_dot <= 1'b0;
            state <= S_TAKE;
        end
    end
    default: state <= S_TAKE;
    endcase

    if (rst) begin
        state <= S_TAKE;
        kept <= {(POS_BITS+1){1'b0}};
        wr_pos <= {POS_BITS{1'b0}};
        cut <= 1'b0;
        dropped_dot <= 1'b0;
        rd_valid <= 1'b0;
        p1_valid <= 1'b0;
        p2_valid <= 1'b0;
        cmp_valid <= 1'b0;
        app_valid <= 1'b0;
        look_n <= 2'd0;
    end
end

endmodule

`resetall
