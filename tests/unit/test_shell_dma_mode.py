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

"""The shell manifest's ``dma_mode`` (issue 31): how its AXI DMAs run."""
import json

import pytest

from nova_fpga.contract import shell


def _reference():
    return json.loads(shell.REFERENCE.read_text())


def test_the_reference_shell_runs_its_dmas_scatter_gather():
    assert shell.load(shell.REFERENCE).dma_mode == 'sg'


def test_a_manifest_without_it_is_simple_mode():
    data = _reference()
    del data['dma_mode']
    assert shell.parse(data).dma_mode == 'simple'


@pytest.mark.parametrize('mode', ['simple', 'sg'])
def test_either_mode_is_accepted(mode):
    assert shell.parse(dict(_reference(), dma_mode=mode)).dma_mode == mode


@pytest.mark.parametrize('mode', ['SG', 'scatter-gather', '', 1, None])
def test_another_mode_is_refused(mode):
    with pytest.raises(shell.ManifestError, match='dma_mode'):
        shell.parse(dict(_reference(), dma_mode=mode))
