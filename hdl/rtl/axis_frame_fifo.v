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
 * AXI4-Stream store-and-forward frame FIFO.
 *
 * A frame becomes visible at the output only once its last beat has been
 * written, so the output never carries part of a frame.  The frame being
 * written can be thrown away with drop_frame (the decoupler uses this when
 * a region is cut off mid-frame), and a frame longer than the whole FIFO is
 * accepted and discarded rather than stalling the input forever.
 * Reads and writes move one beat per cycle each.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module axis_frame_fifo #
(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    // capacity in beats (a power of two); the longest frame it can pass
    parameter DEPTH = 512
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
    output wire                  m_axis_tlast,

    // discard the frame being written (takes priority over a beat in the same cycle)
    input  wire                  drop_frame,
    // a frame was discarded because it did not fit (one-cycle pulse on its last beat)
    output wire                  oversize_frame
);

localparam ADDR_WIDTH = $clog2(DEPTH);
localparam BEAT_WIDTH = DATA_WIDTH + KEEP_WIDTH + 1;

reg [BEAT_WIDTH-1:0] mem[(2**ADDR_WIDTH)-1:0];

// pointers carry one extra bit to tell full from empty
reg [ADDR_WIDTH:0] wr_ptr_reg = {ADDR_WIDTH+1{1'b0}};
reg [ADDR_WIDTH:0] wr_ptr_commit_reg = {ADDR_WIDTH+1{1'b0}};
reg [ADDR_WIDTH:0] rd_ptr_reg = {ADDR_WIDTH+1{1'b0}};
reg                discard_reg = 1'b0;
reg                oversize_reg = 1'b0;

reg                  out_valid_reg = 1'b0;
reg [BEAT_WIDTH-1:0] out_beat_reg = {BEAT_WIDTH{1'b0}};

wire full = (wr_ptr_reg - rd_ptr_reg) == DEPTH[ADDR_WIDTH:0];
wire frame_fills_fifo = (wr_ptr_reg - wr_ptr_commit_reg) == DEPTH[ADDR_WIDTH:0];
wire empty = rd_ptr_reg == wr_ptr_commit_reg;

// a frame that alone fills the FIFO can never be committed: swallow the rest of it
wire discarding = discard_reg || frame_fills_fifo;

assign s_axis_tready = (!full || discarding) && !drop_frame;
assign {m_axis_tlast, m_axis_tkeep, m_axis_tdata} = out_beat_reg;
assign m_axis_tvalid = out_valid_reg;
assign oversize_frame = oversize_reg;

wire in_beat = s_axis_tvalid && s_axis_tready;
wire out_load = !empty && (!out_valid_reg || m_axis_tready);

always @(posedge clk) begin
    oversize_reg <= 1'b0;

    if (drop_frame) begin
        wr_ptr_reg <= wr_ptr_commit_reg;
        discard_reg <= 1'b0;
    end else if (in_beat) begin
        if (discarding) begin
            wr_ptr_reg <= wr_ptr_commit_reg;
            discard_reg <= !s_axis_tlast;
            oversize_reg <= s_axis_tlast;
        end else begin
            mem[wr_ptr_reg[ADDR_WIDTH-1:0]] <= {s_axis_tlast, s_axis_tkeep, s_axis_tdata};
            wr_ptr_reg <= wr_ptr_reg + 1'b1;
            if (s_axis_tlast) begin
                wr_ptr_commit_reg <= wr_ptr_reg + 1'b1;
            end
        end
    end

    if (out_load) begin
        out_beat_reg <= mem[rd_ptr_reg[ADDR_WIDTH-1:0]];
        rd_ptr_reg <= rd_ptr_reg + 1'b1;
        out_valid_reg <= 1'b1;
    end else if (m_axis_tready) begin
        out_valid_reg <= 1'b0;
    end

    if (rst) begin
        wr_ptr_reg <= {ADDR_WIDTH+1{1'b0}};
        wr_ptr_commit_reg <= {ADDR_WIDTH+1{1'b0}};
        rd_ptr_reg <= {ADDR_WIDTH+1{1'b0}};
        discard_reg <= 1'b0;
        oversize_reg <= 1'b0;
        out_valid_reg <= 1'b0;
    end
end

endmodule

`resetall
