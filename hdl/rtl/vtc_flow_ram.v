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
 * one read port), the shape block RAM has, read in two cycles: the address
 * is registered, then the data (a block RAM's output register: the data
 * leaves the RAM from a flip-flop, not after the array's slow access time).
 * Powers up empty; region_vtc clears it again after every reset.
 *
 * Vivado puts both registers into the block RAM from this RTL (DOB_REG);
 * yosys 0.23 (synth_ecp5) does not use the ECP5 block RAM's output register,
 * so the timing benchmark (benchmarks/vtc_timing.py) defines VTC_ECP5_EBR and
 * gets the same RAM as DP16KD primitives with REGMODE_B = "OUTREG" (1024 x 18
 * each; ADDR_WIDTH at most 10).  Simulation and every other synthesis use the
 * RTL below.
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
    // the entry at rd_addr two cycles before (a write in the cycle of the read is not seen)
    output wire [WIDTH-1:0]      rd_data
);

`ifdef VTC_ECP5_EBR

localparam SLICES = (WIDTH + 17) / 18;

wire [9:0]            wr_word = {{(10-ADDR_WIDTH){1'b0}}, wr_addr};
wire [9:0]            rd_word = {{(10-ADDR_WIDTH){1'b0}}, rd_addr};
wire [18*SLICES-1:0]  wr_padded = {{(18*SLICES-WIDTH){1'b0}}, wr_data};
wire [18*SLICES-1:0]  rd_padded;

genvar s;
generate
    for (s = 0; s < SLICES; s = s + 1) begin : slice
        wire [17:0] wr_slice = wr_padded[18*s +: 18];
        wire [17:0] rd_slice;

        DP16KD #(
            .DATA_WIDTH_A(18), .DATA_WIDTH_B(18), .REGMODE_A("NOREG"), .REGMODE_B("OUTREG"),
            .RESETMODE("SYNC"), .ASYNC_RESET_RELEASE("SYNC"), .CSDECODE_A("0b000"),
            .CSDECODE_B("0b000"), .WRITEMODE_A("NORMAL"), .WRITEMODE_B("NORMAL"),
            .GSR("DISABLED")
        )
        ram (
            .CLKA(clk), .WEA(wr_en), .CEA(1'b1), .OCEA(1'b1),
            .RSTA(1'b0), .CSA0(1'b0), .CSA1(1'b0), .CSA2(1'b0),
            .ADA0(1'b1), .ADA1(1'b1), .ADA2(1'b0), .ADA3(1'b0),
            .ADA4(wr_word[0]), .ADA5(wr_word[1]), .ADA6(wr_word[2]), .ADA7(wr_word[3]),
            .ADA8(wr_word[4]), .ADA9(wr_word[5]), .ADA10(wr_word[6]), .ADA11(wr_word[7]),
            .ADA12(wr_word[8]), .ADA13(wr_word[9]), .DIA0(wr_slice[0]), .DIA1(wr_slice[1]),
            .DIA2(wr_slice[2]), .DIA3(wr_slice[3]), .DIA4(wr_slice[4]), .DIA5(wr_slice[5]),
            .DIA6(wr_slice[6]), .DIA7(wr_slice[7]), .DIA8(wr_slice[8]), .DIA9(wr_slice[9]),
            .DIA10(wr_slice[10]), .DIA11(wr_slice[11]), .DIA12(wr_slice[12]), .DIA13(wr_slice[13]),
            .DIA14(wr_slice[14]), .DIA15(wr_slice[15]), .DIA16(wr_slice[16]), .DIA17(wr_slice[17]),
            .DIB0(1'b0), .DIB1(1'b0), .DIB2(1'b0), .DIB3(1'b0),
            .DIB4(1'b0), .DIB5(1'b0), .DIB6(1'b0), .DIB7(1'b0),
            .DIB8(1'b0), .DIB9(1'b0), .DIB10(1'b0), .DIB11(1'b0),
            .DIB12(1'b0), .DIB13(1'b0), .DIB14(1'b0), .DIB15(1'b0),
            .DIB16(1'b0), .DIB17(1'b0), .CLKB(clk), .WEB(1'b0),
            .CEB(1'b1), .OCEB(1'b1), .RSTB(1'b0), .CSB0(1'b0),
            .CSB1(1'b0), .CSB2(1'b0), .ADB0(1'b0), .ADB1(1'b0),
            .ADB2(1'b0), .ADB3(1'b0), .ADB4(rd_word[0]), .ADB5(rd_word[1]),
            .ADB6(rd_word[2]), .ADB7(rd_word[3]), .ADB8(rd_word[4]), .ADB9(rd_word[5]),
            .ADB10(rd_word[6]), .ADB11(rd_word[7]), .ADB12(rd_word[8]), .ADB13(rd_word[9]),
            .DOB0(rd_slice[0]), .DOB1(rd_slice[1]), .DOB2(rd_slice[2]), .DOB3(rd_slice[3]),
            .DOB4(rd_slice[4]), .DOB5(rd_slice[5]), .DOB6(rd_slice[6]), .DOB7(rd_slice[7]),
            .DOB8(rd_slice[8]), .DOB9(rd_slice[9]), .DOB10(rd_slice[10]), .DOB11(rd_slice[11]),
            .DOB12(rd_slice[12]), .DOB13(rd_slice[13]), .DOB14(rd_slice[14]), .DOB15(rd_slice[15]),
            .DOB16(rd_slice[16]), .DOB17(rd_slice[17]), .DOA0(), .DOA1(),
            .DOA2(), .DOA3(), .DOA4(), .DOA5(),
            .DOA6(), .DOA7(), .DOA8(), .DOA9(),
            .DOA10(), .DOA11(), .DOA12(), .DOA13(),
            .DOA14(), .DOA15(), .DOA16(), .DOA17()
        );

        assign rd_padded[18*s +: 18] = rd_slice;
    end
endgenerate

assign rd_data = rd_padded[WIDTH-1:0];

`else

reg [WIDTH-1:0] mem [0:(2**ADDR_WIDTH)-1];
// no initial values: block RAM registers have none, and one would put a multiplexer
// between the RAM and whatever reads it
reg [WIDTH-1:0] read_reg;
reg [WIDTH-1:0] data_reg;

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
    read_reg <= mem[rd_addr];
    data_reg <= read_reg;
end

assign rd_data = data_reg;

`endif

endmodule

`resetall
