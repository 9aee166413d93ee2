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

"""One catalogue entry (a TOML file) as Python objects, checked on load.

A mistake in an entry (an overlapping offset, a counter of a register that
is not there) is reported when the catalogue loads, naming the file, not
when a board first reads the counter.
"""
import dataclasses
import pathlib
import re
import tomllib

from nova_fpga.catalogue import applications
from nova_fpga.catalogue import registers as regs

#: the folder of hdl/rtl holding the Verilog headers hdl/generate.py
#: writes from the catalogue
GENERATED = 'generated'

ACCESS = (regs.READ_ONLY, regs.READ_WRITE)
WIDTHS = (32, 64)


class CatalogueError(ValueError):
    """A catalogue entry is malformed."""


@dataclasses.dataclass(frozen=True)
class Counter:
    """A counter the agent reports: ``name`` (with ``{label}`` for each
    element of an array register) read from ``register``.
    """

    name: str
    register: regs.Register
    #: label -> (counter a, counter b): the element the array leaves out
    #: is a - b (for display; the agent does not report it)
    derived: dict = dataclasses.field(default_factory=dict)
    #: the console's column heading, when not the name without {label}
    heading: str = None

    @property
    def column(self):
        """An array counter's column name (``{label}_packets``: packets,
        unless the entry names it).
        """
        if self.heading:
            return self.heading
        return self.name.replace('{label}', '').strip('_')

    def names(self):
        """(counter name, register offset) of every element read."""
        register = self.register
        if register.labels is None:
            return [(self.name, register.offset)]
        return [(self.name.format(label=register.labels.names[i]),
                 register.at(i)) for i in register.indices]

    def read(self, read):
        """{name: value} through ``read(offset)``; LO before HI."""
        values = {}
        for name, offset in self.names():
            value = read(offset)
            if self.register.width == 64:
                value |= read(offset + 4) << 32
            values[name] = value
        return values


@dataclasses.dataclass(frozen=True)
class PortGuess:
    """One port of a module's ``[port_guesses]``: a flow of ``transport``
    (6 TCP, 17 UDP) with ``port`` at either end is guessed as class
    ``label`` (number ``number`` of its labels).
    """

    label: str
    number: int
    transport: int
    port: int


#: the transports a port guess names, and their IP protocol numbers
GUESS_TRANSPORTS = {'tcp': 6, 'udp': 17}

#: what a tenant setting's server property may be named: the module's name,
#: a colon, then letters, digits, '_', '-', '.' and more colons (nova takes
#: metadata keys of up to 255 characters)
SETTING_NAME = re.compile(r'[A-Za-z0-9_.-]+(:[A-Za-z0-9_.-]+)+')


@dataclasses.dataclass(frozen=True)
class Setting:
    """A register (or an array's element) a tenant may set at boot: the
    server property ``name`` holds an integer 0..maximum, written into
    ``field`` with the bits of ``enable`` set.  A register whose property
    a server does not have keeps its reset value.
    """

    name: str
    register: regs.Register
    #: the array element (0 for a single register)
    index: int
    field: regs.Field
    #: the mask of the fields set with any value
    enable: int = 0
    #: the property as the entry names it ({label}: an array's element)
    template: str = ''

    @property
    def offset(self):
        return self.register.at(self.index)

    @property
    def maximum(self):
        return self.field.mask >> self.field.low

    @property
    def mask(self):
        """The bits a write of the setting determines."""
        return self.field.mask | self.enable

    def value(self, number):
        """The register value for the setting's number (0..maximum)."""
        return number << self.field.low | self.enable


@dataclasses.dataclass(frozen=True)
class Block:
    """The register block every module shares (region_regs.v)."""

    name: str
    description: str
    path: pathlib.Path
    registers: regs.RegisterMap
    counters: tuple
    #: offsets from here up are the module's own
    module_offset: int
    module_offset_meaning: str


#: cycles without a beat after which a module holds nothing (longer than any
#: module's forwarding latency: the vTC's first beat leaves 41 cycles after
#: it came in); a module that works on after its frames left says how long
#: in its [hdl] quiet_cycles.  What the emulators clock after frames: their
#: simulated time stands still while nothing moves
QUIET_CYCLES = 64


