"""nova-fpga board agent: owns a Zynq board's programmable logic and serves
nova-compute over oslo.messaging; also the board emulator (``emulator``)."""
from importlib import metadata

try:
    __version__ = metadata.version('nova-fpga')
except metadata.PackageNotFoundError:  # running from a source tree
    __version__ = '0+unknown'
