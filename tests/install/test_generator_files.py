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

"""The sample generators of tox -e genconfig and genpolicy
(etc/oslo-config-generator, etc/oslo-policy-generator) cover every option
and policy namespace setup.cfg registers, and the agent's generator file
under etc/ names the same namespaces as the one the board's source
distribution ships (agent/etc/oslo-config-generator).
"""
import configparser

from tests.conftest import ROOT


def namespaces(path):
    return [line.split('=', 1)[1].strip()
            for line in path.read_text().splitlines()
            if line.replace(' ', '').startswith('namespace=')]


def entry_points(group):
    setup = configparser.ConfigParser()
    setup.read(ROOT / 'setup.cfg')
    text = setup['options.entry_points'][group]
    return {line.split('=', 1)[0].strip()
            for line in text.splitlines() if line.strip()}


def test_every_option_namespace_has_a_sample():
    covered = set()
    for path in (ROOT / 'etc' / 'oslo-config-generator').glob('*.conf'):
        covered.update(namespaces(path))
    assert entry_points('oslo.config.opts') - covered == set()


def test_every_policy_namespace_has_a_sample():
    covered = set()
    for path in (ROOT / 'etc' / 'oslo-policy-generator').glob('*.conf'):
        covered.update(namespaces(path))
    assert entry_points('oslo.policy.policies') - covered == set()


def test_the_agents_two_generator_files_agree():
    ours = ROOT / 'etc' / 'oslo-config-generator' / 'nova-fpga-agent.conf'
    shipped = (ROOT / 'agent' / 'etc' / 'oslo-config-generator'
               / 'nova-fpga-agent.conf')
    assert namespaces(ours) == namespaces(shipped)