@dataclasses.dataclass(frozen=True)
class AfterReset:
    """What the agent does after each reset of a module, before the tenant's
    settings: waits while a bit of a register is set (``wait_offset``,
    ``wait_mask``), then writes ``writes`` ((offset, value), in order), the
    last of which reads back its value.
    """

    wait_offset: int
    wait_mask: int
    writes: tuple
    #: what the writes are, for logs
    what: str


@dataclasses.dataclass(frozen=True)
class Module:
    """A reconfigurable module: ID, HDL, registers (the common block's
    and its own) and counters (its own).
    """

    name: str
    module_id: int
    version: int
    description: str
    frames: str
    path: pathlib.Path
    top: str
    sources: tuple
    data_width: int
    #: Verilog parameters every build gets besides ID, version and width
    parameters: dict
    registers: regs.RegisterMap
    #: the registers beyond the common block's
    own_registers: tuple
    counters: tuple
    labels: dict
    #: PortGuess entries, lowest class number (then transport, port) first
    port_guesses: tuple = ()
    #: Setting entries (what a tenant may set at boot), by offset
    settings: tuple = ()
    #: AfterReset, or None: nothing to do after a reset
    after_reset: AfterReset = None
    #: cycles without a beat after which it holds nothing and does nothing
    quiet_cycles: int = QUIET_CYCLES

    @property
    def directory(self):
        return self.path.parent

    def source_paths(self, rtl):
        """Its sources: beside the entry first, then in rtl (a source
        tree's hdl/rtl; no installed package carries the Verilog).
        """
        return resolve_sources(self.sources, self.directory, rtl)

    def include_dirs(self, rtl):
        return include_dirs(self.directory, rtl)

    @property
    def build_parameters(self):
        """Verilog parameters of every build of this module."""
        return dict(self.parameters, MODULE_ID=self.module_id,
                    MODULE_VERSION=self.version, DATA_WIDTH=self.data_width)


def read_toml(path):
    try:
        with open(path, 'rb') as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CatalogueError('%s: %s' % (path, exc)) from None


def _required(data, key, path, kind=None):
    if key not in data:
        raise CatalogueError('%s: %s is missing' % (path, key))
    value = data[key]
    if kind is not None and not isinstance(value, kind):
        raise CatalogueError('%s: %s must be a %s' % (path, key,
                                                      kind.__name__))
    return value


def _label_names(spec, path):
    """A label set's names: its own ``names``, or ``none`` then the names of
    the entries of a data file's table (``from = {file = "...", table =
    "...", field = "..."}``, the file beside the entry's folder), so that an
    element number is the entry's number plus one.
    """
    source = spec.get('from')
    if source is None:
        return tuple(_required(spec, 'names', path, list))
    where = pathlib.Path(path).parent / _required(source, 'file', path, str)
    table = read_toml(where).get(_required(source, 'table', path, str))
    field = _required(source, 'field', path, str)
    if not isinstance(table, list) or not all(
            isinstance(item, dict) and isinstance(item.get(field), str)
            for item in table):
        raise CatalogueError('%s: labels from %s: [[%s]] entries with a %s '
                             'string' % (path, where, source['table'],
                                         field))
    return ('none',) + tuple(item[field] for item in table)


#: what a label set's ``rows`` may say (registers.Labels.rows)
LABEL_ROWS = ('all', 'counted')


def _labels(data, path):
    labels = {}
    for key, spec in data.get('labels', {}).items():
        rows = spec.get('rows', 'all')
        if rows not in LABEL_ROWS:
            raise CatalogueError('%s: labels %s: rows = %r, not one of %s'
                                 % (path, key, rows, ', '.join(LABEL_ROWS)))
        labels[key] = regs.Labels(key=key,
                                  names=_label_names(spec, path),
                                  title=spec.get('title', key),
                                  heading=spec.get('heading', key),
                                  index=spec.get('index', 'i'),
                                  rows=rows)
    return labels


