SUMMARY = "u-dma-buf: contiguous DMA buffers a userspace driver can map"
DESCRIPTION = "ikwzm's out-of-tree kernel module: the board agent drives each \
               region's AXI DMA in simple mode from userspace over a u-dma-buf \
               buffer (its physical address in sysfs, mapped O_SYNC)."
HOMEPAGE = "https://github.com/ikwzm/udmabuf"
BUGTRACKER = "https://github.com/ikwzm/udmabuf/issues"
SECTION = "kernel/modules"
LICENSE = "BSD-2-Clause"
LIC_FILES_CHKSUM = "file://LICENSE;md5=bebf0492502927bef0741aa04d1f35f5"

# The commit of the v5.5.0 release (its u-dma-buf.c says DRIVER_VERSION
# "5.5.0"; its kernel version guards reach 6.13, linux-xlnx 2024.x is 6.6)
SRC_URI = "git://github.com/ikwzm/udmabuf.git;protocol=https;branch=master"
SRCREV = "15bcde3cb960321e99983e227aeacc5807888333"
S = "${WORKDIR}/git"

inherit module

# Its Makefile builds u-dma-buf.ko against KERNEL_SRC (module.bbclass passes
# it) and installs it with the kernel's modules_install; left to itself it
# takes ARCH and CROSS_COMPILE from the build host's uname.
EXTRA_OEMAKE += "ARCH=${ARCH} CROSS_COMPILE=${TARGET_PREFIX}"
RPROVIDES:${PN} += "kernel-module-u-dma-buf"
# Loaded at boot; its buffers come from the shell's device-tree overlay
# (compatible "ikwzm,u-dma-buf") once nova-fpga-shell has applied it.
KERNEL_MODULE_AUTOLOAD += "u-dma-buf"
