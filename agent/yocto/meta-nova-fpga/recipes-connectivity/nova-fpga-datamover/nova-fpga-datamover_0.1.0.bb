SUMMARY = "nova-fpga data mover: the board's data path in C"
DESCRIPTION = "A daemon that moves frames between the board's data \
               interface (AF_PACKET memory-mapped rings) and the regions' AXI \
               DMAs in scatter-gather mode (UIO and u-dma-buf), steered by \
               802.1Q VLAN; the agent controls it over a Unix socket."
SECTION = "console/network"
LICENSE = "Apache-2.0"
LIC_FILES_CHKSUM = "file://LICENSE;md5=3b83ef96387f14655fc854ddc3c6bd57"

# The same source distribution as nova-fpga-agent ("make board-sdist"; see
# this layer's README.md, "The agent's source"); agent/datamover is in it.
SRC_URI = "file://nova_fpga-${PV}.tar.gz"
S = "${WORKDIR}/nova_fpga-${PV}"

# The project's own Makefile (C11, warnings as errors) with the cross
# compiler; CC and CFLAGS come from the environment bitbake exports.
EXTRA_OEMAKE = "-C ${S}/agent/datamover BUILD=${B}/build"

do_compile() {
    oe_runmake ${B}/build/nova-fpga-datamover
}

do_install() {
    oe_runmake install DESTDIR=${D} BINDIR=${bindir}
}
