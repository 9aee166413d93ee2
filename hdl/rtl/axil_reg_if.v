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
 * AXI4-Lite slave to a simple register port.
 *
 * Turns AXI4-Lite transactions into single-cycle register strobes so a
 * module's register file is a plain case statement.  One write and one
 * read are in flight at a time; a write is taken when both its address
 * and its data are valid, registered, and strobed a cycle later (the
 * AXI-Lite inputs' decode then starts from a register, not from wherever the
 * interconnect drives them).  The register file answers in the strobe's
 * cycle: reg_wr_err / reg_rd_err make the response SLVERR instead of OKAY.  With
 * REGISTERED_READ = n > 0, a read's address is registered when the read is
 * taken and its data taken n + 2 cycles later (reg_rd_en), the address held
 * all along: the register file may put n + 1 register stages in its read
 * multiplexer.  With REGISTERED_WRITE = n > 0, reg_wr_err is taken n cycles
 * after the strobe and the write answered then (the address and data held): the
 * register file may decode its error through n register stages.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module axil_reg_if #
(
    parameter ADDR_WIDTH = 12,
    parameter DATA_WIDTH = 32,
    parameter STRB_WIDTH = DATA_WIDTH / 8,
    // n > 0: reads answered n + 2 cycles after they are taken, from a registered address
    parameter REGISTERED_READ = 0,
    // n > 0: writes answered n cycles after the strobe, from a reg_wr_err registered
    // meanwhile (through n register stages)
    parameter REGISTERED_WRITE = 0
)
(
    input  wire                  clk,
    input  wire                  rst,

    input  wire [ADDR_WIDTH-1:0] s_axil_awaddr,
    /* verilator lint_off UNUSEDSIGNAL */ // protection bits carry no meaning for a register file
    input  wire [2:0]            s_axil_awprot,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                  s_axil_awvalid,
    output wire                  s_axil_awready,
    input  wire [DATA_WIDTH-1:0] s_axil_wdata,
    input  wire [STRB_WIDTH-1:0] s_axil_wstrb,
    input  wire                  s_axil_wvalid,
    output wire                  s_axil_wready,
    output wire [1:0]            s_axil_bresp,
    output wire                  s_axil_bvalid,
    input  wire                  s_axil_bready,
    input  wire [ADDR_WIDTH-1:0] s_axil_araddr,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [2:0]            s_axil_arprot,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                  s_axil_arvalid,
    output wire                  s_axil_arready,
    output wire [DATA_WIDTH-1:0] s_axil_rdata,
    output wire [1:0]            s_axil_rresp,
    output wire                  s_axil_rvalid,
    input  wire                  s_axil_rready,

    output wire [ADDR_WIDTH-1:0] reg_wr_addr,
    output wire [DATA_WIDTH-1:0] reg_wr_data,
    output wire [STRB_WIDTH-1:0] reg_wr_strb,
    output wire                  reg_wr_en,
    input  wire                  reg_wr_err,
    output wire [ADDR_WIDTH-1:0] reg_rd_addr,
    output wire                  reg_rd_en,
    input  wire [DATA_WIDTH-1:0] reg_rd_data,
    input  wire                  reg_rd_err
);

localparam [1:0] RESP_OKAY = 2'b00, RESP_SLVERR = 2'b10;

