SUMMARY = "nova-fpga reference shell (xc7z020): bitstream, overlay, manifest"
DESCRIPTION = "The static shell a nova-fpga board runs: its full \
               bitstream (supplied by the operator), its device-tree overlay \
               (written from the shell manifest by nova-fpga-dt, compiled here \
               with dtc -@), the shell manifest the agent reads, and a unit \
               that applies the overlay through configfs before the agent."
SECTION = "kernel"
LICENSE = "Apache-2.0"
# The layer's own files (nova-fpga's licence): no source of a third party
# carries a licence file here.
# nooelint: oelint.var.licenseremotefile
LIC_FILES_CHKSUM = "file://${COMMON_LICENSE_DIR}/Apache-2.0;md5=89aea4e17d99a7cacdbeed46a0096b10"

DEPENDS = "dtc-native"

# reference_xc7z020.json and .dtso are generated in a nova-fpga checkout
# ("make board-layer"); shell.bit is the shell's full bitstream, which the
# operator supplies from a bbappend (README.md of this layer, step 5, "The
# shell's bitstream and manifest"): a Vivado build of hdl/vivado, not part
# of this layer.
SRC_URI = "\
    file://reference_xc7z020.json \
    file://reference_xc7z020.dtso \
    file://nova-fpga-shell-overlay \
    file://nova-fpga-shell.service \
    file://shell.bit \
"
S = "${WORKDIR}"

inherit systemd

NOVA_FPGA_SHELL = "reference_xc7z020"
NOVA_FPGA_SHELL_DIR = "${nonarch_base_libdir}/firmware/nova-fpga-shell/${NOVA_FPGA_SHELL}"

SYSTEMD_SERVICE:${PN} = "nova-fpga-shell.service"

do_compile() {
    dtc -@ -I dts -O dtb -o ${B}/${NOVA_FPGA_SHELL}.dtbo ${S}/${NOVA_FPGA_SHELL}.dtso
}

do_install() {
    install -d ${D}${NOVA_FPGA_SHELL_DIR}
    install -m 0644 ${S}/shell.bit ${D}${NOVA_FPGA_SHELL_DIR}/shell.bit
    install -m 0644 ${B}/${NOVA_FPGA_SHELL}.dtbo ${D}${NOVA_FPGA_SHELL_DIR}/shell.dtbo
    install -m 0644 ${S}/${NOVA_FPGA_SHELL}.json ${D}${NOVA_FPGA_SHELL_DIR}/manifest.json
    install -d ${D}${libexecdir}/nova-fpga
    install -m 0755 ${S}/nova-fpga-shell-overlay ${D}${libexecdir}/nova-fpga/shell-overlay
    install -d ${D}${systemd_system_unitdir}
    install -m 0644 ${S}/nova-fpga-shell.service ${D}${systemd_system_unitdir}/nova-fpga-shell.service
    sed -i -e 's#@SHELL_DIR@#${NOVA_FPGA_SHELL_DIR}#g' -e 's#@LIBEXECDIR@#${libexecdir}#g' \
        ${D}${systemd_system_unitdir}/nova-fpga-shell.service
}

# the bitstream is built for one board's part and pins
PACKAGE_ARCH = "${MACHINE_ARCH}"

FILES:${PN} += "\
    ${nonarch_base_libdir}/firmware/nova-fpga-shell \
    ${libexecdir}/nova-fpga \
"
