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

# Block design of the nova-fpga reference shell: what of the shell is Xilinx IP.
#
#   PS7 (PYNQ-Z2 settings) -- M_AXI_GP0 -- AXI interconnect -- per region:
#       AXI DMA register block, AXI GPIO (decouple / decouple status), and the
#       region's register window, exported to nova_shell.v (rpN_axil)
#   per region: AXI DMA (simple mode, 64-bit) with MM2S/S2MM streams exported
#       to nova_shell.v (rpN_mm2s, rpN_s2mm), its memory side through a
#       SmartConnect to its own 64-bit HP port (rp0: HP0, rp1: HP1)
#
# The addresses are the shell manifest's (nova_fpga/contract/shells/reference_xc7z020.json):
# decoupler 0x43C00000 / 0x43C20000, module 0x43C10000 / 0x43C30000, 64 KiB
# each; the DMA register blocks at 0x40400000 / 0x40410000 (PYNQ's usual
# place).  DMA channel N of the manifest is region rpN's DMA.
#
# Sourced by build.tcl after settings.tcl; defines nova_create_shell_bd.

# PYNQ-Z2 PS7 settings.  The real design in realdata (royforu_pynq_pr) ships
# only the reconfigurable module's hardware handoff (pr_0_add.hwh: board
# tul.com.tw:pynq-z2:part0:1.0, 100 MHz fabric clock), not the PS7's, so the
# values below are those of the PYNQ-Z2 board project (Xilinx/PYNQ,
# boards/Pynq-Z2, BSD-3-Clause): 50 MHz PS clock, 650 MHz APU, DDR3
# MT41J256M16 RE-125 at 525 MHz on a 16-bit bus, the board's MIO map.
set nova_ps7_config [list \
    CONFIG.PCW_CRYSTAL_PERIPHERAL_FREQMHZ {50} \
    CONFIG.PCW_APU_PERIPHERAL_FREQMHZ {650} \
    CONFIG.PCW_APU_CLK_RATIO_ENABLE {6:2:1} \
    CONFIG.PCW_PRESET_BANK0_VOLTAGE {LVCMOS 3.3V} \
    CONFIG.PCW_PRESET_BANK1_VOLTAGE {LVCMOS 1.8V} \
    CONFIG.PCW_UIPARAM_DDR_MEMORY_TYPE {DDR 3} \
    CONFIG.PCW_UIPARAM_DDR_PARTNO {MT41J256M16 RE-125} \
    CONFIG.PCW_UIPARAM_DDR_BUS_WIDTH {16 Bit} \
    CONFIG.PCW_UIPARAM_DDR_FREQ_MHZ {525} \
    CONFIG.PCW_UIPARAM_DDR_BOARD_DELAY0 {0.223} \
    CONFIG.PCW_UIPARAM_DDR_BOARD_DELAY1 {0.212} \
    CONFIG.PCW_UIPARAM_DDR_BOARD_DELAY2 {0.085} \
    CONFIG.PCW_UIPARAM_DDR_BOARD_DELAY3 {0.092} \
    CONFIG.PCW_UIPARAM_DDR_DQS_TO_CLK_DELAY_0 {0.040} \
    CONFIG.PCW_UIPARAM_DDR_DQS_TO_CLK_DELAY_1 {0.058} \
    CONFIG.PCW_UIPARAM_DDR_DQS_TO_CLK_DELAY_2 {-0.009} \
    CONFIG.PCW_UIPARAM_DDR_DQS_TO_CLK_DELAY_3 {-0.033} \
    CONFIG.PCW_UIPARAM_DDR_TRAIN_DATA_EYE {1} \
    CONFIG.PCW_UIPARAM_DDR_TRAIN_READ_GATE {1} \
    CONFIG.PCW_UIPARAM_DDR_TRAIN_WRITE_LEVEL {1} \
    CONFIG.PCW_QSPI_PERIPHERAL_ENABLE {1} \
    CONFIG.PCW_QSPI_GRP_SINGLE_SS_ENABLE {1} \
    CONFIG.PCW_QSPI_GRP_FBCLK_ENABLE {1} \
    CONFIG.PCW_ENET0_PERIPHERAL_ENABLE {1} \
    CONFIG.PCW_ENET0_ENET0_IO {MIO 16 .. 27} \
    CONFIG.PCW_ENET0_GRP_MDIO_ENABLE {1} \
    CONFIG.PCW_ENET0_GRP_MDIO_IO {MIO 52 .. 53} \
    CONFIG.PCW_ENET0_RESET_ENABLE {1} \
    CONFIG.PCW_ENET0_RESET_IO {MIO 9} \
    CONFIG.PCW_SD0_PERIPHERAL_ENABLE {1} \
    CONFIG.PCW_SD0_SD0_IO {MIO 40 .. 45} \
    CONFIG.PCW_SD0_GRP_CD_ENABLE {1} \
    CONFIG.PCW_SD0_GRP_CD_IO {MIO 47} \
    CONFIG.PCW_SDIO_PERIPHERAL_FREQMHZ {50} \
    CONFIG.PCW_UART0_PERIPHERAL_ENABLE {1} \
    CONFIG.PCW_UART0_UART0_IO {MIO 14 .. 15} \
    CONFIG.PCW_UART0_BAUD_RATE {115200} \
    CONFIG.PCW_USB0_PERIPHERAL_ENABLE {1} \
    CONFIG.PCW_USB0_RESET_ENABLE {1} \
    CONFIG.PCW_USB0_RESET_IO {MIO 46} \
    CONFIG.PCW_GPIO_MIO_GPIO_ENABLE {1} \
    CONFIG.PCW_FPGA0_PERIPHERAL_FREQMHZ $nova_fclk0_mhz \
    CONFIG.PCW_USE_M_AXI_GP0 {1} \
    CONFIG.PCW_USE_S_AXI_HP0 {1} \
    CONFIG.PCW_S_AXI_HP0_DATA_WIDTH {64} \
    CONFIG.PCW_USE_S_AXI_HP1 {1} \
    CONFIG.PCW_S_AXI_HP1_DATA_WIDTH {64} \
    CONFIG.PCW_USE_FABRIC_INTERRUPT {1} \
    CONFIG.PCW_IRQ_F2P_INTR {1}]

