SUMMARY = "nova-fpga board agent: serves nova-compute's Zynq driver"
DESCRIPTION = "The board role of nova-fpga (its base install, no cloud \
               extras): the agent that loads partial bitstreams into the \
               regions of the static shell for nova, with its systemd unit, \
               sample configuration, the sudoers rule of its privsep helper \
               and the udev rule that gives it the UIO and u-dma-buf nodes."
SECTION = "console/network"
LICENSE = "Apache-2.0"
LIC_FILES_CHKSUM = "file://LICENSE;md5=3b83ef96387f14655fc854ddc3c6bd57"

# The project's source distribution, made in a nova-fpga checkout with
# "make board-sdist" (dist/nova_fpga-${PV}.tar.gz): the build then needs no
# network for it.  The operator puts it beside a bbappend of this recipe
# (README.md of this layer, "The agent's source"), or points SRC_URI at a
# git repository and sets SRCREV there.
SRC_URI = "file://nova_fpga-${PV}.tar.gz"
S = "${WORKDIR}/nova_fpga-${PV}"

# setuptools3 (setup.py bdist_wheel), not python_setuptools_build_meta:
# the project's pyproject.toml asks for setuptools>=77, which "build
# --no-isolation" would hold against scarthgap's setuptools 69, while
# setup.py and setup.cfg build with setuptools 69.1.1 and wheel 0.42.0.
inherit setuptools3 systemd useradd

# RDEPENDS: the Python distributions the agent imports, the standard
# library and sudo (generated)
require nova-fpga-agent-python.inc

USERADD_PACKAGES = "${PN}"
GROUPADD_PARAM:${PN} = "--system nova-fpga"
USERADD_PARAM:${PN} = "--system --gid nova-fpga --home-dir ${localstatedir}/lib/nova-fpga \
                       --no-create-home --shell ${base_sbindir}/nologin nova-fpga"

# The unit, sample configuration, sudoers rule and udev rule (group
# nova-fpga on the UIO and u-dma-buf nodes) are the project's own files,
# from the source distribution (MANIFEST.in), never copies.
SYSTEMD_SERVICE:${PN} = "nova-fpga-agent.service"

# The board's trust store ([agent] trusted_ca_dir): the certificate
# authorities whose certificates may sign the bitstreams it loads.  A
# bbappend adds each CA's PEM file and names it here:
#   SRC_URI:append = " file://cloud-ca.pem"
#   NOVA_FPGA_TRUSTED_CAS = "cloud-ca.pem"
NOVA_FPGA_TRUSTED_CAS ?= ""

do_install:append() {
    install -d ${D}${systemd_system_unitdir}
    install -m 0644 ${S}/agent/systemd/nova-fpga-agent.service \
        ${D}${systemd_system_unitdir}/nova-fpga-agent.service
    install -d ${D}${sysconfdir}/nova-fpga
    install -m 0644 ${S}/agent/etc/agent.conf.sample \
        ${D}${sysconfdir}/nova-fpga/agent.conf.sample
    install -d -m 0750 ${D}${sysconfdir}/sudoers.d
    install -m 0440 ${S}/agent/etc/sudoers.d/nova-fpga-agent \
        ${D}${sysconfdir}/sudoers.d/nova-fpga-agent
    install -d ${D}${nonarch_base_libdir}/udev/rules.d
    install -m 0644 ${S}/agent/udev/70-nova-fpga.rules \
        ${D}${nonarch_base_libdir}/udev/rules.d/70-nova-fpga.rules
    install -d -m 0755 ${D}${sysconfdir}/nova-fpga/trusted-ca
    for ca in ${NOVA_FPGA_TRUSTED_CAS}; do
        install -m 0644 ${WORKDIR}/$ca ${D}${sysconfdir}/nova-fpga/trusted-ca/$ca
    done
}
