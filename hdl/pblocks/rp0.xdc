# Reconfigurable region rp0 of the nova-fpga reference shell: the real Vivado
# design's pblock_pr_0, so that the real partials pr_0_add.bit / pr_0_sub.bit
# and ours have the same frame footprint.
#
# The site ranges and properties are copied from pr_0.xdc of
# royforu/pynq-partial-reconfig-simple-test-addsub (commit bc6d715, GPL-3.0),
# kept in tests/data/realdata/bitstreams/royforu_pynq_pr/pr_0.xdc; only the
# cell differs (their prio_i/pr_0, our shell_i/rp0).  396 slices, 8 DSP48,
# 4 RAMB36 in clock region X0Y0: the loopback fits, the vTC does not.
create_pblock pblock_pr_0
resize_pblock pblock_pr_0 -add {SLICE_X6Y16:SLICE_X27Y33 DSP48_X0Y8:DSP48_X1Y11 RAMB18_X0Y8:RAMB18_X1Y11 RAMB36_X0Y4:RAMB36_X1Y5}
add_cells_to_pblock pblock_pr_0 [get_cells [list shell_i/rp0]]
set_property RESET_AFTER_RECONFIG 1 [get_pblocks pblock_pr_0]
set_property SNAPPING_MODE ON [get_pblocks pblock_pr_0]
