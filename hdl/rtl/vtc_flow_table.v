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
 * vTC flow table: looks each parsed frame's flow up, inspects, inserts,
 * ages, and decides how the frame leaves.
 *
 * 2**BUCKET_BITS buckets of 4 ways, one vtc_flow_ram per way, read in
 * parallel.  A request reads its bucket in its first cycle and is decided and
 * written back in the second, so the next request of any flow sees it:
 * vtc_parser sends parsed requests at least six cycles apart.  The answer
 * (marking, class) is worked out in the third.
 * Rules (hdl/README.md, hdl/tests/vtc_model.py): a hit inspects the packet
 * if the flow is still unknown and has been inspected fewer than
 * INSPECT_PACKETS times; a miss takes the lowest free way, else the lowest
 * expired way (idle for more than FLOW_TIMEOUT ticks of FLOW_TICK_CYCLES
 * cycles), else fails.  After a reset the table is cleared, one bucket per
 * cycle; until then every parsed frame counts as a failed insertion.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module vtc_flow_table #
(
    parameter BUCKET_BITS = 10,
    parameter INSPECT_PACKETS = 8,
    parameter FLOW_TIMEOUT = 4096,
    parameter FLOW_TICK_CYCLES = 1048576
)
(
    input  wire                   clk,
    input  wire                   rst,

    input  wire                   req_valid,
    input  wire                   req_parsed,
    input  wire [104:0]           req_key,
    input  wire [BUCKET_BITS-1:0] req_bucket,
    input  wire                   req_payload,
    input  wire [3:0]             req_match,
    input  wire                   req_ipv6,
    input  wire [1:0]             req_tags,
    input  wire [7:0]             req_byte0,
    input  wire [7:0]             req_byte1,
    input  wire [15:0]            req_checksum,

    // policy of class c in bits [8c+7:8c]: bit 7 enable, bits 5:0 DSCP
    input  wire [127:0]           policy,

    // how the frame leaves: {rewrite, ipv6, tags[1:0], value_a, value_b, value_c, class[3:0]}
    output reg                    decision_valid,
    output reg  [31:0]            decision,

    output reg                    event_unparsed,
    output reg                    event_seen,
    output reg                    event_classified,
    output wire [3:0]             event_class,  // the class of event_classified's flow
    output reg                    event_inserted,
    output reg                    event_occupied,
    output reg                    event_evicted,
    output reg                    event_failed,

    output wire                   clearing,
    output wire [15:0]            timestamp
);

localparam WAYS = 4;
localparam ENTRY_WIDTH = 130;
localparam TICK_WIDTH = $clog2(FLOW_TICK_CYCLES);
localparam TICK_LAST_CYCLE = FLOW_TICK_CYCLES - 1;
localparam [TICK_WIDTH-1:0] TICK_LAST = TICK_LAST_CYCLE[TICK_WIDTH-1:0];
localparam [15:0] TIMEOUT = FLOW_TIMEOUT[15:0];
localparam [3:0] INSPECT_LIMIT = INSPECT_PACKETS[3:0];

// entry fields
localparam VALID = 129;
localparam KEY_LSB = 24;
localparam CLASS_LSB = 20;
localparam INSPECTED_LSB = 16;

// ---- time ---------------------------------------------------------------

