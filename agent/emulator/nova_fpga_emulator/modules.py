# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

"""How the board emulator builds a module's HDL: what the module catalogue
says about it (nova_fpga.catalogue: top, sources, parameters), wrapped in
its region's slot (region_slot.v: the decoupler in front of the module), as
a board runs it.  The Verilog is a source tree's: its hdl/ folder is passed
in (``[emulator] hdl_dir``), no installed package carries it.
"""
import dataclasses
import pathlib

from nova_fpga.catalogue import entry

#: The static shell's per-region decoupler: shell logic, never loaded into a
#: region, so not in the catalogue.
DECOUPLER_TOP = 'region_decoupler'
DECOUPLER_SOURCES = ('region_decoupler.v', 'axis_frame_fifo.v')
#: The vTC's name matcher and name extractor, alone and together (vtc_names),
#: until the vTC holds them.
NAME_MATCH_TOP = 'vtc_name_match'
NAME_EXTRACT_TOP = 'vtc_name_extract'
NAMES_TOP = 'vtc_names'
#: A module behind its decoupler (HdlModule.in_slot).
SLOT_TOP = 'region_slot'


@dataclasses.dataclass(frozen=True)
class HdlModule:
    """One Verilator build: a top, its sources and parameters."""

    name: str
    top: str
    #: file names: beside the catalogue entry, else in hdl/rtl
    sources: tuple
    #: Verilog parameters (name -> value)
    parameters: dict
    data_width: int = 64
    #: the catalogue entry's own folder (None: only hdl/rtl)
    directory: pathlib.Path = None
    #: Verilog `define`s of the build (name -> value)
    defines: tuple = ()
    #: cycles without a beat after which it holds nothing (catalogue)
    quiet_cycles: int = entry.QUIET_CYCLES

    @classmethod
    def of(cls, module):
        """The build of a catalogue entry's module."""
        return cls(name=module.name, top=module.top,
                   sources=tuple(module.sources),
                   parameters=module.build_parameters,
                   data_width=module.data_width,
                   directory=module.directory,
                   quiet_cycles=module.quiet_cycles)

    def source_paths(self, hdl_dir):
        """Its Verilog files, for a source tree's hdl/ folder."""
        return entry.resolve_sources(self.sources, self.directory,
                                     entry.rtl_dir(hdl_dir))

    def include_dirs(self, hdl_dir):
        """Where its `include files are: its own folder, the generated
        catalogue headers.
        """
        return entry.include_dirs(self.directory, entry.rtl_dir(hdl_dir))

    @property
    def in_slot(self):
        """This module behind its region's decoupler, as a board runs it:
        what the emulator builds (the top is region_slot.v).
        """
        return dataclasses.replace(
            self, name='%s_slot' % self.name, top=SLOT_TOP,
            sources=self.sources + DECOUPLER_SOURCES + ('region_slot.v',),
            defines=(('REGION_MODULE', self.top),))


def decoupler():
    """The decoupler alone (its cocotb suite, lint, resources)."""
    return HdlModule(name='decoupler', top=DECOUPLER_TOP,
                     sources=DECOUPLER_SOURCES, parameters={})


def name_matcher():
    """The vTC's name matcher alone (its cocotb suite, lint)."""
    return HdlModule(name=NAME_MATCH_TOP, top=NAME_MATCH_TOP,
                     sources=(NAME_MATCH_TOP + '.v', 'vtc_flow_ram.v'),
                     parameters={})


def name_extractor():
    """The vTC's name extractor alone (its cocotb suite, lint)."""
    return HdlModule(name=NAME_EXTRACT_TOP, top=NAME_EXTRACT_TOP,
                     sources=(NAME_EXTRACT_TOP + '.v', 'vtc_flow_ram.v'),
                     parameters={})


def names():
    """The vTC's name extractor and matcher together (cocotb suite, lint)."""
    return HdlModule(name=NAMES_TOP, top=NAMES_TOP,
                     sources=(NAMES_TOP + '.v', NAME_EXTRACT_TOP + '.v',
                              NAME_MATCH_TOP + '.v', 'vtc_flow_ram.v'),
                     parameters={})


def parser():
    """The vTC's parser alone (its cocotb suite: the request the name
    extractor is told to read from).
    """
    return HdlModule(name='vtc_parser', top='vtc_parser',
                     sources=('vtc_parser.v', 'vtc_signatures.v'),
                     parameters={})
