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
    assert 'unknown_flows' not in counters  # not a register
    assert 'unknown_guessed' not in counters
    classes = cat.by_name('vtc').registers.labels('CLASS_PACKETS')
    # the common pair, the table's own, then packets and bytes per class and
    # flows and guesses per class but unknown
    assert len(counters) == 2 + len(VTC_TABLE_COUNTERS) + 4 * len(classes) - 2
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
