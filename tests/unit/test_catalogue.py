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

"""The module catalogue: entries load and are checked, modules are found
by ID and name, counters are read as the hardware wants (ID first, LO
before HI), and a board can use it without OpenStack."""
import subprocess
import sys

import pytest

from nova_fpga import catalogue
from nova_fpga.catalogue import applications

LOOPBACK_ID = 0x4E460001
VTC_ID = 0x4E460002


def test_shipped_modules_by_id_and_name():
    cat = catalogue.load()
    assert [m.name for m in cat] == ['loopback', 'vtc']
    assert cat.by_id(VTC_ID) is cat.by_name('vtc')
    assert cat.by_name('loopback').module_id == LOOPBACK_ID
    assert cat.get(0x12345678) is None
    with pytest.raises(catalogue.UnknownModule, match='0x12345678'):
        cat.by_id(0x12345678)


def test_register_offsets():
    regs = catalogue.load().by_name('vtc').registers
    assert (regs.MODULE_ID, regs.STATUS, regs.FRAMES_LO, regs.FRAMES_HI) \
        == (0, 0xC, 0x10, 0x14)
    assert regs.at('POLICY', 'tls') == 0x48
    assert regs.at('CLASS_BYTES', 'ntp') == 0x100 + 8 * 10
    assert regs.bit('STATUS', 'TABLE_CLEARING') == 4
    assert regs.bit('POLICY', 'DSCP') == 0x3F
    with pytest.raises(IndexError):
        regs.at('POLICY', 'unknown')  # not mapped
    with pytest.raises(AttributeError):
        regs.POLICY_HI  # not a 64-bit register


#: the vTC's counters that are not per class
VTC_TABLE_COUNTERS = (
    'flows_seen', 'flows_classified', 'flows_guessed', 'flows_refined',
    'flow_table_occupancy',
    'flow_insertions', 'flow_evictions', 'flow_failed_insertions',
    'unparsed_frames', 'oversize_frames', 'fragment_frames', 'fragment_bytes',
    'flows_named', 'names_skipped',
)


def fake_read(module_id, log):
    def read(offset):
        log.append(offset)
        return module_id if offset == 0 else offset * 3 + 1
    return read


def test_counters_read_id_first_and_lo_before_hi():
    cat = catalogue.load()
    log = []
    counters = cat.read_counters(VTC_ID, fake_read(VTC_ID, log))
    assert log[0] == 0
    for lo in (0x10, 0x18, 0x80, 0x100 + 8 * 10):
        assert log.index(lo) + 1 == log.index(lo + 4)
    assert counters['frames'] == (0x14 * 3 + 1) << 32 | (0x10 * 3 + 1)
    assert counters['flows_seen'] == 0x180 * 3 + 1
    assert counters['ntp_flows'] == (0x1C0 + 4 * 10) * 3 + 1
    assert counters['ntp_guessed'] == (0x200 + 4 * 10) * 3 + 1
    assert counters['flows_guessed'] == 0x1B0 * 3 + 1
    assert counters['flows_refined'] == 0x1B4 * 3 + 1
    assert counters['flows_named'] == 0x1B8 * 3 + 1
    assert 'unknown_flows' not in counters  # not a register
    assert 'unknown_guessed' not in counters
    classes = cat.by_name('vtc').registers.labels('CLASS_PACKETS')
    applications = cat.by_name('vtc').registers.labels('APP_FLOWS')
    # by application: flows, packets and bytes of each but none
    assert counters['app_youtube_flows'] == 0x404 * 3 + 1
    assert counters['app_youtube_bytes'] == \
        (0x80C * 3 + 1) << 32 | (0x808 * 3 + 1)
    assert log.index(0x608) + 1 == log.index(0x60C)
    assert 'app_none_flows' not in counters
    # the common pair, the table's own, then packets and bytes per class and
    # flows and guesses per class but unknown, then three per application
    # but none
    assert len(counters) == 2 + len(VTC_TABLE_COUNTERS) \
        + 4 * len(classes) - 2 + 3 * (len(applications) - 1)
    assert set(VTC_TABLE_COUNTERS) <= set(counters)
    with pytest.raises(ValueError, match='0x4E460001'):
        cat.read_counters(VTC_ID, fake_read(LOOPBACK_ID, []))
    # a module the catalogue does not know: the common counters only
    assert set(cat.read_counters(0x12345678, fake_read(0x12345678, []))) == \
        {'frames', 'bytes'}


