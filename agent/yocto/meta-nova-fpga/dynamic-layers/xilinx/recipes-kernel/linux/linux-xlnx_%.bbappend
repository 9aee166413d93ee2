# The kernel options nova-fpga's board agent needs (files/nova-fpga.cfg, a
# kernel-yocto configuration fragment) and uio_pdrv_genirq bound to the
# shell's generic-uio nodes, for Zynq-7000 machines (meta-xilinx's "zynq"
# SoC family override).
FILESEXTRAPATHS:prepend:zynq := "${THISDIR}/files:"
SRC_URI:append:zynq = " file://nova-fpga.cfg"

# of_id through /etc/modprobe.d (kernel-module-split): the same as the
# kernel command line's uio_pdrv_genirq.of_id=generic-uio (PetaLinux's
# bootargs, this layer's README), which also covers a kernel with the
# driver built in.
KERNEL_MODULE_AUTOLOAD:append:zynq = " uio_pdrv_genirq"
KERNEL_MODULE_PROBECONF:append:zynq = " uio_pdrv_genirq"
# nooelint: oelint.vars.mispell.unknown - module_conf_<module> is read by openembedded-core's kernel-module-split.bbclass
module_conf_uio_pdrv_genirq:zynq = "options uio_pdrv_genirq of_id=generic-uio"
