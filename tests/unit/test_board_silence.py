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

"""A board's silence ([zynq] report_timeout) from the time its agent was
last heard: a state report kept, or an answer (issue 33).
"""
import uuid

from nova_fpga.contract import reports
from nova_fpga.contract import shell
from nova_fpga.virt import boards


def test_silence_counts_from_the_last_report_or_answer(monkeypatch):
    board = boards.Board('board0', uuid.uuid4(), shell.load(shell.REFERENCE))
    assert board.silence(25) is None  # never heard: not silent, not up
    now = [1000.0]
    monkeypatch.setattr(boards.time, 'monotonic', lambda: now[0])
    report = reports.BoardReport.from_dict({
        'board': 'board0', 'boot_id': 'b1', 'sequence': 1,
        'shell_id': shell.load(shell.REFERENCE).shell_id, 'regions': []})
    assert board.take(report, answered=False)
    now[0] += 25
    assert board.silence(25) is None
    now[0] += 1
    assert 'no state report from its agent for 26 s' in board.silence(25)
    assert board.silence(0) is None  # 0: not watched
