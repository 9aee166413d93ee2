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
import re

from nova_fpga.catalogue import entry

HERE = pathlib.Path(__file__).resolve().parent
COMMON_ENTRY = HERE / 'common.toml'
MODULES_DIR = HERE / 'modules'
CatalogueError = entry.CatalogueError


#: a tenant setting's value as a server property holds it (text)
SETTING_TEXT = re.compile(r'[0-9]{1,10}')


class UnknownModule(LookupError):
    """No catalogue entry has this module ID (or name)."""


class SettingError(ValueError):
    """A tenant setting the module does not have, or a value it does not
    take; the message names it.
    """


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

    def claims(self, key):
        """Whether a server property is meant as a tenant setting: it is
        in a catalogue module's namespace (``vtc:...``).
        """
        namespace, colon, _ = key.partition(':')
        return bool(colon) and namespace in self._by_name

    def settings_of(self, module_id, properties):
        """{property: number}: the tenant settings among a server's
        properties (text, as nova keeps them) for the module its image
        holds (module_id; None: none declared), checked as
        register_writes checks them.  Properties outside every module's
        namespace are not settings and are left alone.

        :raises SettingError: naming the property.
        """
        settings = {}
        for key, text in sorted(properties.items()):
            if not self.claims(key):
                continue
            if not isinstance(text, str) or not SETTING_TEXT.fullmatch(text):
                raise SettingError('property %s=%r: the value must be a '
                                   'decimal integer' % (key, text))
            settings[key] = int(text)
        self.register_writes(module_id, settings)
        return settings

    def register_writes(self, module_id, settings):
        """[(Setting, register value)] that apply settings ({property:
        number}) to the module, by offset.

        :raises SettingError: settings that are not a mapping of this
            module's setting names to integers in their range.
        """
        if not isinstance(settings, dict):
            raise SettingError('settings must map property names to '
                               'numbers, not %r' % (settings,))
        module = self.get(module_id)
        known = {s.name: s for s in module.settings} if module else {}
        writes = []
        for name, number in sorted(settings.items(), key=str):
            setting = known.get(name)
            if setting is None:
                raise SettingError(self._not_a_setting(name, module,
                                                       module_id))
            if type(number) is not int or not (
                    0 <= number <= setting.maximum):
                raise SettingError('property %s=%r: %s takes an integer '
                                   '0..%d' % (name, number, name,
                                              setting.maximum))
            writes.append((setting, setting.value(number)))
        return sorted(writes, key=lambda w: w[0].offset)

    @staticmethod
    def _not_a_setting(name, module, module_id):
        if module_id is None:
            return ('property %s: the image\'s bitstream declares no '
                    'module, so it has no settings' % name)
        if module is None:
            return ('property %s: the image holds module 0x%08X, which the '
                    'module catalogue does not know (it has no settings)'
                    % (name, module_id))
        takes = ', '.join(s.name for s in module.settings)
        return ('property %s is not a setting of module %s (%s)'
                % (name, module.name, 'it takes ' + takes if takes
                   else 'it has none'))

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
