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
 * vTC port guess: the class a flow's ports guess (hdl/README.md, "Guesses";
 * hdl/tests/vtc_model.py, port_guess()), from the module catalogue's
 * [port_guesses] (generated/vtc_classes.vh).  Two registered stages: each
 * entry's transport and port compared with the flow's (either end), then
 * the first entry that matched (the lowest class number); 0 = none.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module vtc_port_guess
(
    input  wire        clk,

    input  wire        tcp,
    input  wire        udp,
    input  wire [15:0] port_a,
    input  wire [15:0] port_b,
    // the guessed class, two cycles after the inputs
    output reg  [3:0]  guess = 4'd0
);

`include "vtc_classes.vh"

integer n;

// ---- stage 1: each entry against the flow ---------------------------------

reg [PORT_GUESSES-1:0] hits;
reg [PORT_GUESSES-1:0] hits_reg = {PORT_GUESSES{1'b0}};

always @* begin
    for (n = 0; n < PORT_GUESSES; n = n + 1) begin
        hits[n] = (PORT_GUESS_TCP[n] ? tcp : udp)
            && (port_a == PORT_GUESS_PORTS[16*n +: 16] || port_b == PORT_GUESS_PORTS[16*n +: 16]);
    end
end

always @(posedge clk) begin
    hits_reg <= hits;
end

// ---- stage 2: the first entry that matched ---------------------------------

reg [3:0] first;

always @* begin
    first = 4'd0;
    for (n = PORT_GUESSES - 1; n >= 0; n = n - 1) begin
        if (hits_reg[n]) begin
            first = PORT_GUESS_CLASSES[4*n +: 4];
        end
    end
end

always @(posedge clk) begin
    guess <= first;
end

endmodule

`resetall
