SUMMARY = "nova-fpga board: the agent and the reference shell's firmware"
DESCRIPTION = "What a Zynq board needs to be a nova-fpga compute node: \
               the board agent (its Python dependencies come with it) and the \
               static shell it serves regions of."
SECTION = "console/network"
LICENSE = "Apache-2.0"

inherit packagegroup

RDEPENDS:${PN} = "\
    nova-fpga-agent \
    nova-fpga-shell-reference \
"
