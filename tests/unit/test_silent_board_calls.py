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

"""A long agent call (a load) given up when the board's agent falls silent
meanwhile ([zynq] report_timeout), and a board's silence from the time its
agent was last heard (issue 33).
"""
import threading
import time
import uuid

import pytest

from nova_fpga.contract import reports
from nova_fpga.contract import shell
from nova_fpga.virt import boards
from nova_fpga.virt import driver


@pytest.fixture
def report_timeout():
    driver.CONF.set_override('report_timeout', 2, group='zynq')
    yield 2
    driver.CONF.clear_override('report_timeout', group='zynq')


class FakeBoard:
    name = 'board0'

    def __init__(self):
        self.reason = None

    def silence(self, timeout):
        return self.reason


def test_a_call_is_given_up_when_the_reports_stop(report_timeout,
                                                  monkeypatch):
    monkeypatch.setattr(driver, 'SILENCE_CHECK_SECONDS', 0.05)
    board = FakeBoard()
    release = threading.Event()

    def load():
        release.wait(30)
        return 'loaded'
    threading.Timer(0.3, setattr, (board, 'reason', 'board0 is silent')
                    ).start()
    try:
        with pytest.raises(boards.Silent, match='board0 is silent'):
            driver._while_heard(board, load)
    finally:
        release.set()


def test_a_call_while_the_board_is_heard_returns_its_answer(
        report_timeout, monkeypatch):
    monkeypatch.setattr(driver, 'SILENCE_CHECK_SECONDS', 0.05)

    def load(value, error=None):
        time.sleep(0.2)
        if error:
            raise error
        return value
    assert driver._while_heard(FakeBoard(), load, 'loaded') == 'loaded'
    with pytest.raises(KeyError):
        driver._while_heard(FakeBoard(), load, None, error=KeyError('x'))


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