ENTRY = '''
name = "%s"
module_id = %s
version = 1
[hdl]
top = "x"
sources = ["x.v"]
%s
'''
REGISTER = '[[registers]]\nname = "%s"\noffset = %d\n'


def test_port_guesses_and_counter_columns():
    vtc = catalogue.load().by_name('vtc')
    guesses = {(g.transport, g.port): g.label for g in vtc.port_guesses}
    assert guesses[(6, 443)] == 'tls' and guesses[(17, 443)] == 'quic'
    assert guesses[(17, 53)] == guesses[(6, 53)] == 'dns'
    numbers = [g.number for g in vtc.port_guesses]
    assert numbers == sorted(numbers)  # the lowest class first
    assert all(vtc.labels['classes'].names[g.number] == g.label
               for g in vtc.port_guesses)
    columns = {c.name: c.column for c in vtc.counters}
    assert columns['{label}_flows'] == 'classified'
    assert columns['{label}_guessed'] == 'guessed'
    assert columns['{label}_packets'] == 'packets'  # by default, the name


CLASSES = '[labels.classes]\nnames = ["unknown", "a", "b"]\n'


@pytest.mark.parametrize('name,module_id,extra,message', [
    ('bad', '0x4E46AAAA', '[port_guesses]\na = {tcp = [80]}\n',
     'need \\[labels.classes\\]'),
    ('bad', '0x4E46AAAA', CLASSES + '[port_guesses]\nc = {tcp = [80]}\n',
     'c is not a class'),
    ('bad', '0x4E46AAAA', CLASSES + '[port_guesses]\nunknown = {tcp = [80]}\n',
     'unknown is not a class'),
    ('bad', '0x4E46AAAA', CLASSES + '[port_guesses]\na = {sctp = [80]}\n',
     'not tcp or udp'),
    ('bad', '0x4E46AAAA', CLASSES + '[port_guesses]\na = {tcp = [70000]}\n',
     'is no port'),
    ('bad', '0x4E46AAAA', CLASSES
     + '[port_guesses]\na = {tcp = [80]}\nb = {tcp = [80]}\n',
     'port 80 of b is also a'),
])
def test_bad_port_guesses_are_refused(tmp_path, name, module_id, extra,
                                      message):
    (tmp_path / 'mine.toml').write_text(ENTRY % (name, module_id, extra))
    with pytest.raises(catalogue.CatalogueError, match=message):
        catalogue.load([tmp_path])


@pytest.mark.parametrize('name,module_id,extra,message', [
    ('loopback2', '0x4E460001', '', 'both declare'),
    ('bad', '0x4E46AAAA', REGISTER % ('A', 0x10), 'below 0x20'),
    ('bad', '0x4E46AAAA', REGISTER % ('A', 0x20) + 'width = 64\n'
     + REGISTER % ('B', 0x24), 'both at 0x24'),
    ('bad', '0x4E46AAAA', '[[counters]]\nname = "c"\nregister = "NOPE"\n',
     'not a register'),
    ('bad', '0xFFFFFFFF', '', 'not declared'),
    ('bad', '0x4E46AAAA', REGISTER % ('A', 0x22), 'multiple of 4'),
])
def test_bad_entries_are_refused_naming_the_file(
        tmp_path, name, module_id, extra, message):
    (tmp_path / 'mine.toml').write_text(ENTRY % (name, module_id, extra))
    with pytest.raises(catalogue.CatalogueError, match=message) as exc:
        catalogue.load([tmp_path])
    assert 'mine.toml' in str(exc.value) or 'both declare' in str(exc.value)


def test_missing_directory_is_refused(tmp_path):
    with pytest.raises(catalogue.CatalogueError, match='does not exist'):
        catalogue.load([tmp_path / 'nothing'])


