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

"""Reports stay readable across versions: a field a newer agent adds has a
default that means what an older agent's silence meant."""
from nova_fpga.contract import reports
from nova_fpga.contract import states


def test_an_older_agents_report_reads_as_a_fit_board():
    older = {'board': 'b0', 'shell_id': 'shell',
             'regions': [{'name': 'rp0', 'state': states.FREE}]}
    report = reports.BoardReport.from_dict(older)
    assert report.unfit is None and report.temperature is None
    stats = reports.RegionStats.from_dict({'region': 'rp0',
                                           'state': states.FREE})
    assert stats.board_unfit is None
