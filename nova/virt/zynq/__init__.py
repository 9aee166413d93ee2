"""nova loads compute drivers only from its own namespace
(``compute_driver = zynq.ZynqDriver`` imports ``nova.virt.zynq``): this thin
module, shipped by the nova-fpga distribution, is that name.  The driver
lives in nova_fpga.virt."""
from nova_fpga.virt.driver import ZynqDriver

__all__ = ['ZynqDriver']
