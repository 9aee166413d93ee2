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
 * vTC per-class flow counters: CLASS_FLOWS[c] (flows classified as c) at
 * address c, CLASS_GUESSES[c] (flows guessed as c by their port) at 16 + c,
 * in one small distributed RAM updated by read-modify-write, one update per
 * cycle.  The flow table's events of one request take up to three updates,
 * in three different cycles: a classified or refined flow's new class + 1
 * (the cycle the events come), a refined flow's old class - 1 (the cycle
 * after), a guess + 1 (the cycle after that); requests are at least 6 cycles
 * apart, so the updates never meet.  Each update is registered, then reads
 * its word into a register, then writes it (so no cycle holds the RAM read
 * and the adder together); the three words of one request differ.  CLEAR_COUNTERS marks every word stale in one
 * cycle: a stale word reads 0 and its next update starts from 0 (so a
 * refined flow's old class after a clear wraps to 0xFFFFFFFF, as the
 * model's 32-bit counters do).
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module vtc_class_counters
(
    input  wire        clk,
    input  wire        rst,
    input  wire        clear,

    // a flow got class `klass`: by DPI (classified) or by refinement from `from`
    input  wire        classified,
    input  wire        refined,
    input  wire [3:0]  klass,
    input  wire [3:0]  from,
    // a flow was guessed as `guess_class`
    input  wire        guess_valid,
    input  wire [3:0]  guess_class,

    // the register read: CLASS_FLOWS[c] at c, CLASS_GUESSES[c] at 16 + c; a stale word
    // (rd_stale) reads 0: the reader registers the flag and the word apart and clears the
    // word after (a stale flag's choice of 32 and the clear of 32 bits is too long a path
    // before one register)
    input  wire [4:0]  rd_addr,
    output wire [31:0] rd_data,
    output wire        rd_stale
);

reg [31:0] mem [0:31];
reg [31:0] stale_reg = 32'hFFFFFFFF;

integer i;

initial begin
    for (i = 0; i < 32; i = i + 1) begin
        mem[i] = 32'd0;
    end
end

// the refined flow's old class, a cycle later; the guess, two cycles later
reg       dec_reg = 1'b0;
reg [3:0] dec_class_reg = 4'd0;
reg [1:0] guess_reg = 2'd0;
reg [7:0] guess_class_reg = 8'd0;

always @(posedge clk) begin
    dec_reg <= refined;
    dec_class_reg <= from;
    guess_reg <= {guess_reg[0], guess_valid};
    guess_class_reg <= {guess_class_reg[3:0], guess_class};
    if (rst) begin
        dec_reg <= 1'b0;
        guess_reg <= 2'd0;
    end
end

// an update in three registered steps: which word and how (op_), its old value read (old_),
// the new value written.  The updates of one request go to three different words, those of
// two requests are 6 or more cycles apart: no update reads a word an earlier one has yet to
// write.
reg        op_reg = 1'b0;
reg [4:0]  op_addr_reg = 5'd0;
reg        op_down_reg = 1'b0;       // - 1 (a refined flow's old class), else + 1
reg        old_valid_reg = 1'b0;
reg [4:0]  old_addr_reg = 5'd0;
reg [31:0] old_word_reg = 32'd0;     // the same, one-hot, 0 when no update
reg        old_down_reg = 1'b0;
reg [31:0] old_reg = 32'd0;
reg        cleared_reg = 1'b0;       // a clear came as the old value was read

always @(posedge clk) begin
    op_reg <= classified || refined || dec_reg || guess_reg[1];
    op_addr_reg <= classified || refined ? {1'b0, klass}
        : (dec_reg ? {1'b0, dec_class_reg} : {1'b1, guess_class_reg[7:4]});
    op_down_reg <= !(classified || refined) && dec_reg;
    old_valid_reg <= op_reg;
    old_addr_reg <= op_addr_reg;
    old_word_reg <= op_reg ? 32'd1 << op_addr_reg : 32'd0;
    old_down_reg <= op_down_reg;
    old_reg <= stale_reg[op_addr_reg] ? 32'd0 : mem[op_addr_reg];
    cleared_reg <= clear;
    if (rst) begin
        op_reg <= 1'b0;
        old_valid_reg <= 1'b0;
        old_word_reg <= 32'd0;
    end
end

wire [31:0] new_value = (cleared_reg ? 32'd0 : old_reg)
    + (old_down_reg ? 32'hFFFFFFFF : 32'd1);

always @(posedge clk) begin
    if (old_valid_reg) begin
        mem[old_addr_reg] <= new_value;
    end
end

always @(posedge clk) begin
    stale_reg <= stale_reg & ~old_word_reg;
    if (clear || rst) begin
        stale_reg <= 32'hFFFFFFFF;
    end
end

assign rd_data = mem[rd_addr];
assign rd_stale = stale_reg[rd_addr];

endmodule

`resetall
