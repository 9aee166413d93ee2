# Reconfigurable region rp1 of the nova-fpga reference shell (xc7z020, PYNQ-Z2 class).
#
# rp0 is the real Vivado design's pblock_pr_0 (SLICE_X6Y16:SLICE_X27Y33, in
# clock region X0Y0): enough for the loopback, not for the vTC.  rp1 is where
# the vTC (parser, 4096-flow hashed table, signatures, counters) lives: the
# whole of clock region X1Y1, which on the xc7z020 spans slice columns
# X50..X113 and rows Y50..Y99, BRAM columns X3..X5 and DSP columns X3..X4.
# That is 3,200 slices (12,800 LUTs), 30 RAMB36 and 40 DSP48, and shares no
# site with pr_0.  nova_fpga.hdl.resources reads the budget from this file.
create_pblock pblock_rp1
add_cells_to_pblock [get_pblocks pblock_rp1] [get_cells -quiet [list shell_i/rp1]]
resize_pblock [get_pblocks pblock_rp1] -add {SLICE_X50Y50:SLICE_X113Y99}
resize_pblock [get_pblocks pblock_rp1] -add {DSP48_X3Y20:DSP48_X4Y39}
resize_pblock [get_pblocks pblock_rp1] -add {RAMB18_X3Y20:RAMB18_X5Y39}
resize_pblock [get_pblocks pblock_rp1] -add {RAMB36_X3Y10:RAMB36_X5Y19}
set_property RESET_AFTER_RECONFIG true [get_pblocks pblock_rp1]
set_property SNAPPING_MODE ON [get_pblocks pblock_rp1]
