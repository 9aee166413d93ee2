/*
 * Loopback region module: the "dummy VNFC".
 *
 * Returns every frame unchanged at one beat per cycle (through a register
 * slice, so the region's stream outputs are registered) and counts the
 * frames and bytes it has sent.  Follows the module interface and
 * register map in hdl/README.md.
 */

`resetall
`timescale 1ns / 1ps
`default_nettype none

module region_loopback #
(
    // AXI4-Stream data width in bits (a multiple of 8)
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    // AXI4-Lite address width: the region's register window is 2**AXIL_ADDR_WIDTH bytes
    parameter AXIL_ADDR_WIDTH = 12,
    // register 0: the bitstream's UserID (0xFFFFFFFF = not declared); set from the module registry
    parameter [31:0] MODULE_ID = 32'hFFFFFFFF,
    // register 1: major << 16 | minor; set from the module registry
    parameter [31:0] MODULE_VERSION = 32'h00000000
)
(
    input  wire                       aclk,
    input  wire                       aresetn,

    input  wire [DATA_WIDTH-1:0]      s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]      s_axis_tkeep,
    input  wire                       s_axis_tvalid,
    output wire                       s_axis_tready,
    input  wire                       s_axis_tlast,

    output wire [DATA_WIDTH-1:0]      m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]      m_axis_tkeep,
    output wire                       m_axis_tvalid,
    input  wire                       m_axis_tready,
    output wire                       m_axis_tlast,

    input  wire [AXIL_ADDR_WIDTH-1:0] s_axil_awaddr,
    input  wire [2:0]                 s_axil_awprot,
    input  wire                       s_axil_awvalid,
    output wire                       s_axil_awready,
    input  wire [31:0]                s_axil_wdata,
    input  wire [3:0]                 s_axil_wstrb,
    input  wire                       s_axil_wvalid,
    output wire                       s_axil_wready,
    output wire [1:0]                 s_axil_bresp,
    output wire                       s_axil_bvalid,
    input  wire                       s_axil_bready,
    input  wire [AXIL_ADDR_WIDTH-1:0] s_axil_araddr,
    input  wire [2:0]                 s_axil_arprot,
    input  wire                       s_axil_arvalid,
    output wire                       s_axil_arready,
    output wire [31:0]                s_axil_rdata,
    output wire [1:0]                 s_axil_rresp,
    output wire                       s_axil_rvalid,
    input  wire                       s_axil_rready
);

localparam COUNT_WIDTH = $clog2(KEEP_WIDTH + 1);

// register map (byte offsets), see hdl/README.md
localparam [AXIL_ADDR_WIDTH-1:0]
    REG_MODULE_ID = 'h00,
    REG_VERSION   = 'h04,
    REG_CONTROL   = 'h08,
    REG_STATUS    = 'h0C,
    REG_FRAMES_LO = 'h10,
    REG_FRAMES_HI = 'h14,
    REG_BYTES_LO  = 'h18,
    REG_BYTES_HI  = 'h1C;

localparam CONTROL_CLEAR_COUNTERS = 0;

wire rst = !aresetn;

axis_register #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH)
)
loop_reg (
    .clk(aclk),
    .rst(rst),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast)
);

// counters: frames and bytes sent on m_axis
reg [63:0] frames_reg = 64'd0;
reg [63:0] bytes_reg = 64'd0;
reg [31:0] frames_hi_snapshot_reg = 32'd0;
reg [31:0] bytes_hi_snapshot_reg = 32'd0;
// status: a frame has started on the input / output and not yet ended
reg        in_frame_reg = 1'b0;
reg        out_frame_reg = 1'b0;

wire in_beat = s_axis_tvalid && s_axis_tready;
wire out_beat = m_axis_tvalid && m_axis_tready;

reg [COUNT_WIDTH-1:0] out_beat_bytes;
integer i;

always @* begin
    out_beat_bytes = {COUNT_WIDTH{1'b0}};
    for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
        out_beat_bytes = out_beat_bytes + m_axis_tkeep[i];
    end
end

// register interface (registers are whole words: byte lanes other than 0 carry no control bits)
/* verilator lint_off UNUSEDSIGNAL */
wire [AXIL_ADDR_WIDTH-1:0] reg_wr_addr;
wire [31:0]                reg_wr_data;
wire [3:0]                 reg_wr_strb;
wire [AXIL_ADDR_WIDTH-1:0] reg_rd_addr;
/* verilator lint_on UNUSEDSIGNAL */
wire                       reg_wr_en;
reg                        reg_wr_err;
wire                       reg_rd_en;
reg  [31:0]                reg_rd_data;
reg                        reg_rd_err;

axil_reg_if #(
    .ADDR_WIDTH(AXIL_ADDR_WIDTH),
    .DATA_WIDTH(32)
)
regs (
    .clk(aclk),
    .rst(rst),
    .s_axil_awaddr(s_axil_awaddr),
    .s_axil_awprot(s_axil_awprot),
    .s_axil_awvalid(s_axil_awvalid),
    .s_axil_awready(s_axil_awready),
    .s_axil_wdata(s_axil_wdata),
    .s_axil_wstrb(s_axil_wstrb),
    .s_axil_wvalid(s_axil_wvalid),
    .s_axil_wready(s_axil_wready),
    .s_axil_bresp(s_axil_bresp),
    .s_axil_bvalid(s_axil_bvalid),
    .s_axil_bready(s_axil_bready),
    .s_axil_araddr(s_axil_araddr),
    .s_axil_arprot(s_axil_arprot),
    .s_axil_arvalid(s_axil_arvalid),
    .s_axil_arready(s_axil_arready),
    .s_axil_rdata(s_axil_rdata),
    .s_axil_rresp(s_axil_rresp),
    .s_axil_rvalid(s_axil_rvalid),
    .s_axil_rready(s_axil_rready),
    .reg_wr_addr(reg_wr_addr),
    .reg_wr_data(reg_wr_data),
    .reg_wr_strb(reg_wr_strb),
    .reg_wr_en(reg_wr_en),
    .reg_wr_err(reg_wr_err),
    .reg_rd_addr(reg_rd_addr),
    .reg_rd_en(reg_rd_en),
    .reg_rd_data(reg_rd_data),
    .reg_rd_err(reg_rd_err)
);

wire [AXIL_ADDR_WIDTH-1:0] wr_word = {reg_wr_addr[AXIL_ADDR_WIDTH-1:2], 2'b00};
wire [AXIL_ADDR_WIDTH-1:0] rd_word = {reg_rd_addr[AXIL_ADDR_WIDTH-1:2], 2'b00};

wire clear_counters = reg_wr_en && !reg_wr_err && wr_word == REG_CONTROL
    && reg_wr_strb[0] && reg_wr_data[CONTROL_CLEAR_COUNTERS];

always @* begin
    // writes to read-only registers are ignored; unmapped addresses are errors
    reg_wr_err = !(wr_word <= REG_BYTES_HI);

    reg_rd_err = 1'b0;
    case (rd_word)
        REG_MODULE_ID: reg_rd_data = MODULE_ID;
        REG_VERSION:   reg_rd_data = MODULE_VERSION;
        REG_CONTROL:   reg_rd_data = 32'd0;
        REG_STATUS:    reg_rd_data = {30'd0, out_frame_reg, in_frame_reg};
        REG_FRAMES_LO: reg_rd_data = frames_reg[31:0];
        REG_FRAMES_HI: reg_rd_data = frames_hi_snapshot_reg;
        REG_BYTES_LO:  reg_rd_data = bytes_reg[31:0];
        REG_BYTES_HI:  reg_rd_data = bytes_hi_snapshot_reg;
        default: begin
            reg_rd_data = 32'd0;
            reg_rd_err = 1'b1;
        end
    endcase
end

always @(posedge aclk) begin
    if (in_beat) begin
        in_frame_reg <= !s_axis_tlast;
    end
    if (out_beat) begin
        out_frame_reg <= !m_axis_tlast;
        frames_reg <= frames_reg + {63'd0, m_axis_tlast};
        bytes_reg <= bytes_reg + {{(64-COUNT_WIDTH){1'b0}}, out_beat_bytes};
    end

    // reading a low word latches its high word, so a 64-bit value reads consistently
    if (reg_rd_en && rd_word == REG_FRAMES_LO) begin
        frames_hi_snapshot_reg <= frames_reg[63:32];
    end
    if (reg_rd_en && rd_word == REG_BYTES_LO) begin
        bytes_hi_snapshot_reg <= bytes_reg[63:32];
    end

    if (clear_counters) begin
        frames_reg <= 64'd0;
        bytes_reg <= 64'd0;
    end

    if (rst) begin
        in_frame_reg <= 1'b0;
        out_frame_reg <= 1'b0;
        frames_reg <= 64'd0;
        bytes_reg <= 64'd0;
        frames_hi_snapshot_reg <= 32'd0;
        bytes_hi_snapshot_reg <= 32'd0;
    end
end

endmodule

`resetall
