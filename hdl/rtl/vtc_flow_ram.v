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
 * One way of the vTC flow table: a simple dual-port RAM (one write port,
 * one read port with a registered output), the shape block RAM has.
 * Powers up empty; region_vtc clears it again after every reset.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module vtc_flow_ram #
(
    parameter WIDTH = 130,
    parameter ADDR_WIDTH = 10
)
(
    input  wire                  clk,
    input  wire                  wr_en,
    input  wire [ADDR_WIDTH-1:0] wr_addr,
    input  wire [WIDTH-1:0]      wr_data,
    input  wire [ADDR_WIDTH-1:0] rd_addr,
    // no initial value: block RAM outputs have none, and one would put a
    // multiplexer between the RAM and whatever registers its output
    output reg  [WIDTH-1:0]      rd_data
);

reg [WIDTH-1:0] mem [0:(2**ADDR_WIDTH)-1];

integer i;

initial begin
    for (i = 0; i < 2**ADDR_WIDTH; i = i + 1) begin
        mem[i] = {WIDTH{1'b0}};
    end
end

always @(posedge clk) begin
    if (wr_en) begin
        mem[wr_addr] <= wr_data;
    end
    rd_data <= mem[rd_addr];
end

endmodule

`resetall
