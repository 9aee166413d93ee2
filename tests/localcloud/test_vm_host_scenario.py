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

"""nova-fpga-demo scenario on a --vm-host cloud (the package's
vm_host_cloud): there a board's data interface is a port of the emulated
top-of-rack switch, so the vTC server gets two tenant networks and the
captures enter through an access port of the first; they reach the
region, and nothing of the scenario's is left on the switch.

Beyond CI (marker beyond_ci, `make test-beyond-ci`): two scenario runs
take minutes CI's budget does not have; the VM-host chain test in CI and
the documented commands test cover the same servers, networks and switch.
"""
import re

import pytest

from tests.localcloud.conftest import netns_list
from tests.localcloud.demo_cloud import demo


@pytest.mark.beyond_ci
def test_the_demo_scenario_runs_on_a_vm_host_cloud(vm_host_cloud):
    cloud = vm_host_cloud
    out = demo(cloud, 'scenario')
    assert '--nic net-id=scenario-in --nic net-id=scenario-out vtc1' in out
    assert re.search(r'Real traffic into an access port of network '
                     r'scenario-in \(VLAN \d+\) on the top-of-rack switch',
                     out), out
    sent = int(re.search(r'sent (\d+) frames', out).group(1))
    assert sent > 1000
    # the captures hold one 1,602-byte frame, over the tenant network's
    # MTU of 1,500: left out, said so
    assert 'left out 1 frame(s) longer than 1514 bytes' in out
    # what reached the region, from vtc1's console log: every frame sent
    # but, measured before the emulated boards took a V2 receive ring, one
    # (see the notes)
    arrived = int(re.search(r'^  frames_in = (\d+)$', out, re.M).group(1))
    assert sent - 1 <= arrived <= sent, (sent, arrived)
    assert 'traffic classes:' in out
    assert 'Done: vtc1 was ACTIVE' in out
    assert 'scenario-src' not in cloud.tor().ports()
    assert 'nfpga-%s-src' % cloud._tag() not in netns_list()
    # a second run reuses the networks
    assert 'Two networks for the vTC' in out
    again = demo(cloud, 'scenario')
    assert 'openstack network create' not in again
    assert 'Done: vtc1 was ACTIVE' in again
