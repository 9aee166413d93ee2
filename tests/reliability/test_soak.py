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
cloud, as many at a time as it has regions (``make soak`` runs 500, ten at
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
