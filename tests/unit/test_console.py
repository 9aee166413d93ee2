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

"""A region server's console log shows a module's counters as its
catalogue entry describes them: the vTC's classes as a table (unknown's
flows derived), its other counters in a line, anything else by name."""
import re

from nova_fpga import catalogue
from nova_fpga.contract import reports
from nova_fpga.virt import console

VTC_ID = 0x4E460002


def vtc_stats():
    def read(offset):
        return VTC_ID if offset == 0 else 0

    counters = catalogue.load().read_counters(VTC_ID, read)
    counters.update(frames=30, bytes=4000, flows_seen=7, flows_classified=5,
                    quic_packets=12, quic_bytes=3000, quic_flows=2,
                    flows_guessed=1, tls_guessed=1,
                    unknown_packets=18, unknown_bytes=1000)
    return reports.RegionStats(
        region='rp1', state='ACTIVE', module_id='0x4E460002',
        module=dict(counters, error_note='x'), log=['loaded'],
        dataplane={reports.FRAMES_IN: 30})


def test_vtc_counters_as_a_class_table():
    text = console.render('board0', vtc_stats(), catalogue.load())
    lines = text.splitlines()
    assert lines[:3] == ['board board0 region rp1: ACTIVE, module 0x4E460002',
                         'loaded', 'module counters: frames 30, bytes 4000']
    assert lines[3] == 'traffic classes:'
    # guesses by port beside the classified flows, as nDPI reports them
    assert lines[4].split() == ['class', 'classified', 'guessed', 'packets',
                                'bytes']
    classes = catalogue.load().by_name('vtc').registers.labels(
        'CLASS_PACKETS')
    end = 5 + len(classes)
    rows = {line.split()[0]: line.split()[1:] for line in lines[5:end]}
    assert list(rows) == list(classes)
    # flows seen - classified; no guess counter for unknown
    assert rows['unknown'] == ['2', '-', '18', '1000']
    assert rows['quic'] == ['2', '0', '12', '3000']
    assert rows['tls'] == ['0', '1', '0', '0']
    assert re.match(r'^  quic +2 +0 +12 +3000$', lines[10])
    # then the applications (a table of their own), then the scalars
    assert lines[end] == 'applications:'
    scalars = lines[end + 3]
    assert scalars.startswith('  flows seen 7, flows classified 5, '
                              'flows guessed 1, flows refined 0, ')
    assert '  error_note = x' in lines
    assert lines[-2:] == ['data plane counters:', '  frames_in = 30']


def test_module_without_own_counters_and_no_counters():
    cat = catalogue.load()
    stats = reports.RegionStats(region='rp0', state='ACTIVE',
                                module_id='0x4E460001',
                                module={'frames': 1, 'bytes': 60})
    assert console.render('b', stats, cat).splitlines()[1:] == [
        'module counters: frames 1, bytes 60']
    stats.module, stats.module_id = {}, None
    assert console.render('b', stats, cat).splitlines()[1:] == []


def test_vtc_applications_table_shows_the_counted_ones():
    """The applications are a long list (the table file's): the console's
    table by application shows those with a count, and how many more it
    leaves out.
    """
    stats = vtc_stats()
    stats.module.update(app_facebook_flows=3, app_facebook_packets=40,
                        app_facebook_bytes=12000, app_youtube_packets=2,
                        app_youtube_bytes=1400)
    lines = console.render('board0', stats, catalogue.load()).splitlines()
    start = lines.index('applications:')
    assert lines[start + 1].split() == ['application', 'flows', 'packets',
                                        'bytes']
    rows = [line.split() for line in lines[start + 2:start + 4]]
    # in the table file's order
    assert rows == [['youtube', '0', '2', '1400'],
                    ['facebook', '3', '40', '12000']]
    applications = catalogue.load().by_name('vtc').registers.labels(
        'APP_FLOWS')
    # 'none' is no element read (APP_* start at 1): not among them
    assert lines[start + 4] == '  (%d more: none counted)' % (
        len(applications) - 3)
    assert not any(line.startswith('  app_') for line in lines)


def test_vtc_applications_table_with_nothing_counted():
    lines = console.render('board0', vtc_stats(),
                           catalogue.load()).splitlines()
    start = lines.index('applications:')
    applications = catalogue.load().by_name('vtc').registers.labels(
        'APP_FLOWS')
    assert lines[start + 2] == '  (%d more: none counted)' % (
        len(applications) - 1)
