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
 * AXI4-Stream register slice (skid buffer).
 *
 * Registers every output so a region's stream ports start and end at
 * flip-flops (clean timing across the reconfigurable partition boundary)
 * while still moving one beat per cycle under any back-pressure pattern.
 * Same structure as verilog-axis axis_register with REG_TYPE=2.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module axis_register #
(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH / 8
)
(
    input  wire                  clk,
    input  wire                  rst,

    input  wire [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire                  s_axis_tvalid,
    output wire                  s_axis_tready,
    input  wire                  s_axis_tlast,

    output wire [DATA_WIDTH-1:0] m_axis_tdata,
    output wire [KEEP_WIDTH-1:0] m_axis_tkeep,
    output wire                  m_axis_tvalid,
    input  wire                  m_axis_tready,
    output wire                  m_axis_tlast
);

localparam BEAT_WIDTH = DATA_WIDTH + KEEP_WIDTH + 1;

reg                  s_axis_tready_reg = 1'b0;
reg                  m_axis_tvalid_reg = 1'b0, m_axis_tvalid_next;
reg [BEAT_WIDTH-1:0] m_axis_beat_reg = {BEAT_WIDTH{1'b0}};
reg                  temp_tvalid_reg = 1'b0, temp_tvalid_next;
reg [BEAT_WIDTH-1:0] temp_beat_reg = {BEAT_WIDTH{1'b0}};

reg store_input_to_output;
reg store_input_to_temp;
reg store_temp_to_output;

wire [BEAT_WIDTH-1:0] s_axis_beat = {s_axis_tlast, s_axis_tkeep, s_axis_tdata};

// accept a beat next cycle when the output will be free or the temp slot is empty
wire s_axis_tready_early = m_axis_tready || (!temp_tvalid_reg && (!m_axis_tvalid_reg || !s_axis_tvalid));

assign s_axis_tready = s_axis_tready_reg;
assign {m_axis_tlast, m_axis_tkeep, m_axis_tdata} = m_axis_beat_reg;
assign m_axis_tvalid = m_axis_tvalid_reg;

always @* begin
    m_axis_tvalid_next = m_axis_tvalid_reg;
    temp_tvalid_next = temp_tvalid_reg;

    store_input_to_output = 1'b0;
    store_input_to_temp = 1'b0;
    store_temp_to_output = 1'b0;

    if (s_axis_tready_reg) begin
        if (m_axis_tready || !m_axis_tvalid_reg) begin
            m_axis_tvalid_next = s_axis_tvalid;
            store_input_to_output = 1'b1;
        end else begin
            temp_tvalid_next = s_axis_tvalid;
            store_input_to_temp = 1'b1;
        end
    end else if (m_axis_tready) begin
        m_axis_tvalid_next = temp_tvalid_reg;
        temp_tvalid_next = 1'b0;
        store_temp_to_output = 1'b1;
    end
end

always @(posedge clk) begin
    s_axis_tready_reg <= s_axis_tready_early;
    m_axis_tvalid_reg <= m_axis_tvalid_next;
    temp_tvalid_reg <= temp_tvalid_next;

    if (store_input_to_output) begin
        m_axis_beat_reg <= s_axis_beat;
    end else if (store_temp_to_output) begin
        m_axis_beat_reg <= temp_beat_reg;
    end

    if (store_input_to_temp) begin
        temp_beat_reg <= s_axis_beat;
    end

    if (rst) begin
        s_axis_tready_reg <= 1'b0;
        m_axis_tvalid_reg <= 1'b0;
        temp_tvalid_reg <= 1'b0;
    end
end

endmodule

`resetall
