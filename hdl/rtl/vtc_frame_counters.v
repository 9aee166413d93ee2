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
 * vTC frame counters: 64-bit packets and bytes for each of 2 ** INDEX_WIDTH
 * indices (the vTC's classes: CLASS_PACKETS and CLASS_BYTES; its
 * applications: APP_PACKETS and APP_BYTES), in distributed RAMs updated by
 * read-modify-write.
 *
 * An update (a frame of `bytes` bytes at `index`) is registered, reads its
 * words into registers the cycle after, and writes them the cycle after
 * that, so no cycle holds the RAM read and the adder together.  Updates
 * may come a cycle apart (the shortest unparsed frames): an update that
 * reads the words the update before it is writing takes that update's new
 * values instead, and the RAMs have three addresses (the update's read, its
 * write, the register read).  With SPACED set, updates come three cycles
 * apart or more (parsed frames: six beats or more): the update reads and
 * writes at one registered address, held until the next update, and the
 * RAMs need two (a LUT RAM of 64 words with two addresses takes half the
 * LUTs of one with three).  CLEAR_COUNTERS marks every index stale in one
 * cycle: a stale index reads 0 and its next update starts from 0 (an update
 * being written as the clear comes counted before it, and is cleared; one
 * being read, after it).
 *
 * The stale flags are cleared through a one-hot of the index made as the
 * update is registered, and an update's flag is read then, so that the
 * index register (which addresses every RAM bit) drives nothing else.
 *
 * The register read: `rd_index` (held for the read) reads the packets or,
 * with `rd_bytes`, the bytes, and the index's stale flag apart,
 * combinationally; the reader registers both and clears the word after (a
 * stale word reads 0).  The flag comes through a register: `rd_group`, the
 * index's high bits a cycle before (the same held index, from the register
 * before `rd_index`'s), picks eight flags into it, and `rd_index` one of the
 * eight (a 64:1 multiplexer is more than one clock of logic and routing).
 * The flag is then a cycle older than the words: a word being written as it
 * is read reads as it was before, or after, its write, never the new word
 * cleared or an old word kept from a clear.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module vtc_frame_counters #
(
    parameter INDEX_WIDTH = 6,
    // updates three cycles apart or more
    parameter SPACED = 0
)
(
    input  wire                   clk,
    input  wire                   rst,
    input  wire                   clear,

    input  wire                   count,
    input  wire [INDEX_WIDTH-1:0] index,
    input  wire [23:0]            bytes,

    input  wire [INDEX_WIDTH-1:0] rd_index,
    input  wire [INDEX_WIDTH-4:0] rd_group,
    input  wire                   rd_bytes,
    output wire [63:0]            rd_data,
    output wire                   rd_stale
);

localparam DEPTH = 2 ** INDEX_WIDTH;

(* ram_style = "distributed" *)
reg [63:0] packets_mem [0:DEPTH-1];
(* ram_style = "distributed" *)
reg [63:0] bytes_mem [0:DEPTH-1];
reg [DEPTH-1:0] stale_reg = {DEPTH{1'b1}};

integer i;

initial begin
    for (i = 0; i < DEPTH; i = i + 1) begin
        packets_mem[i] = 64'd0;
        bytes_mem[i] = 64'd0;
    end
end

reg                   op_reg = 1'b0;
reg [INDEX_WIDTH-1:0] op_index_reg = {INDEX_WIDTH{1'b0}};  // SPACED: held until the next
reg [23:0]            op_bytes_reg = 24'd0;
// the index's stale flag, read as the update is registered (an update writing the index in
// that cycle makes it fresh, a clear stale); its one-hot, which clears the flag as the update
// writes
reg                   op_stale_reg = 1'b1;
reg [DEPTH-1:0]       op_onehot_reg = {DEPTH{1'b0}};
// the update before is writing the words this one reads (compared as they are registered;
// never with SPACED)
reg                   forward_reg = 1'b0;
reg                   old_valid_reg = 1'b0;
reg [INDEX_WIDTH-1:0] old_index_reg = {INDEX_WIDTH{1'b0}};
reg [DEPTH-1:0]       old_onehot_reg = {DEPTH{1'b0}};
reg [23:0]            old_add_reg = 24'd0;
reg [63:0]            old_packets_reg = 64'd0;
reg [63:0]            old_bytes_reg = 64'd0;

wire [INDEX_WIDTH-1:0] write_index = SPACED ? op_index_reg : old_index_reg;
wire [63:0]            new_packets = old_packets_reg + 64'd1;
wire [63:0]            new_bytes = old_bytes_reg + {40'd0, old_add_reg};

always @(posedge clk) begin
    op_reg <= count;
    if (count || SPACED == 0) begin
        op_index_reg <= index;
        op_bytes_reg <= bytes;
    end
    op_stale_reg <= clear || (stale_reg[index] && !(old_valid_reg && write_index == index));
    op_onehot_reg <= count ? {{(DEPTH-1){1'b0}}, 1'b1} << index : {DEPTH{1'b0}};
    forward_reg <= SPACED == 0 && op_reg && op_index_reg == index;
    old_valid_reg <= op_reg;
    old_index_reg <= op_index_reg;
    old_onehot_reg <= op_onehot_reg;
    old_add_reg <= op_bytes_reg;
    if (forward_reg) begin
        old_packets_reg <= new_packets;
        old_bytes_reg <= new_bytes;
    end else begin
        old_packets_reg <= op_stale_reg ? 64'd0 : packets_mem[op_index_reg];
        old_bytes_reg <= op_stale_reg ? 64'd0 : bytes_mem[op_index_reg];
    end
    if (old_valid_reg) begin
        packets_mem[write_index] <= new_packets;
        bytes_mem[write_index] <= new_bytes;
    end
    stale_reg <= stale_reg & ~old_onehot_reg;
    if (clear) begin
        old_packets_reg <= 64'd0;
        old_bytes_reg <= 64'd0;
        stale_reg <= {DEPTH{1'b1}};
    end
    if (rst) begin
        op_reg <= 1'b0;
        op_onehot_reg <= {DEPTH{1'b0}};
        forward_reg <= 1'b0;
        old_valid_reg <= 1'b0;
        old_onehot_reg <= {DEPTH{1'b0}};
        stale_reg <= {DEPTH{1'b1}};
    end
end

// the eight stale flags of the index's group, a cycle before the words are read
reg [7:0] rd_group_stale_reg = 8'hFF;

always @(posedge clk) begin
    rd_group_stale_reg <= stale_reg[8*rd_group +: 8];
end

// the reader registers the word and the flag apart, and clears the word after
assign rd_data = rd_bytes ? bytes_mem[rd_index] : packets_mem[rd_index];
assign rd_stale = rd_group_stale_reg[rd_index[2:0]];

endmodule

`resetall