BLOCKER = r'''
import importlib.abc, sys
BLOCKED = ('nova', 'glance', 'glance_store', 'oslo_config', 'oslo_messaging',
           'oslo_log')
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in BLOCKED:
            raise ImportError('blocked on a board: ' + name)
sys.meta_path.insert(0, Block())
from nova_fpga import catalogue
print(len(catalogue.load().read_counters(0x4E460001, lambda o: 0x4E460001)))
'''


def test_catalogue_imports_without_openstack():
    out = subprocess.run([sys.executable, '-c', BLOCKER],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == '2'


def test_vtc_tenant_settings_are_its_policy_per_class_and_application():
    vtc = catalogue.load().by_name('vtc')
    regs = vtc.registers
    classes = regs.labels('POLICY')
    # one per class with a policy entry, from the catalogue's class list,
    # then one per application of the application table
    apps = applications.load().applications
    assert regs.labels('APP_POLICY') == ('none',) + tuple(apps)
    assert [s.name for s in vtc.settings] == [
        'vtc:dscp:%s' % c for c in classes[1:]] + [
        'vtc:dscp:app:%s' % a for a in apps]
    youtube = {s.name: s for s in vtc.settings}['vtc:dscp:app:youtube']
    assert youtube.offset == regs.at('APP_POLICY', 'youtube') == 0x304
    assert youtube.value(34) == 0xC0 | 34
    sip = {s.name: s for s in vtc.settings}['vtc:dscp:sip']
    assert sip.offset == regs.at('POLICY', 'sip') == 0x40 + 4 * 6
    assert sip.maximum == 63
    assert sip.value(46) == regs.bit('POLICY', 'ENABLE') | 46 == 0xAE
    assert sip.value(0) == 0x80  # marks with DSCP 0 (a class reset to BE)
    assert sip.mask == 0xBF
    assert catalogue.load().by_name('loopback').settings == ()


def test_settings_of_server_properties():
    cat = catalogue.load()
    regs = cat.by_name('vtc').registers
    settings = cat.settings_of(VTC_ID, {
        'vtc:dscp:sip': '46', 'vtc:dscp:smtp': '0', 'vtc:dscp:tls': '63',
        # not in a module's namespace: a tenant's own metadata
        'owner': 'bob', 'vtcx:dscp:sip': 'x', 'vtc': 'y', 'loop:y': 'z'})
    assert settings == {'vtc:dscp:sip': 46, 'vtc:dscp:smtp': 0,
                        'vtc:dscp:tls': 63}
    writes = cat.register_writes(VTC_ID, settings)
    assert [(s.offset, value) for s, value in writes] == [
        (regs.at('POLICY', 'tls'), 0xBF), (regs.at('POLICY', 'sip'), 0xAE),
        (regs.at('POLICY', 'smtp'), 0x80)]
    assert cat.settings_of(VTC_ID, {}) == {}
    assert cat.settings_of(LOOPBACK_ID, {'owner': 'bob'}) == {}
    assert cat.settings_of(None, {}) == {}


@pytest.mark.parametrize('module_id,properties,message', [
    (VTC_ID, {'vtc:dscp:sipp': '46'},
     'vtc:dscp:sipp is not a setting of module vtc \\(it takes '
     'vtc:dscp:http, '),
    (VTC_ID, {'vtc:dscp:unknown': '46'},
     'vtc:dscp:unknown is not a setting of module vtc'),
    (VTC_ID, {'vtc:dscp:sip': '64'}, 'vtc:dscp:sip=64: .* 0..63'),
    (VTC_ID, {'vtc:dscp:sip': '-1'}, 'must be a decimal integer'),
    (VTC_ID, {'vtc:dscp:sip': 'EF'}, "vtc:dscp:sip='EF'"),
    (VTC_ID, {'vtc:dscp:sip': ' 46'}, 'must be a decimal integer'),
    (VTC_ID, {'vtc:dscp:sip': '46.0'}, 'must be a decimal integer'),
    (VTC_ID, {'vtc:dscp:sip': '0x2e'}, 'must be a decimal integer'),
    (LOOPBACK_ID, {'vtc:dscp:sip': '46'},
     'vtc:dscp:sip is not a setting of module loopback \\(it has none\\)'),
    (None, {'vtc:dscp:sip': '46'}, 'declares no module'),
    (0x12345678, {'vtc:dscp:sip': '46'},
     '0x12345678, which the module catalogue does not know'),
])
def test_bad_settings_are_refused_naming_them(module_id, properties,
                                              message):
    with pytest.raises(catalogue.SettingError, match=message):
        catalogue.load().settings_of(module_id, properties)


@pytest.mark.parametrize('settings', [
    {'vtc:dscp:sip': True}, {'vtc:dscp:sip': '46'}, {'vtc:dscp:sip': 46.0},
    {'vtc:dscp:sip': -1}, {'vtc:dscp:sip': 64}, {'vtc:dscp:sip': None},
    {'vtc:dscp:nope': 1}, {'owner': 1}, {1: 1}, [('vtc:dscp:sip', 46)],
    'vtc:dscp:sip=46',
])
def test_register_writes_take_only_the_modules_settings(settings):
    # what an agent checks a load's settings with: exact types
    with pytest.raises(catalogue.SettingError):
        catalogue.load().register_writes(VTC_ID, settings)


SETTABLE = ('[[registers]]\nname = "A"\noffset = 0x20\naccess = "%s"\n'
            'fields = [{name = "V", bits = [3, 0]}, '
            '{name = "E", bits = [%d, %d]}]\n'
            'tenant = {property = "%s", field = "%s", enable = ["E"]}\n')


def test_a_module_entry_declares_tenant_settings(tmp_path):
    (tmp_path / 'mine.toml').write_text(ENTRY % (
        'mine', '0x4E46AAAA', SETTABLE % ('RW', 4, 4, 'mine:v', 'V')))
    cat = catalogue.load([tmp_path])
    setting, = cat.by_name('mine').settings
    assert (setting.name, setting.offset, setting.maximum,
            setting.value(5)) == ('mine:v', 0x20, 15, 0x15)
    assert cat.settings_of(0x4E46AAAA, {'mine:v': '15'}) == {'mine:v': 15}


@pytest.mark.parametrize('access,high,low,prop,field,message', [
    ('RO', 4, 4, 'bad:v', 'V', 'only a 32-bit RW register'),
    ('RW', 4, 4, 'other:v', 'V', "'other:v' must be the module's name"),
    ('RW', 4, 4, 'bad', 'V', "'bad' must be the module's name"),
    ('RW', 4, 4, 'bad:v w', 'V', "must be the module's name"),
    ('RW', 4, 4, 'bad:{label}', 'V', '{label} in the property goes with an '
     'array register'),
    ('RW', 4, 4, 'bad:v', 'W', 'has no field W'),
    ('RW', 3, 3, 'bad:v', 'V', 'enable field E overlaps'),
])
def test_bad_tenant_settings_are_refused(tmp_path, access, high, low, prop,
                                         field, message):
    (tmp_path / 'mine.toml').write_text(ENTRY % (
        'bad', '0x4E46AAAA', SETTABLE % (access, high, low, prop, field)))
    with pytest.raises(catalogue.CatalogueError, match=message) as exc:
        catalogue.load([tmp_path])
    assert 'mine.toml' in str(exc.value)


def test_vtc_after_reset_loads_the_application_table():
    vtc = catalogue.load().by_name('vtc')
    regs = vtc.registers
    steps = vtc.after_reset
    assert (steps.wait_offset, steps.wait_mask) == (
        regs.STATUS, regs.bit('STATUS', 'TABLE_CLEARING'))
    table = applications.load()
    words = {(bucket, way): word
             for bucket, ways in enumerate(table.words)
             for way, word in enumerate(ways) if word}
    *pairs, last = steps.writes
    assert last == (regs.NAME_TABLE, regs.bit('NAME_TABLE', 'NAMES_ON'))
    written = {}
    for (at_offset, address), (data_offset, word) in zip(pairs[::2],
                                                         pairs[1::2]):
        assert (at_offset, data_offset) == (regs.NAME_TABLE,
                                            regs.NAME_TABLE_DATA)
        written[divmod(address, applications.TABLE_WAYS)] = word
    assert written == words and len(pairs) == 2 * len(words)
    assert vtc.quiet_cycles > catalogue.entry.QUIET_CYCLES
    loopback = catalogue.load().by_name('loopback')
    assert loopback.after_reset is None
    assert loopback.quiet_cycles == catalogue.entry.QUIET_CYCLES


APPS = """
[[applications]]
name = "one"
suffixes = ["one.example"]

[[applications]]
name = "two"
labels = ["two"]
"""
TABLE_ENTRY = ("""
[labels.apps]
from = {file = "../apps.toml", table = "applications", field = "name"}

[[registers]]
name = "AT"
offset = 0x20
access = "RW"
fields = [{name = "ON", bits = [31, 31]}, {name = "ADDR", bits = [11, 0]}]

[[registers]]
name = "DATA"
offset = 0x24
access = "RW"

[[registers]]
name = "P"
offset = 0x40
access = "RW"
array = {labels = "apps", stride = 4, first = 1}

[after_reset]
wait_while = "%s"
application_table = {file = "../apps.toml", address = "AT.ADDR", """
               """data = "DATA", enable = "AT.ON"}
""")


def test_labels_and_the_table_after_a_reset_from_a_data_file(tmp_path):
    # the shipped layout: the data file beside the entries' folder
    (tmp_path / 'apps.toml').write_text(APPS)
    entries = tmp_path / 'modules'
    entries.mkdir()
    (entries / 'mine.toml').write_text(ENTRY % (
        'mine', '0x4E46AAAA', 'quiet_cycles = 100\n'
        + TABLE_ENTRY % 'STATUS.BUSY'))
    with pytest.raises(catalogue.CatalogueError, match='has no field BUSY'):
        catalogue.load([entries])
    (entries / 'mine.toml').write_text(ENTRY % (
        'mine', '0x4E46AAAA', 'quiet_cycles = 100\n'
        + TABLE_ENTRY % 'AT.ON'))
    mine = catalogue.load([entries]).by_name('mine')
    assert mine.registers.labels('P') == ('none', 'one', 'two')
    assert mine.registers.at('P', 'two') == 0x48
    assert mine.quiet_cycles == 100
    writes = mine.after_reset.writes
    assert len(writes) == 2 * 2 + 1 and writes[-1] == (0x20, 1 << 31)
    assert [offset for offset, _ in writes] == [0x20, 0x24] * 2 + [0x20]


@pytest.mark.parametrize('apps,extra,message', [
    ('[[applications]]\nsuffixes = ["x.example"]\n', '',
     'entries with a name string'),
    (APPS + '[[applications]]\nname = "bad"\nsuffixes = ["a..b"]\n', '',
     "suffix 'a..b': not a host name"),
    (APPS, 'quiet_cycles = 10\n', 'quiet_cycles must be an integer 64'),
])
def test_bad_data_files_and_quiet_cycles_are_refused(tmp_path, apps, extra,
                                                     message):
    (tmp_path / 'apps.toml').write_text(apps)
    entries = tmp_path / 'modules'
    entries.mkdir()
    (entries / 'mine.toml').write_text(ENTRY % (
        'mine', '0x4E46AAAA', extra + TABLE_ENTRY % 'AT.ON'))
    with pytest.raises(catalogue.CatalogueError, match=message) as exc:
        catalogue.load([entries])
    assert 'mine.toml' in str(exc.value)


def test_label_rows_are_all_or_counted(tmp_path):
    (tmp_path / 'apps.toml').write_text(APPS)
    entry = ENTRY % ('mine', '0x4E46AAAA', TABLE_ENTRY % 'AT.ON')

    def load(rows):
        entries = tmp_path / ('modules-%s' % rows)
        entries.mkdir()
        (entries / 'mine.toml').write_text(entry if rows is None else (
            entry.replace('field = "name"}',
                          'field = "name"}\nrows = "%s"' % rows)))
        return catalogue.load([entries]).by_name('mine').labels['apps']

    assert load(None).rows == 'all'
    assert load('counted').rows == 'counted'
    with pytest.raises(catalogue.CatalogueError,
                       match="labels apps: rows = 'some', not one of all, "
                             "counted") as exc:
        load('some')
    assert 'mine.toml' in str(exc.value)
    assert catalogue.load().by_name('vtc').labels['applications'].rows == \
        'counted'