def _fields(specs, path):
    fields = []
    for spec in specs:
        high, low = _required(spec, 'bits', path, list)
        if not 31 >= high >= low >= 0:
            raise CatalogueError('%s: field %s bits out of range'
                                 % (path, spec.get('name')))
        fields.append(regs.Field(_required(spec, 'name', path, str),
                                 high, low, spec.get('meaning', '')))
    return tuple(fields)


def _register(spec, labels, path):
    name = _required(spec, 'name', path, str)
    where = '%s: register %s' % (path, name)
    access = spec.get('access', 'RO')
    width = spec.get('width', 32)
    offset = _required(spec, 'offset', path, int)
    if access not in ACCESS or width not in WIDTHS or offset % 4:
        raise CatalogueError('%s: access must be RO or RW, width 32 or 64,'
                             ' offset a multiple of 4' % where)
    array = spec.get('array')
    label_set, stride, first = None, 0, 0
    if array is not None:
        if 'labels' in array:
            label_set = labels.get(array['labels'])
            if label_set is None:
                raise CatalogueError('%s: no labels %s' % (where,
                                                           array['labels']))
        else:
            count = _required(array, 'count', where, int)
            label_set = regs.Labels(key=name, names=tuple(
                str(i) for i in range(count)))
        stride = _required(array, 'stride', where, int)
        first = array.get('first', 0)
        if stride < width // 8 or not 0 <= first < len(label_set.names):
            raise CatalogueError('%s: stride or first out of range' % where)
    return regs.Register(name=name, offset=offset, access=access,
                         width=width, meaning=spec.get('meaning', ''),
                         fields=_fields(spec.get('fields', ()), path),
                         labels=label_set, stride=stride, first=first)


