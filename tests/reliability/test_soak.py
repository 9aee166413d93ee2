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

"""The soak, shortened for CI: 30 create/delete cycles on the suite's
cloud, as many at a time as it has regions (``make soak`` runs 1,500, ten at
a time, on five boards)."""
from tests.reliability import soak

CYCLES = 30


def test_a_short_soak_leaks_nothing(fault_cloud, checker, images, report):
    concurrency = 2 * len(fault_cloud.boards)
    figures = soak.Soak(fault_cloud, images, CYCLES, concurrency).run(
        checker)
    for line in soak.summary(figures):
        report(line)
    assert not figures['problems'], figures['problems']
    assert not figures['violations'], figures['violations']
    assert sum(figures['outcomes'].values()) == CYCLES, figures['outcomes']


AGENT, API, CONDUCTOR = ('boards/board0/agent', 'glance/glance-api',
                         'nova/nova-conductor')


def test_growth_is_the_slope_after_warm_up():
    """A process that grows during warm-up and then stays is within the
    goal; one of the project's that grows 1 MiB every 50 cycles after it
    (2 MB per 100) is over it; an upstream process that grows as much is
    printed apart and not judged; the summary says which.
    """
    mib = 1024
    samples = [(0, {AGENT: 60 * mib, API: 100 * mib, CONDUCTOR: 90 * mib})]
    for cycle in range(50, 501, 50):
        growing = (cycle - 100) // 50 * mib + (200 if cycle == 300 else 0)
        samples.append((cycle, {
            AGENT: (70 if cycle >= 100 else 65) * mib,
            API: 100 * mib + growing, CONDUCTOR: 90 * mib + growing}))
    figures = {'cycles': 500, 'concurrency': 10, 'seconds': 1.0,
               'outcomes': {}, 'problems': [], 'violations': [],
               'rss_kib': {n: (samples[0][1][n], samples[-1][1][n])
                           for n in (AGENT, API, CONDUCTOR)},
               'rss_samples': samples}
    found = soak.slopes(figures)
    assert found[AGENT] == 0
    assert 1.9 < found[API] < 2.1
    assert 1.9 < found[CONDUCTOR] < 2.1
    assert soak.over_goal(figures) == [API]
    # the second half (cycles 250..500) of the agent: flat; of the API:
    # the same 2 MB per 100 cycles (it does not level off)
    late = soak.late_slopes(figures)
    assert late[AGENT] == 0 and 1.9 < late[API] < 2.1
    text = '\n'.join(soak.summary(figures))
    judged, _, others = text.rpartition('growth after')[2].partition(
        'not judged')
    assert API + ' ' in judged and 'OVER THE GOAL' in judged
    assert CONDUCTOR in others and 'OVER THE GOAL' not in others
    series = text.partition('at each sample')[2]
    assert 'cycles 0, 50, 100' in series
    assert AGENT + ' ' in series and CONDUCTOR not in series
    assert ' 60.0 65.0 70.0 70.0' in series.partition(AGENT)[2]
    assert soak.slope([(100, 5)]) is None


def test_the_project_processes_are_the_clouds():
    """PROJECT names processes as the stack names them (a renamed service
    would silently leave the goal).
    """
    from nova_fpga_devtools.localcloud import nova as localnova
    assert {'nova/%s' % d for d in localnova.DAEMONS} & {
        p for p in soak.PROJECT if '*' not in p} == {
        'nova/nova-compute', 'nova/nova-scheduler'}
    assert soak.of_the_project('boards/board12/agent')
    assert not soak.of_the_project('mariadb/mariadb')
