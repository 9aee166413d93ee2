SUMMARY = "nova-fpga board: the agent, the reference shell, the kernel modules"
DESCRIPTION = "What a Zynq board needs to be a nova-fpga compute node: \
               the board agent (its Python dependencies come with it), the \
               static shell it serves regions of, and the kernel modules it \
               drives the shell through (u-dma-buf, uio_pdrv_genirq)."
SECTION = "console/network"
LICENSE = "Apache-2.0"

inherit packagegroup

# kernel-module-uio-pdrv-genirq: linux-xlnx's, a module with this layer's
# kernel options (dynamic-layers/xilinx)
RDEPENDS:${PN} = "\
    kernel-module-uio-pdrv-genirq \
    nova-fpga-agent \
    nova-fpga-shell-reference \
    u-dma-buf \
"