def _check_overlaps(registers, path):
    words = {}
    for register in registers:
        for i in register.indices:
            for word in range(register.at(i), register.at(i)
                              + register.width // 8, 4):
                if word in words:
                    raise CatalogueError(
                        '%s: %s and %s both at 0x%X'
                        % (path, words[word], register.name, word))
                words[word] = register.name


def _counters(specs, register_map, path):
    counters = []
    for spec in specs:
        name = _required(spec, 'name', path, str)
        register = _required(spec, 'register', path, str)
        if register not in register_map:
            raise CatalogueError('%s: counter %s reads %s, which is not a '
                                 'register' % (path, name, register))
        is_array = register_map[register].labels is not None
        if is_array != ('{label}' in name):
            raise CatalogueError('%s: counter %s: {label} in the name '
                                 'goes with an array register' % (path, name))
        derived = {label: tuple(pair) for label, pair
                   in spec.get('derived', {}).items()}
        counters.append(Counter(name, register_map[register], derived,
                                spec.get('column')))
    return tuple(counters)


def _port_guesses(data, labels, path):
    """PortGuess entries of a [port_guesses] table, keyed by the labels of
    the module's classes.
    """
    spec = data.get('port_guesses')
    if not spec:
        return ()
    classes = labels.get('classes')
    if classes is None:
        raise CatalogueError('%s: port_guesses need [labels.classes]' % path)
    out = []
    for label, by_transport in spec.items():
        if label not in classes.names[1:]:
            raise CatalogueError('%s: port_guesses: %s is not a class'
                                 % (path, label))
        for transport, ports in by_transport.items():
            if transport not in GUESS_TRANSPORTS:
                raise CatalogueError('%s: port_guesses of %s: transport %s '
                                     'is not tcp or udp'
                                     % (path, label, transport))
            for port in ports:
                if not isinstance(port, int) or not 0 < port < 65536:
                    raise CatalogueError('%s: port_guesses of %s: %r is no '
                                         'port' % (path, label, port))
                out.append(PortGuess(label, classes.names.index(label),
                                     GUESS_TRANSPORTS[transport], port))
    out.sort(key=lambda g: (g.number, g.transport, g.port))
    seen = {}
    for guess in out:
        where = (guess.transport, guess.port)
        if where in seen:
            raise CatalogueError('%s: port_guesses: port %d of %s is also '
                                 '%s' % (path, guess.port, guess.label,
                                         seen[where]))
        seen[where] = guess.label
    return tuple(out)


def _settings(module_name, specs, register_map, path):
    """The Setting entries of the registers whose spec has a ``tenant``
    table: {property = "<module>:...{label}..." (an array's element label
    in it), field = "F", enable = ["E", ...]}.
    """
    out = []
    for spec in specs:
        tenant = spec.get('tenant')
        if tenant is None:
            continue
        register = register_map[spec['name']]
        where = '%s: tenant setting of %s' % (path, register.name)
        template = _required(tenant, 'property', where, str)
        if not register.writable_word:
            raise CatalogueError('%s: only a 32-bit RW register is set'
                                 % where)
        if (register.labels is not None) != ('{label}' in template):
            raise CatalogueError('%s: {label} in the property goes with an '
                                 'array register' % where)
        try:
            field = register.field(_required(tenant, 'field', where, str))
            enable = [register.field(name)
                      for name in tenant.get('enable', ())]
        except KeyError as exc:
            raise CatalogueError('%s: %s' % (where, exc.args[0])) from None
        mask = 0
        for extra in enable:
            if extra.mask & (field.mask | mask):
                raise CatalogueError('%s: enable field %s overlaps'
                                     % (where, extra.name))
            mask |= extra.mask
        for index in register.indices:
            name = template.format(label=register.labels.names[index]
                                   if register.labels else '')
            if (not SETTING_NAME.fullmatch(name) or len(name) > 255
                    or not name.startswith(module_name + ':')):
                raise CatalogueError(
                    '%s: property %r must be the module\'s name, a colon '
                    'and more (letters, digits, _ - . :)' % (where, name))
            out.append(Setting(name, register, index, field, mask,
                               template))
    names = [s.name for s in out]
    for name in names:
        if names.count(name) > 1:
            raise CatalogueError('%s: two tenant settings are %s'
                                 % (path, name))
    return tuple(sorted(out, key=lambda s: s.offset))


def _bit(register_map, text, where):
    """(Register, Field) of "REGISTER.FIELD"."""
    name, _, field = text.partition('.')
    if name not in register_map:
        raise CatalogueError('%s: %s is not a register' % (where, name))
    register = register_map[name]
    try:
        return register, register.field(field)
    except KeyError as exc:
        raise CatalogueError('%s: %s' % (where, exc.args[0])) from None


def _after_reset(data, register_map, path):
    """The AfterReset of an [after_reset] table: {wait_while =
    "REGISTER.FIELD", application_table = {file, address =
    "REGISTER.FIELD", data = "REGISTER", enable = "REGISTER.FIELD"}}: the
    application table's words (nova_fpga.catalogue.applications) each
    written at its address (bucket * ways + way, through the address field)
    then through the data register, then the enable bit set alone.
    """
    spec = data.get('after_reset')
    if spec is None:
        return None
    where = '%s: after_reset' % path
    register, field = _bit(register_map,
                           _required(spec, 'wait_while', where, str), where)
    table_spec = _required(spec, 'application_table', where, dict)
    file = path.parent / _required(table_spec, 'file', where, str)
    address, address_field = _bit(
        register_map, _required(table_spec, 'address', where, str), where)
    enable, enable_field = _bit(
        register_map, _required(table_spec, 'enable', where, str), where)
    data_name = _required(table_spec, 'data', where, str)
    if data_name not in register_map:
        raise CatalogueError('%s: %s is not a register' % (where, data_name))
    try:
        table = applications.load(file)
    except (OSError, tomllib.TOMLDecodeError, KeyError, ValueError) as exc:
        raise CatalogueError('%s: %s: %s' % (where, file, exc)) from None
    limit = address_field.mask >> address_field.low
    writes = []
    for bucket, ways in enumerate(table.words):
        for way, word in enumerate(ways):
            if not word:
                continue
            at = bucket * applications.TABLE_WAYS + way
            if at > limit:
                raise CatalogueError('%s: word %d does not fit %s.%s'
                                     % (where, at, address.name,
                                        address_field.name))
            writes += [(address.offset, at << address_field.low),
                       (register_map[data_name].offset, word)]
    writes.append((enable.offset, enable_field.mask))
    return AfterReset(
        wait_offset=register.offset, wait_mask=field.mask,
        writes=tuple(writes),
        what='the application table (%d words of %d applications, %s)'
        % (len(writes) // 2, len(table.applications), file.name))


def _quiet_cycles(hdl, path):
    value = hdl.get('quiet_cycles', QUIET_CYCLES)
    if type(value) is not int or not QUIET_CYCLES <= value < 2 ** 32:
        raise CatalogueError('%s: quiet_cycles must be an integer %d or more'
                             % (path, QUIET_CYCLES))
    return value


def load_block(path):
    """The common register block from its entry."""
    data = read_toml(path)
    registers = tuple(_register(spec, {}, path)
                      for spec in data.get('registers', ()))
    _check_overlaps(registers, path)
    register_map = regs.RegisterMap(registers)
    return Block(name=_required(data, 'name', path, str),
                 description=data.get('description', ''), path=path,
                 registers=register_map,
                 counters=_counters(data.get('counters', ()), register_map,
                                    path),
                 module_offset=_required(data, 'module_offset', path, int),
                 module_offset_meaning=data.get('module_offset_meaning', ''))


def _with_fields(register, fields):
    return dataclasses.replace(register, fields=register.fields + fields)


def load_module(path, common):
    """A module's entry; ``common`` is the Block its registers extend."""
    path = pathlib.Path(path)
    data = read_toml(path)
    hdl = _required(data, 'hdl', path, dict)
    labels = _labels(data, path)
    own = tuple(_register(spec, labels, path)
                for spec in data.get('registers', ()))
    for register in own:
        if register.offset < common.module_offset:
            raise CatalogueError('%s: %s is below 0x%X, in the common block'
                                 % (path, register.name,
                                    common.module_offset))
    shared = list(common.registers)
    for spec in data.get('common_fields', ()):
        target = _required(spec, 'register', path, str)
        if target not in common.registers:
            raise CatalogueError('%s: common_fields of %s, not a common '
                                 'register' % (path, target))
        extra = _fields([spec], path)
        shared = [_with_fields(r, extra) if r.name == target else r
                  for r in shared]
    _check_overlaps(tuple(shared) + own, path)
    register_map = regs.RegisterMap(tuple(shared) + own)
    name = _required(data, 'name', path, str)
    module_id = _required(data, 'module_id', path, int)
    if not 0 <= module_id < 0xFFFFFFFF:
        raise CatalogueError('%s: module_id must be a 32-bit value other '
                             'than 0xFFFFFFFF (not declared)' % path)
    return Module(
        name=name, module_id=module_id,
        version=_required(data, 'version', path, int),
        description=data.get('description', ''),
        frames=data.get('frames', ''), path=path,
        top=_required(hdl, 'top', path, str),
        sources=tuple(_required(hdl, 'sources', path, list)),
        data_width=hdl.get('data_width', 64),
        parameters=dict(hdl.get('parameters', {})),
        registers=register_map, own_registers=own,
        counters=_counters(data.get('counters', ()), register_map, path),
        labels=labels, port_guesses=_port_guesses(data, labels, path),
        settings=_settings(name, data.get('registers', ()), register_map,
                           path),
        after_reset=_after_reset(data, register_map, path),
        quiet_cycles=_quiet_cycles(hdl, path))


def rtl_dir(hdl_dir):
    """hdl/rtl of a source tree, from its hdl/ folder."""
    return pathlib.Path(hdl_dir) / 'rtl'


def resolve_sources(names, directory, rtl):
    """Source files by name: in directory (a catalogue entry's own folder)
    when there, else in rtl.
    """
    return [directory / name
            if directory is not None and (directory / name).exists()
            else pathlib.Path(rtl) / name for name in names]


def include_dirs(directory, rtl):
    """Where a module's `include files are: its own folder (when it has
    one) and the generated catalogue headers of rtl.
    """
    return ([directory] if directory is not None else []) + [
        pathlib.Path(rtl) / GENERATED]