# Register map: region -> (decoupler GPIO, module window); DMA register blocks.
set nova_register_map [dict create \
    rp0 [dict create decoupler 0x43C00000 module 0x43C10000 dma 0x40400000 hp S_AXI_HP0] \
    rp1 [dict create decoupler 0x43C20000 module 0x43C30000 dma 0x40410000 hp S_AXI_HP1]]
set nova_window_range 64K
set nova_dma_range 64K

proc nova_create_shell_bd {dir name} {
    global nova_ps7_config nova_register_map nova_window_range nova_dma_range
    global nova_data_width nova_fclk0_mhz

    create_bd_design -dir $dir $name

    # PS7, its DDR and fixed MIO pins, the fabric clock and reset
    set ps7 [create_bd_cell -type ip -vlnv xilinx.com:ip:processing_system7:5.5 ps7]
    apply_bd_automation -rule xilinx.com:bd_rule:processing_system7 \
        -config {make_external "FIXED_IO, DDR" apply_board_preset "0" Master "Disable" Slave "Disable"} $ps7
    set_property -dict $nova_ps7_config $ps7

    set reset [create_bd_cell -type ip -vlnv xilinx.com:ip:proc_sys_reset:5.0 shell_reset]
    connect_bd_net [get_bd_pins ps7/FCLK_CLK0] [get_bd_pins shell_reset/slowest_sync_clk]
    connect_bd_net [get_bd_pins ps7/FCLK_RESET0_N] [get_bd_pins shell_reset/ext_reset_in]

    set clock_hz [expr {$nova_fclk0_mhz * 1000000}]
    create_bd_port -dir O -type clk shell_aclk
    create_bd_port -dir O -type rst shell_aresetn
    connect_bd_net [get_bd_pins ps7/FCLK_CLK0] [get_bd_ports shell_aclk]
    connect_bd_net [get_bd_pins shell_reset/peripheral_aresetn] [get_bd_ports shell_aresetn]

    # GP0 register interconnect: per region its DMA, its decoupler GPIO, its module window
    set regions [dict keys $nova_register_map]
    set gp0 [create_bd_cell -type ip -vlnv xilinx.com:ip:axi_interconnect:2.1 gp0_interconnect]
    set_property -dict [list CONFIG.NUM_SI {1} CONFIG.NUM_MI [expr {3 * [llength $regions]}]] $gp0
    connect_bd_intf_net [get_bd_intf_pins ps7/M_AXI_GP0] [get_bd_intf_pins gp0_interconnect/S00_AXI]
    # cells whose clock and reset pins are tied to FCLK_CLK0 and the shell reset below
    set fabric_cells [list $gp0]

    # one interrupt line a region (its DMA's two ORed below), in region order
    # on IRQ_F2P: uio_pdrv_genirq gives a UIO node one interrupt
    set irq [create_bd_cell -type ip -vlnv xilinx.com:ip:xlconcat:2.1 dma_interrupts]
    set_property CONFIG.NUM_PORTS [llength $regions] $irq
    connect_bd_net [get_bd_pins dma_interrupts/dout] [get_bd_pins ps7/IRQ_F2P]

    set busifs {}
    set mi 0
    set irq_in 0
    foreach region $regions {
        set map [dict get $nova_register_map $region]

        # the region's DMA channel: 64-bit streams, scatter-gather mode (the C
        # data mover's descriptor rings, agent/datamover).  PG021 (AXI DMA
        # v7.1), "Buffer Length Register" / c_sg_length_width: the width of
        # the descriptors' and registers' length fields, 8 to 26 bits; 14
        # bits (16,383 bytes) hold a 9,018-byte jumbo frame in one
        # descriptor (the mover's slots are 9,216 bytes); the 23 of before
        # made the field needlessly wide.  c_sg_include_stscntrl_strm 0: no
        # AXI4-Stream status/control (the mover uses none of the app words)
        set dma [create_bd_cell -type ip -vlnv xilinx.com:ip:axi_dma:7.1 ${region}_dma]
        set_property -dict [list \
            CONFIG.c_include_sg {1} \
            CONFIG.c_sg_length_width {14} \
            CONFIG.c_sg_include_stscntrl_strm {0} \
            CONFIG.c_include_mm2s {1} \
            CONFIG.c_include_s2mm {1} \
            CONFIG.c_m_axi_mm2s_data_width $nova_data_width \
            CONFIG.c_m_axis_mm2s_tdata_width $nova_data_width \
            CONFIG.c_m_axi_s2mm_data_width $nova_data_width \
            CONFIG.c_s_axis_s2mm_tdata_width $nova_data_width \
            CONFIG.c_mm2s_burst_size {16} \
            CONFIG.c_s2mm_burst_size {16}] $dma
        lappend fabric_cells $dma

        # its memory side: SmartConnect to the region's own HP port; the
        # descriptor fetches and status write-backs (M_AXI_SG) too
        set hp [dict get $map hp]
        set smc [create_bd_cell -type ip -vlnv xilinx.com:ip:smartconnect:1.0 ${region}_hp_smc]
        set_property -dict [list CONFIG.NUM_SI {3} CONFIG.NUM_MI {1}] $smc
        lappend fabric_cells $smc
        connect_bd_intf_net [get_bd_intf_pins ${region}_dma/M_AXI_MM2S] [get_bd_intf_pins ${region}_hp_smc/S00_AXI]
        connect_bd_intf_net [get_bd_intf_pins ${region}_dma/M_AXI_S2MM] [get_bd_intf_pins ${region}_hp_smc/S01_AXI]
        connect_bd_intf_net [get_bd_intf_pins ${region}_dma/M_AXI_SG] [get_bd_intf_pins ${region}_hp_smc/S02_AXI]
        connect_bd_intf_net [get_bd_intf_pins ${region}_hp_smc/M00_AXI] [get_bd_intf_pins ps7/$hp]

        # the streams go to nova_shell.v, through the region's decoupler
        create_bd_intf_port -mode Master -vlnv xilinx.com:interface:axis_rtl:1.0 ${region}_mm2s
        create_bd_intf_port -mode Slave -vlnv xilinx.com:interface:axis_rtl:1.0 ${region}_s2mm
        set_property -dict [list CONFIG.TDATA_NUM_BYTES [expr {$nova_data_width / 8}] \
            CONFIG.HAS_TKEEP {1} CONFIG.HAS_TLAST {1} CONFIG.HAS_TREADY {1} \
            CONFIG.HAS_TSTRB {0} CONFIG.TUSER_WIDTH {0} CONFIG.TID_WIDTH {0} \
            CONFIG.TDEST_WIDTH {0} CONFIG.FREQ_HZ $clock_hz] [get_bd_intf_ports ${region}_s2mm]
        connect_bd_intf_net [get_bd_intf_pins ${region}_dma/M_AXIS_MM2S] [get_bd_intf_ports ${region}_mm2s]
        connect_bd_intf_net [get_bd_intf_ports ${region}_s2mm] [get_bd_intf_pins ${region}_dma/S_AXIS_S2MM]

        # the decoupler's control: GPIO channel 1 bit 0 out (1 = decoupled, the
        # power-up value), channel 2 bit 0 in (decouple_status)
        set gpio [create_bd_cell -type ip -vlnv xilinx.com:ip:axi_gpio:2.0 ${region}_decoupler_gpio]
        set_property -dict [list CONFIG.C_GPIO_WIDTH {1} CONFIG.C_ALL_OUTPUTS {1} \
            CONFIG.C_DOUT_DEFAULT {0x00000001} CONFIG.C_IS_DUAL {1} \
            CONFIG.C_GPIO2_WIDTH {1} CONFIG.C_ALL_INPUTS_2 {1}] $gpio
        lappend fabric_cells $gpio
        create_bd_port -dir O -from 0 -to 0 ${region}_decouple
        create_bd_port -dir I -from 0 -to 0 ${region}_decouple_status
        connect_bd_net [get_bd_pins ${region}_decoupler_gpio/gpio_io_o] [get_bd_ports ${region}_decouple]
        connect_bd_net [get_bd_ports ${region}_decouple_status] [get_bd_pins ${region}_decoupler_gpio/gpio2_io_i]

        # the module's register window, AXI4-Lite to nova_shell.v
        create_bd_intf_port -mode Master -vlnv xilinx.com:interface:aximm_rtl:1.0 ${region}_axil
        set_property -dict [list CONFIG.PROTOCOL {AXI4LITE} CONFIG.DATA_WIDTH {32} \
            CONFIG.ADDR_WIDTH {16} CONFIG.HAS_PROT {1} CONFIG.FREQ_HZ $clock_hz] \
            [get_bd_intf_ports ${region}_axil]

        foreach target [list ${region}_dma/S_AXI_LITE ${region}_decoupler_gpio/S_AXI] {
            connect_bd_intf_net [get_bd_intf_pins gp0_interconnect/[format M%02d_AXI $mi]] \
                [get_bd_intf_pins $target]
            incr mi
        }
        connect_bd_intf_net [get_bd_intf_pins gp0_interconnect/[format M%02d_AXI $mi]] \
            [get_bd_intf_ports ${region}_axil]
        incr mi

        # the region's interrupt: MM2S OR S2MM (both level, active high,
        # PG021), one UIO interrupt for the region's DMA node; the mover reads
        # both DMASRs to tell them apart
        set irq_or [create_bd_cell -type ip -vlnv xilinx.com:ip:util_vector_logic:2.0 ${region}_dma_irq]
        set_property -dict [list CONFIG.C_SIZE {1} CONFIG.C_OPERATION {or}] $irq_or
        connect_bd_net [get_bd_pins ${region}_dma/mm2s_introut] [get_bd_pins ${region}_dma_irq/Op1]
        connect_bd_net [get_bd_pins ${region}_dma/s2mm_introut] [get_bd_pins ${region}_dma_irq/Op2]
        connect_bd_net [get_bd_pins ${region}_dma_irq/Res] [get_bd_pins dma_interrupts/In$irq_in]
        incr irq_in

        lappend busifs ${region}_mm2s ${region}_s2mm ${region}_axil
    }

    # one clock and one reset for all of it
    set_property -dict [list CONFIG.FREQ_HZ $clock_hz \
        CONFIG.ASSOCIATED_BUSIF [join $busifs :] CONFIG.ASSOCIATED_RESET {shell_aresetn}] \
        [get_bd_ports shell_aclk]
    foreach pin {ps7/M_AXI_GP0_ACLK ps7/S_AXI_HP0_ACLK ps7/S_AXI_HP1_ACLK} {
        connect_bd_net [get_bd_pins ps7/FCLK_CLK0] [get_bd_pins $pin]
    }
    foreach cell $fabric_cells {
        foreach pin [get_bd_pins -of_objects $cell -filter {TYPE == clk}] {
            if {[llength [get_bd_nets -quiet -of_objects $pin]] == 0} {
                connect_bd_net [get_bd_pins ps7/FCLK_CLK0] $pin
            }
        }
        foreach pin [get_bd_pins -of_objects $cell -filter {TYPE == rst}] {
            if {[llength [get_bd_nets -quiet -of_objects $pin]] == 0} {
                connect_bd_net [get_bd_pins shell_reset/peripheral_aresetn] $pin
            }
        }
    }

    # the shell manifest's register map
    set data [get_bd_addr_spaces ps7/Data]
    foreach region $regions {
        set map [dict get $nova_register_map $region]
        assign_bd_address -offset [dict get $map dma] -range $nova_dma_range \
            -target_address_space $data [get_bd_addr_segs ${region}_dma/S_AXI_LITE/Reg] -force
        assign_bd_address -offset [dict get $map decoupler] -range $nova_window_range \
            -target_address_space $data [get_bd_addr_segs ${region}_decoupler_gpio/S_AXI/Reg] -force
        assign_bd_address -offset [dict get $map module] -range $nova_window_range \
            -target_address_space $data [get_bd_addr_segs ${region}_axil/Reg] -force
    }
    # the DMAs see all of DDR through their HP ports
    assign_bd_address

    validate_bd_design
    save_bd_design
}
