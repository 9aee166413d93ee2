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
 * The vTC's application names: a frame's host name read (vtc_name_extract)
 * and matched against the application table (vtc_name_match); the
 * application comes out with the frame's tag (doc/source/contributor/vtc.rst,
 * "Applications"; bit-exact model: hdl/tests/vtc_names.py, Table.lookup of
 * frame_name).
 *
 * Frames in as the module sees them; one command per frame, in frame
 * order, a cycle or more after its first beat (vtc_name_extract); the
 * table written a word a cycle (vtc_name_match; a reset empties it,
 * `clearing` meanwhile).  res_valid pulses once for each command that
 * reads, with its tag: res_named when the frame carries a name, res_app
 * the application the table gives it (0: none, 63: another application's
 * name); `skipped` pulses instead (with the tag) for a frame that found every slot
 * taken.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module vtc_names #
(
    // AXI4-Stream data width in bits (a multiple of 8, at most 64)
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    // bytes of a frame a name is read from (the model's NAME_WINDOW)
    parameter WINDOW_BYTES = 1024,
    // frames kept at once
    parameter SLOTS = 4,
    // frames whose command has not come, at most
    parameter FRAMES = 64,
    parameter TAG_WIDTH = 16,
    // bytes of a name matched, from its end (the model's NAME_BYTES)
    parameter NAME_BYTES = 64,
    // buckets of the table, four words each (the model's TABLE_BUCKETS)
    parameter TABLE_BUCKETS = 1024
)
(
    input  wire                             clk,
    input  wire                             rst,

    input  wire [DATA_WIDTH-1:0]            in_tdata,
    input  wire [KEEP_WIDTH-1:0]            in_tkeep,
    input  wire                             in_tlast,
    input  wire                             in_beat,

    input  wire                             cmd_valid,
    input  wire [1:0]                       cmd_kind,
    input  wire [15:0]                      cmd_start,
    input  wire [15:0]                      cmd_end,
    input  wire                             cmd_tcp,
    input  wire [TAG_WIDTH-1:0]             cmd_tag,
    output wire                             skipped,
    output wire [TAG_WIDTH-1:0]             skipped_tag,

    input  wire                             tbl_wr_en,
    input  wire [$clog2(TABLE_BUCKETS)+1:0] tbl_wr_addr,
    input  wire [31:0]                      tbl_wr_data,
    output wire                             clearing,

    output wire                             res_valid,
    output wire [TAG_WIDTH-1:0]             res_tag,
    output wire                             res_named,
    output wire [5:0]                       res_app
);

wire [7:0] name_byte;
wire       name_valid;
wire       name_last;
wire       name_ready;
wire       app_valid;
wire [5:0] app;

vtc_name_extract #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .WINDOW_BYTES(WINDOW_BYTES),
    .SLOTS(SLOTS),
    .FRAMES(FRAMES),
    .TAG_WIDTH(TAG_WIDTH)
)
extract (
    .clk(clk),
    .rst(rst),
    .in_tdata(in_tdata),
    .in_tkeep(in_tkeep),
    .in_tlast(in_tlast),
    .in_beat(in_beat),
    .cmd_valid(cmd_valid),
    .cmd_kind(cmd_kind),
    .cmd_start(cmd_start),
    .cmd_end(cmd_end),
    .cmd_tcp(cmd_tcp),
    .cmd_tag(cmd_tag),
    .skipped(skipped),
    .skipped_tag(skipped_tag),
    .name_byte(name_byte),
    .name_valid(name_valid),
    .name_last(name_last),
    .name_ready(name_ready),
    .app_valid(app_valid),
    .app(app),
    .res_valid(res_valid),
    .res_tag(res_tag),
    .res_named(res_named),
    .res_app(res_app)
);

vtc_name_match #(
    .NAME_BYTES(NAME_BYTES),
    .TABLE_BUCKETS(TABLE_BUCKETS)
)
match (
    .clk(clk),
    .rst(rst),
    .tbl_wr_en(tbl_wr_en),
    .tbl_wr_addr(tbl_wr_addr),
    .tbl_wr_data(tbl_wr_data),
    .name_byte(name_byte),
    .name_valid(name_valid),
    .name_last(name_last),
    .name_ready(name_ready),
    .clearing(clearing),
    .app_valid(app_valid),
    .app(app)
);

endmodule

`resetall
