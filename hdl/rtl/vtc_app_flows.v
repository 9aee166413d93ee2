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
 * vTC flows by application: APP_FLOWS[a], flows named as application a, for
 * every application number 0..63, in a distributed RAM (64 words: a LUT's
 * depth; no block RAM is left in rp1) updated by read-modify-write.  (The
 * frames by application are vtc_frame_counters'.)
 *
 * An update comes for each name the matcher found (one walk each, five
 * cycles or more apart): its application is registered (held until the next
 * update), its word read into a register the cycle after and written the
 * cycle after that, at the same registered address (the RAM's write port
 * and its update read share one address), so no cycle holds the RAM read
 * and the adder together.  CLEAR_COUNTERS marks every word stale in one
 * cycle: a stale word reads 0 and its next update starts from 0 (an update
 * being written as the clear comes counted before it, and is cleared; one
 * being read, after it).
 *
 * The register read: `rd_addr` (held for the read) reads a word, at the
 * RAM's second address, and its stale flag apart, combinationally; the
 * reader registers both and clears the word after (a stale word reads 0).
 * The flag comes through a register: `rd_group`, the address's high bits a
 * cycle before (the same held address, from the register before
 * `rd_addr`'s), picks eight flags into it, and `rd_addr` one of the eight
 * (a 64:1 multiplexer is more than one clock of logic and routing).  The
 * flag is then a cycle older than the word: a word being written as it is
 * read reads as it was before, or after, its write, never the new word
 * cleared or an old word kept from a clear.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module vtc_app_flows
(
    input  wire        clk,
    input  wire        rst,
    input  wire        clear,

    // a flow named as application `named_app`
    input  wire        named,
    input  wire [5:0]  named_app,

    input  wire [5:0]  rd_addr,
    input  wire [2:0]  rd_group,
    output wire [31:0] rd_data,
    output wire        rd_stale
);

(* ram_style = "distributed" *)
reg [31:0] flows_mem [0:63];
reg [63:0] stale_reg = {64{1'b1}};

integer i;

initial begin
    for (i = 0; i < 64; i = i + 1) begin
        flows_mem[i] = 32'd0;
    end
end

reg        op_reg = 1'b0;
reg [5:0]  addr_reg = 6'd0;       // held until the next update (five cycles or more)
// the word's stale flag read as the update is registered, its one-hot (which clears it as
// the update writes): the address register drives the RAM only
reg        op_stale_reg = 1'b1;
reg [63:0] op_onehot_reg = 64'd0;
reg        write_reg = 1'b0;
reg [63:0] write_onehot_reg = 64'd0;
reg [31:0] old_reg = 32'd0;

always @(posedge clk) begin
    op_reg <= named;
    if (named) begin
        addr_reg <= named_app;
    end
    op_stale_reg <= clear || stale_reg[named_app];
    op_onehot_reg <= named ? 64'd1 << named_app : 64'd0;
    write_reg <= op_reg;
    write_onehot_reg <= op_onehot_reg;
    old_reg <= op_stale_reg ? 32'd0 : flows_mem[addr_reg];
    if (write_reg) begin
        flows_mem[addr_reg] <= old_reg + 32'd1;
    end
    stale_reg <= stale_reg & ~write_onehot_reg;
    if (clear) begin
        old_reg <= 32'd0;
        stale_reg <= {64{1'b1}};
    end
    if (rst) begin
        op_reg <= 1'b0;
        op_onehot_reg <= 64'd0;
        write_reg <= 1'b0;
        write_onehot_reg <= 64'd0;
        stale_reg <= {64{1'b1}};
    end
end

// the eight stale flags of the address's group, a cycle before the word is read
reg [7:0]  rd_group_stale_reg = 8'hFF;

always @(posedge clk) begin
    rd_group_stale_reg <= stale_reg[8*rd_group +: 8];
end

// the reader registers the word and the flag apart, and clears the word after
assign rd_data = flows_mem[rd_addr];
assign rd_stale = rd_group_stale_reg[rd_addr[2:0]];

endmodule

`resetall
