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

"""The reconfigurable-module catalogue: one TOML entry per module.

What a module is (its ID, HDL, registers, counters and what it does to
frames) is written once, in modules/<name>.toml (the block every module
shares in common.toml); the agent, the emulator, the console and
hdl/generate.py (Verilog headers, Vivado module table, hdl/README.md
tables) read it from here.  An operator adds modules with entries in
directories of their own (``module_catalogue_dirs``).  Imports nothing of
nova, glance or oslo: boards use it.
"""
import functools
import pathlib

from nova_fpga.catalogue import entry

HERE = pathlib.Path(__file__).resolve().parent
COMMON_ENTRY = HERE / 'common.toml'
MODULES_DIR = HERE / 'modules'
CatalogueError = entry.CatalogueError


class UnknownModule(LookupError):
    """No catalogue entry has this module ID (or name)."""


class Catalogue:
    """The modules by ID and by name, and the common register block."""

    def __init__(self, common, modules):
        self.common = common
        self._by_id = {}
        self._by_name = {}
        for module in modules:
            for index, key in ((self._by_id, module.module_id),
                               (self._by_name, module.name)):
                if key in index:
                    raise CatalogueError('%s and %s both declare %s'
                                         % (index[key].path, module.path,
                                            key))
                index[key] = module

    def __iter__(self):
        return iter(sorted(self._by_id.values(), key=lambda m: m.module_id))

    def get(self, module_id):
        """The module with this ID, or None."""
        return self._by_id.get(module_id)

    def by_id(self, module_id):
        try:
            return self._by_id[module_id]
        except KeyError:
            raise UnknownModule('no module with ID 0x%08X in the module '
                                'catalogue' % module_id) from None

    def by_name(self, name):
        try:
            return self._by_name[name]
        except KeyError:
            raise UnknownModule('no module named %r in the module '
                                'catalogue' % name) from None

    def read_counters(self, module_id, read):
        """A module's counters through ``read(offset) -> int``.

        The module ID register is read first: counters of other logic mean
        nothing.  A module the catalogue does not know has the common
        block's counters only.
        """
        found = read(self.common.registers.MODULE_ID)
        if found != module_id:
            raise ValueError('module ID register reads 0x%08X, expected '
                             '0x%08X' % (found, module_id))
        module = self.get(module_id)
        counters = {}
        for counter in self.common.counters + (
                module.counters if module else ()):
            counters.update(counter.read(read))
        return counters


def module_id(name):
    """The module ID of a shipped module, by name."""
    return load().by_name(name).module_id


def entries(directory):
    """The entry files of a directory, in name order."""
    return sorted(pathlib.Path(directory).glob('*.toml'))


def load(extra_dirs=()):
    """The catalogue: the shipped entries plus those in ``extra_dirs``."""
    return _load(tuple(str(d) for d in extra_dirs))


@functools.lru_cache(maxsize=None)
def _load(extra_dirs):
    common = entry.load_block(COMMON_ENTRY)
    paths = entries(MODULES_DIR)
    for directory in extra_dirs:
        if not pathlib.Path(directory).is_dir():
            raise CatalogueError('module catalogue directory %s does not '
                                 'exist' % directory)
        paths += entries(directory)
    return Catalogue(common, [entry.load_module(p, common) for p in paths])
