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

"""Write everything the module catalogue determines, or check it is current.

    python hdl/generate.py            # write
    python hdl/generate.py --check    # exit 1 naming each stale file

The catalogue (nova_fpga/catalogue) is the one source of the module IDs,
register maps and counters; from it come the Verilog offsets the modules
include (hdl/rtl/generated/*_regs.vh), the Vivado module table
(hdl/vivado/modules.tcl) and the register tables of the documentation
(doc/source/reference/catalogue.rst, built by doc/ext/nova_fpga_docs.py
from register_tables() here).  The
reference shell's regions give one DFX partition wrapper each, from
hdl/vivado/rtl/partition.v.in.  --catalogue-dir adds entries (an operator's
modules), --out writes (or checks) under another directory.
"""
import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nova_fpga import catalogue  # noqa: E402
from nova_fpga.catalogue import entry  # noqa: E402
from nova_fpga.contract import shell  # noqa: E402

ME = 'hdl/generate.py'
RTL = ROOT / 'hdl' / 'rtl'
PARTITION_TEMPLATE = ROOT / 'hdl' / 'vivado' / 'rtl' / 'partition.v.in'


def _shown(path):
    """A path as the headers show it: repository-relative when inside."""
    path = pathlib.Path(path)
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def _from_rtl(path):
    """A path as the Tcl table gives it: relative to hdl/rtl when inside."""
    try:
        return str(pathlib.Path(path).relative_to(RTL)) or '.'
    except ValueError:
        return str(path)


# -- Verilog -------------------------------------------------------------

def _localparams(registers, fields, labels, offsets=()):
    lines = []
    offsets = list(offsets)
    for register in registers:
        if register.width == 64 and register.labels is None:
            offsets += [(register.name + '_LO', register.offset),
                        (register.name + '_HI', register.offset + 4)]
        else:
            offsets.append((register.name, register.offset))
    offsets.sort(key=lambda item: item[1])
    if offsets:
        width = max(len(name) for name, _ in offsets) + 4
        lines.append('localparam [AXIL_ADDR_WIDTH-1:0]')
        lines += ["    %s = 'h%03X" % (('REG_' + name).ljust(width), offset)
                  for name, offset in offsets]
        lines[1:] = [line + ',' for line in lines[1:-1]] + [lines[-1] + ';']
    for register, field in fields:
        lines.append('localparam %s_%s = %d;' % (register, field.name,
                                                 field.low))
        if field.high != field.low:
            lines.append('localparam %s_%s_WIDTH = %d;' % (
                register, field.name, field.high - field.low + 1))
    for key, label_set in labels.items():
        lines.append('// %s: %s' % (key, ', '.join(label_set.names)))
        lines.append('localparam %s = %d;' % (key.upper(),
                                              len(label_set.names)))
    return lines


def verilog_header(source, what, lines):
    return '\n'.join([
        '// Generated from %s by %s: do not edit.' % (_shown(source), ME),
        '// %s: register offsets (bytes) and field bit positions, included'
        % what,
        '// inside the module (the offsets are AXIL_ADDR_WIDTH bits wide).',
        '/* verilator lint_off UNUSEDPARAM */',
        *lines,
        '/* verilator lint_on UNUSEDPARAM */', ''])


def common_header(block):
    registers = list(block.registers)
    fields = [(r.name, f) for r in registers for f in r.fields]
    # REG_USER: the first of the module's own offsets
    lines = _localparams(registers, fields, {},
                         [('USER', block.module_offset)])
    return verilog_header(block.path, 'The common register block', lines)


def module_header(module, common):
    fields = [(r.name, f) for r in module.registers for f in r.fields
              if r.name not in common.registers
              or f not in common.registers[r.name].fields]
    lines = _localparams(module.own_registers, fields, module.labels)
    return verilog_header(module.path, 'Module %s' % module.name, lines)