reg                  bvalid_reg = 1'b0;
reg [1:0]            bresp_reg = RESP_OKAY;
reg                  rvalid_reg = 1'b0;
reg [1:0]            rresp_reg = RESP_OKAY;
reg [DATA_WIDTH-1:0] rdata_reg = {DATA_WIDTH{1'b0}};

// a new write is taken only once the previous response has been accepted
reg [ADDR_WIDTH-1:0] read_addr_reg = {ADDR_WIDTH{1'b0}};
// a read taken one, two, ... READ_CYCLES cycles ago
localparam READ_CYCLES = REGISTERED_READ + 2;
reg [READ_CYCLES-1:0] read_pending_reg = {READ_CYCLES{1'b0}};

// the write taken last cycle, strobed now
reg                  write_pending_reg = 1'b0;
// REGISTERED_WRITE = n > 0: the strobe, 1 .. n cycles on (the answer at n)
localparam WRITE_CYCLES = REGISTERED_WRITE > 0 ? REGISTERED_WRITE : 1;
reg [WRITE_CYCLES-1:0] write_answer_reg = {WRITE_CYCLES{1'b0}};
reg [ADDR_WIDTH-1:0] write_addr_reg = {ADDR_WIDTH{1'b0}};
reg [DATA_WIDTH-1:0] write_data_reg = {DATA_WIDTH{1'b0}};
reg [STRB_WIDTH-1:0] write_strb_reg = {STRB_WIDTH{1'b0}};

wire write_take = s_axil_awvalid && s_axil_wvalid && !bvalid_reg && !write_pending_reg
    && !(REGISTERED_WRITE != 0 && |write_answer_reg);
wire write_answer = REGISTERED_WRITE != 0 ? write_answer_reg[WRITE_CYCLES-1] : write_pending_reg;
wire read_take = s_axil_arvalid && !rvalid_reg && read_pending_reg == {READ_CYCLES{1'b0}};
wire read_answer = REGISTERED_READ != 0 ? read_pending_reg[READ_CYCLES-1] : read_take;

assign s_axil_awready = write_take;
assign s_axil_wready = write_take;
assign s_axil_bresp = bresp_reg;
assign s_axil_bvalid = bvalid_reg;
assign s_axil_arready = read_take;
assign s_axil_rdata = rdata_reg;
assign s_axil_rresp = rresp_reg;
assign s_axil_rvalid = rvalid_reg;

assign reg_wr_addr = write_addr_reg;
assign reg_wr_data = write_data_reg;
assign reg_wr_strb = write_strb_reg;
assign reg_wr_en = write_pending_reg;
assign reg_rd_addr = REGISTERED_READ != 0 ? read_addr_reg : s_axil_araddr;
assign reg_rd_en = read_answer;

integer w;

always @(posedge clk) begin
    if (bvalid_reg && s_axil_bready) begin
        bvalid_reg <= 1'b0;
    end
    write_pending_reg <= write_take;
    for (w = WRITE_CYCLES - 1; w > 0; w = w - 1) begin
        write_answer_reg[w] <= write_answer_reg[w-1];
    end
    write_answer_reg[0] <= REGISTERED_WRITE != 0 && write_pending_reg;
    if (write_take) begin
        write_addr_reg <= s_axil_awaddr;
        write_data_reg <= s_axil_wdata;
        write_strb_reg <= s_axil_wstrb;
    end
    if (write_answer) begin
        bvalid_reg <= 1'b1;
        bresp_reg <= reg_wr_err ? RESP_SLVERR : RESP_OKAY;
    end

    if (rvalid_reg && s_axil_rready) begin
        rvalid_reg <= 1'b0;
    end
    read_pending_reg <= {read_pending_reg[READ_CYCLES-2:0], REGISTERED_READ != 0 && read_take};
    if (read_take) begin
        read_addr_reg <= s_axil_araddr;
    end
    if (read_answer) begin
        rvalid_reg <= 1'b1;
        rresp_reg <= reg_rd_err ? RESP_SLVERR : RESP_OKAY;
        rdata_reg <= reg_rd_err ? {DATA_WIDTH{1'b0}} : reg_rd_data;
    end

    if (rst) begin
        bvalid_reg <= 1'b0;
        write_pending_reg <= 1'b0;
        write_answer_reg <= {WRITE_CYCLES{1'b0}};
        rvalid_reg <= 1'b0;
        read_pending_reg <= {READ_CYCLES{1'b0}};
    end
end

endmodule

`resetall
