"""Xilinx configuration bitstreams: validate, describe, build, convert.

The one implementation of the bitstream format in nova-fpga, shared by the
Glance store and import plugin, the nova driver, the board agent and the
board emulator.  It imports nothing from OpenStack: boards have neither nova
nor glance.
"""
from nova_fpga.bitstream.errors import BitstreamError  # noqa: F401
from nova_fpga.bitstream.validator import Bitstream  # noqa: F401
from nova_fpga.bitstream.validator import validate  # noqa: F401
from nova_fpga.bitstream.validator import validate_file  # noqa: F401
from nova_fpga.bitstream.validator import Validator  # noqa: F401