def classes_header(module):
    """The port guesses of a module's [port_guesses], for its port-guess
    logic (vtc_port_guess.v): entry i's port, transport and class.
    """
    guesses = module.port_guesses
    count = len(guesses)

    def concat(width, values):
        return "{%s}" % ', '.join("%d'd%d" % (width, v)
                                  for v in reversed(values))
    classes = module.labels['classes'].names
    lines = ['// class numbers']
    lines += ['localparam CLASS_%s = %d;' % (name.upper(), number)
              for number, name in enumerate(classes)]
    lines += [
        '// port guesses, lowest class number first (the first entry whose',
        '// transport and port match wins): entry i in bits [16i+15:16i]',
        '// of PORT_GUESS_PORTS, [i] of PORT_GUESS_TCP (1 TCP, 0 UDP),',
        '// [4i+3:4i] of PORT_GUESS_CLASSES',
    ]
    lines += ['//   %s %s %d' % (g.label, 'tcp' if g.transport == 6
                                 else 'udp', g.port) for g in guesses]
    lines += [
        'localparam PORT_GUESSES = %d;' % count,
        'localparam [16*PORT_GUESSES-1:0] PORT_GUESS_PORTS = %s;'
        % concat(16, [g.port for g in guesses]),
        'localparam [PORT_GUESSES-1:0] PORT_GUESS_TCP = %s;'
        % concat(1, [int(g.transport == 6) for g in guesses]),
        'localparam [4*PORT_GUESSES-1:0] PORT_GUESS_CLASSES = %s;'
        % concat(4, [g.number for g in guesses]),
    ]
    return '\n'.join([
        '// Generated from %s by %s: do not edit.' % (_shown(module.path), ME),
        '// Module %s: its class numbers and port guesses, included inside'
        ' the module.'
        % module.name,
        '/* verilator lint_off UNUSEDPARAM */',
        *lines,
        '/* verilator lint_on UNUSEDPARAM */', ''])


def partitions(regions):
    template = PARTITION_TEMPLATE.read_text()
    head = ('// Generated from %s (region %%s) by %s: do not edit.\n'
            % (_shown(PARTITION_TEMPLATE), ME))
    return {'hdl/vivado/rtl/%s_partition.v' % region:
            head % region + template.replace('@REGION@', region)
            for region in regions}


# -- Vivado --------------------------------------------------------------

def _tcl_word(text):
    return '{%s}' % text if re.search(r'[\s{}"\[\]$;\\]', text) else text


def vivado_modules(cat):
    lines = [
        '# Generated from the module catalogue (%s) by %s: do not edit.'
        % (', '.join(_shown(m.path) for m in cat), ME),
        '#',
        '# Reconfigurable modules: name -> Verilog top, module ID and '
        'version,',
        '# sources and include directories (relative to hdl/rtl, or '
        'absolute).',
        '# Sourced by settings.tcl.',
        'set nova_modules [dict create \\']
    modules = list(cat)
    for number, module in enumerate(modules):
        paths = module.source_paths(RTL)
        dirs = list(dict.fromkeys([p.parent for p in paths]
                                  + [RTL / entry.GENERATED]))
        lines += [
            '    %s [dict create \\' % module.name,
            '        top %s \\' % module.top,
            '        module_id 0x%08X \\' % module.module_id,
            '        version 0x%08X \\' % module.version,
            '        sources {%s} \\' % ' '.join(
                _tcl_word(_from_rtl(p)) for p in paths),
            '        include_dirs {%s}]%s' % (
                ' '.join(_tcl_word(_from_rtl(d)) for d in dirs),
                ' \\' if number < len(modules) - 1 else ']')]
    return '\n'.join(lines) + '\n'


# -- the documentation's register tables ---------------------------------

def _bits(field):
    if field.high == field.low:
        return 'bit %d `%s`' % (field.low, field.name)
    return 'bits %d:%d `%s`' % (field.high, field.low, field.name)


def _tenant(register, settings):
    """What a tenant sets of the register: its server property (an
    array's with the element's label as <index>).
    """
    for setting in settings:
        if setting.register == register:
            return 'a tenant sets it: server property `%s`' % (
                setting.template.format(label='<%s>' % (
                    register.labels.index if register.labels else '')))
    return ''


