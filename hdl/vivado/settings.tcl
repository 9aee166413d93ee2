# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

# What the nova-fpga reference shell is built from: the part, the regions and
# the reconfigurable modules.  Sourced by build.tcl and shell_bd.tcl.
#
# The modules (IDs, versions, tops, sources) come from the module catalogue
# (nova_fpga/catalogue) as modules.tcl, which hdl/generate.py writes: Vivado
# has no Python.  Module names, ports and parameters are the Verilog's
# (hdl/rtl).

set nova_here [file dirname [file normalize [info script]]]

# PYNQ-Z2 (TUL): xc7z020clg400-1.  The board part is only used when its board
# files are installed; the PS7 settings in shell_bd.tcl do not depend on it.
set nova_part xc7z020clg400-1
set nova_board_part tul.com.tw:pynq-z2:part0:1.0

set nova_hdl [file normalize [file join $nova_here ..]]
set nova_rtl [file join $nova_hdl rtl]

# Stream and register widths of every region (the module interface, hdl/README.md)
set nova_data_width 64
set nova_axil_addr_width 12

# The static shell's RTL: the board top, the shell with its decouplers, and the
# decoupler itself.  The partition wrappers (rtl/<partition>.v) are read as
# black boxes here.
set nova_static_sources [list \
    [file join $nova_here rtl nova_shell_top.v] \
    [file join $nova_here rtl nova_shell.v] \
    [file join $nova_rtl region_decoupler.v] \
    [file join $nova_rtl axis_frame_fifo.v] \
    [file join $nova_here rtl rp0_partition.v] \
    [file join $nova_here rtl rp1_partition.v]]

# Reconfigurable modules: name -> top, module ID, version, sources, include
# directories (generated from the module catalogue).
source [file join $nova_here modules.tcl]

# Regions: name -> the partition cell, its wrapper module, its pblock XDC and
# the modules built for it (pblocks in hdl/pblocks; partition wrappers generated
# from rtl/partition.v.in).  rp0 is the real design's pr_0 pblock (small: the
# loopback fits, the vTC does not); rp1 is our own, sized for the vTC.
set nova_regions [dict create \
    rp0 [dict create \
        cell shell_i/rp0 \
        partition rp0_partition \
        pblock_xdc [file join $nova_hdl pblocks rp0.xdc] \
        modules {loopback}] \
    rp1 [dict create \
        cell shell_i/rp1 \
        partition rp1_partition \
        pblock_xdc [file join $nova_hdl pblocks rp1.xdc] \
        modules {loopback vtc}]]

# Configurations: each is one full implementation, a module (or "blank", the
# greybox that empties a region) per region.  The first one is the full
# bitstream the board boots; every partial comes from one of them.
set nova_configurations [list \
    [dict create name config_vtc rp0 loopback rp1 vtc] \
    [dict create name config_loopback rp0 loopback rp1 loopback] \
    [dict create name config_blank rp0 blank rp1 blank]]

# The full bitstream carries no module: its UserID says "not declared".
set nova_undeclared_module_id 0xFFFFFFFF

# The shell's clock: FCLK_CLK0 of the PS7 (PYNQ-Z2 default, 100 MHz).
set nova_fclk0_mhz 100
