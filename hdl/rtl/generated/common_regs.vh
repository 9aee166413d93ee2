// Generated from nova_fpga/catalogue/common.toml by hdl/generate.py: do not edit.
// The common register block: register offsets (bytes) and field bit positions, included
// inside the module (the offsets are AXIL_ADDR_WIDTH bits wide).
/* verilator lint_off UNUSEDPARAM */
localparam [AXIL_ADDR_WIDTH-1:0]
    REG_MODULE_ID = 'h000,
    REG_VERSION   = 'h004,
    REG_CONTROL   = 'h008,
    REG_STATUS    = 'h00C,
    REG_FRAMES_LO = 'h010,
    REG_FRAMES_HI = 'h014,
    REG_BYTES_LO  = 'h018,
    REG_BYTES_HI  = 'h01C,
    REG_USER      = 'h020;
localparam CONTROL_CLEAR_COUNTERS = 0;
localparam STATUS_IN_FRAME = 0;
localparam STATUS_OUT_FRAME = 1;
/* verilator lint_on UNUSEDPARAM */