reg [TICK_WIDTH-1:0] tick_reg = {TICK_WIDTH{1'b0}};
reg [15:0]           timestamp_reg = 16'd0;

assign timestamp = timestamp_reg;

always @(posedge clk) begin
    if (tick_reg == TICK_LAST) begin
        tick_reg <= {TICK_WIDTH{1'b0}};
        timestamp_reg <= timestamp_reg + 16'd1;
    end else begin
        tick_reg <= tick_reg + 1'b1;
    end
    if (rst) begin
        tick_reg <= {TICK_WIDTH{1'b0}};
        timestamp_reg <= 16'd0;
    end
end

// ---- clearing after reset -------------------------------------------------

reg                   clearing_reg = 1'b1;
reg [BUCKET_BITS-1:0] clear_index_reg = {BUCKET_BITS{1'b0}};

assign clearing = clearing_reg;

always @(posedge clk) begin
    if (clearing_reg) begin
        clear_index_reg <= clear_index_reg + 1'b1;
        if (&clear_index_reg) begin
            clearing_reg <= 1'b0;
        end
    end
    if (rst) begin
        clearing_reg <= 1'b1;
        clear_index_reg <= {BUCKET_BITS{1'b0}};
    end
end

// ---- stage 1: read the bucket ---------------------------------------------

reg                   s_valid = 1'b0;
reg                   s_parsed = 1'b0;
reg [104:0]           s_key = 105'd0;
reg [BUCKET_BITS-1:0] s_bucket = {BUCKET_BITS{1'b0}};
reg                   s_payload = 1'b0;
reg [3:0]             s_match = 4'd0;
reg                   s_ipv6 = 1'b0;
reg [1:0]             s_tags = 2'd0;
reg [7:0]             s_byte0 = 8'd0;
reg [7:0]             s_byte1 = 8'd0;
reg [15:0]            s_checksum = 16'd0;

always @(posedge clk) begin
    s_valid <= req_valid;
    s_parsed <= req_parsed;
    s_key <= req_key;
    s_bucket <= req_bucket;
    s_payload <= req_payload;
    s_match <= req_match;
    s_ipv6 <= req_ipv6;
    s_tags <= req_tags;
    s_byte0 <= req_byte0;
    s_byte1 <= req_byte1;
    s_checksum <= req_checksum;
    if (rst) begin
        s_valid <= 1'b0;
    end
end

wire [WAYS*ENTRY_WIDTH-1:0] way_data;
reg  [WAYS-1:0]        write_way;
reg  [ENTRY_WIDTH-1:0] write_entry;

genvar w;
generate
    for (w = 0; w < WAYS; w = w + 1) begin : way
        vtc_flow_ram #(
            .WIDTH(ENTRY_WIDTH),
            .ADDR_WIDTH(BUCKET_BITS)
        )
        ram (
            .clk(clk),
            .wr_en(clearing_reg || write_way[w]),
            .wr_addr(clearing_reg ? clear_index_reg : s_bucket),
            .wr_data(clearing_reg ? {ENTRY_WIDTH{1'b0}} : write_entry),
            .rd_addr(req_bucket),
            .rd_data(way_data[ENTRY_WIDTH*w +: ENTRY_WIDTH])
        );
    end
endgenerate

// ---- stage 2: decide, write back, answer ----------------------------------

reg [WAYS-1:0] hit;
reg [WAYS-1:0] free;
reg [WAYS-1:0] expired;
reg [15:0]     age;
integer n;

always @* begin
    for (n = 0; n < WAYS; n = n + 1) begin
        age = timestamp_reg - way_data[ENTRY_WIDTH*n +: 16];
        hit[n] = way_data[ENTRY_WIDTH*n + VALID] && way_data[ENTRY_WIDTH*n + KEY_LSB +: 105] == s_key;
        free[n] = !way_data[ENTRY_WIDTH*n + VALID];
        expired[n] = way_data[ENTRY_WIDTH*n + VALID] && age > TIMEOUT;
    end
end

// the lowest way of a set (3 when none of ways 0..2)
/* verilator lint_off UNUSEDSIGNAL */
function [1:0] lowest(input [WAYS-1:0] set);
    lowest = set[0] ? 2'd0 : set[1] ? 2'd1 : set[2] ? 2'd2 : 2'd3;
endfunction
/* verilator lint_on UNUSEDSIGNAL */

wire [1:0] hit_way = lowest(hit);
wire [3:0] hit_class = way_data[ENTRY_WIDTH*hit_way + CLASS_LSB +: 4];
wire [3:0] hit_inspected = way_data[ENTRY_WIDTH*hit_way + INSPECTED_LSB +: 4];
reg [3:0]             class_before;
reg [3:0]             class_after;
reg [3:0]             inspected;
/* verilator lint_off UNUSEDSIGNAL */ // bit 6 is always 0
reg [7:0]             class_policy;
/* verilator lint_on UNUSEDSIGNAL */
reg [5:0]             dscp;
reg [7:0]             new_tos;
reg [17:0]            checksum_sum;
reg [16:0]            checksum_fold;
reg [15:0]            new_checksum;

always @* begin
    write_way = {WAYS{1'b0}};
    write_entry = {ENTRY_WIDTH{1'b0}};
    class_before = 4'd0;
    class_after = 4'd0;
    inspected = 4'd0;
    event_unparsed = 1'b0;
    event_seen = 1'b0;
    event_classified = 1'b0;
    event_inserted = 1'b0;
    event_occupied = 1'b0;
    event_evicted = 1'b0;
    event_failed = 1'b0;

    if (!s_valid) begin
        // nothing to do
    end else if (!s_parsed) begin
        event_unparsed = 1'b1;
    end else if (clearing_reg) begin
        event_seen = 1'b1;
        event_failed = 1'b1;
    end else if (|hit) begin
        class_before = hit_class;
        class_after = class_before;
        inspected = hit_inspected;
        if (class_before == 4'd0 && s_payload && inspected < INSPECT_LIMIT) begin
            inspected = inspected + 4'd1;
            class_after = s_match;
            event_classified = s_match != 4'd0;
        end
        write_way[hit_way] = 1'b1;
        write_entry = {1'b1, s_key, class_after, inspected, timestamp_reg};
    end else begin
        event_seen = 1'b1;
        if (s_payload && INSPECT_LIMIT != 4'd0) begin
            class_after = s_match;
            inspected = 4'd1;
            event_classified = s_match != 4'd0;
        end
        write_entry = {1'b1, s_key, class_after, inspected, timestamp_reg};
        if (|free) begin
            write_way[lowest(free)] = 1'b1;
            event_inserted = 1'b1;
            event_occupied = 1'b1;
        end else if (|expired) begin
            write_way[lowest(expired)] = 1'b1;
            event_inserted = 1'b1;
            event_evicted = 1'b1;
        end else begin
            class_after = 4'd0;
            event_classified = 1'b0;
            event_failed = 1'b1;
        end
    end
end

assign event_class = class_after;

// ---- stage 3: how the frame leaves ----------------------------------------

reg        d_valid = 1'b0;
reg [3:0]  d_before = 4'd0;
reg [3:0]  d_after = 4'd0;
reg        d_ipv6 = 1'b0;
reg [1:0]  d_tags = 2'd0;
reg [7:0]  d_byte0 = 8'd0;
reg [7:0]  d_byte1 = 8'd0;
reg [15:0] d_checksum = 16'd0;

always @(posedge clk) begin
    d_valid <= s_valid;
    d_before <= class_before;
    d_after <= class_after;
    d_ipv6 <= s_ipv6;
    d_tags <= s_tags;
    d_byte0 <= s_byte0;
    d_byte1 <= s_byte1;
    d_checksum <= s_checksum;
    if (rst) begin
        d_valid <= 1'b0;
    end
end

// DSCP marking by the class the flow had before this frame (RFC 1624 eq. 3 for the checksum)
always @* begin
    class_policy = policy[8*d_before +: 8];
    dscp = class_policy[5:0];
    new_tos = {dscp, d_byte1[1:0]};
    checksum_sum = {2'b00, ~d_checksum} + {2'b00, ~{d_byte0, d_byte1}} + {2'b00, d_byte0, new_tos};
    checksum_fold = {1'b0, checksum_sum[15:0]} + {15'd0, checksum_sum[17:16]};
    new_checksum = ~(checksum_fold[15:0] + {15'd0, checksum_fold[16]});

    decision_valid = d_valid;
    if (d_ipv6) begin
        decision = {d_before != 4'd0 && class_policy[7], 1'b1, d_tags,
                    d_byte0[7:4], dscp[5:2], dscp[1:0], d_byte1[5:0], 8'd0, d_after};
    end else begin
        decision = {d_before != 4'd0 && class_policy[7], 1'b0, d_tags,
                    new_tos, new_checksum, d_after};
    end
end

endmodule

`resetall