def _row(register, fields=None, settings=()):
    fields = register.fields if fields is None else fields
    text = '; '.join(filter(None, ['%s: %s' % (_bits(f), f.meaning)
                                   for f in fields] + [
        register.meaning, _tenant(register, settings)]))
    wide = register.width == 64
    if register.labels is None:
        if wide:
            offset = '0x%02X / 0x%02X' % (register.offset,
                                          register.offset + 4)
            name = '`%s_LO` / `%s_HI`' % (register.name, register.name)
            text += ' (64 bits)'
        else:
            offset, name = '0x%02X' % register.offset, '`%s`' % register.name
    else:
        index = register.labels.index
        offset = '0x%02X + %d·%s' % (register.offset, register.stride, index)
        name = '`%s%s[%s]`' % (register.name,
                               '_LO/HI' if wide else '', index)
        text = '%s = %d..%d%s: %s' % (
            index, register.first, len(register.labels.names) - 1,
            ', 64 bits' if wide else '', text)
    return '| %s | %s | %s | %s |' % (offset, name, register.access, text)


TABLE_HEAD = ['| offset | name | access | |', '|---|---|---|---|']


def _generated(source):
    return '<!-- generated from %s by %s: do not edit -->' % (source, ME)


def register_tables(cat):
    """Table name ('modules', 'common:registers', '<module>:registers') ->
    its Markdown-style rows, which the documentation's catalogue page turns
    into tables.
    """
    tables = {'common:registers': [_generated(_shown(cat.common.path))]
              + TABLE_HEAD + [
        _row(r) for r in cat.common.registers] + [
        '| 0x%02X and up | | | %s |' % (cat.common.module_offset,
                                        cat.common.module_offset_meaning)]}
    tables['modules'] = [
        _generated('the module catalogue'),
        '| module | module ID | version | top | what | frames |',
        '|---|---|---|---|---|---|'] + [
        '| `%s` | `0x%08X` | %d.%d | `%s` | %s | %s |' % (
            m.name, m.module_id, m.version >> 16, m.version & 0xFFFF, m.top,
            m.description, m.frames) for m in cat]
    for module in cat:
        rows = []
        for register in module.registers:
            if register.name in cat.common.registers:
                extra = [f for f in register.fields
                         if f not in cat.common.registers[register.name]
                         .fields]
                if extra:
                    rows.append(_row(register, extra))
            else:
                rows.append(_row(register, settings=module.settings))
        if rows:
            tables['%s:registers' % module.name] = [
                _generated(_shown(module.path))] + TABLE_HEAD + rows
    return tables


# -- all of it -----------------------------------------------------------

def artefacts(cat, regions):
    """Repository-relative path -> generated text."""
    files = {'hdl/rtl/generated/common_regs.vh': common_header(cat.common)}
    for module in cat:
        if module.own_registers or module.labels:
            files['hdl/rtl/generated/%s_regs.vh' % module.name] = \
                module_header(module, cat.common)
        if module.port_guesses:
            files['hdl/rtl/generated/%s_classes.vh' % module.name] = \
                classes_header(module)
    files['hdl/vivado/modules.tcl'] = vivado_modules(cat)
    files.update(partitions(regions))
    return files


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--check', action='store_true',
                        help='write nothing; exit 1 if a file is stale')
    parser.add_argument('--catalogue-dir', action='append', default=[],
                        help='a directory of extra catalogue entries')
    parser.add_argument('--out', type=pathlib.Path, default=ROOT,
                        help='write under this directory, not the '
                             'repository')
    args = parser.parse_args(argv)
    cat = catalogue.load(args.catalogue_dir)
    regions = [r.name for r in shell.load(shell.REFERENCE).regions]
    stale = []
    for name, text in artefacts(cat, regions).items():
        path = args.out / name
        current = path.read_text() if path.exists() else None
        if current == text:
            continue
        stale.append(name)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    for name in stale:
        print('%s: %s' % ('stale' if args.check else 'written', name))
    return 1 if args.check and stale else 0


if __name__ == '__main__':
    sys.exit(main())
