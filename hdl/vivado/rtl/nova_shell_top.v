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
 * Board top of the nova-fpga reference shell (PYNQ-Z2, xc7z020clg400-1).
 *
 * Only the PS7's fixed DDR and MIO pins leave the chip; everything else is
 * inside shell_i (nova_shell.v), whose partitions shell_i/rp0 and
 * shell_i/rp1 are the reconfigurable regions the pblocks name.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module nova_shell_top
(
    inout  wire [14:0]   DDR_addr,
    inout  wire [2:0]    DDR_ba,
    inout  wire          DDR_cas_n,
    inout  wire          DDR_ck_n,
    inout  wire          DDR_ck_p,
    inout  wire          DDR_cke,
    inout  wire          DDR_cs_n,
    inout  wire [3:0]    DDR_dm,
    inout  wire [31:0]   DDR_dq,
    inout  wire [3:0]    DDR_dqs_n,
    inout  wire [3:0]    DDR_dqs_p,
    inout  wire          DDR_odt,
    inout  wire          DDR_ras_n,
    inout  wire          DDR_reset_n,
    inout  wire          DDR_we_n,
    inout  wire          FIXED_IO_ddr_vrn,
    inout  wire          FIXED_IO_ddr_vrp,
    inout  wire [53:0]   FIXED_IO_mio,
    inout  wire          FIXED_IO_ps_clk,
    inout  wire          FIXED_IO_ps_porb,
    inout  wire          FIXED_IO_ps_srstb
);

nova_shell shell_i (
    .DDR_addr(DDR_addr),
    .DDR_ba(DDR_ba),
    .DDR_cas_n(DDR_cas_n),
    .DDR_ck_n(DDR_ck_n),
    .DDR_ck_p(DDR_ck_p),
    .DDR_cke(DDR_cke),
    .DDR_cs_n(DDR_cs_n),
    .DDR_dm(DDR_dm),
    .DDR_dq(DDR_dq),
    .DDR_dqs_n(DDR_dqs_n),
    .DDR_dqs_p(DDR_dqs_p),
    .DDR_odt(DDR_odt),
    .DDR_ras_n(DDR_ras_n),
    .DDR_reset_n(DDR_reset_n),
    .DDR_we_n(DDR_we_n),
    .FIXED_IO_ddr_vrn(FIXED_IO_ddr_vrn),
    .FIXED_IO_ddr_vrp(FIXED_IO_ddr_vrp),
    .FIXED_IO_mio(FIXED_IO_mio),
    .FIXED_IO_ps_clk(FIXED_IO_ps_clk),
    .FIXED_IO_ps_porb(FIXED_IO_ps_porb),
    .FIXED_IO_ps_srstb(FIXED_IO_ps_srstb)
);

endmodule

`resetall
