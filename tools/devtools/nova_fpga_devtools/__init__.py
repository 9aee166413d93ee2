"""Development tooling of nova-fpga: the demo cloud, its CLI and the HDL
budget tools.  Not part of what an operator installs: it runs from a source
checkout (``pip install -e tools/devtools``), whose folders it uses.
"""
import pathlib

#: the source checkout these tools are installed from (editable)
SOURCE = pathlib.Path(__file__).resolve().parents[3]
#: its hdl/ folder: the emulated boards' [emulator] hdl_dir
HDL = SOURCE / 'hdl'
