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

"""Nothing on a board could act on nova, glance or keystone: the agent has
no option that takes a cloud credential or endpoint, its configuration as a
deployment writes it holds only its own bus account, and the code a board
runs imports no OpenStack client.
"""
import ast
import pathlib
import re
import subprocess
import sys

from oslo_config import cfg
from oslo_log import log as logging
from oslo_messaging import opts as messaging_opts

from nova_fpga import deployment
from nova_fpga_agent import conf as agent_conf
from tests.conftest import ROOT

#: what an option of a cloud credential or endpoint would be called
CLOUD = re.compile(r'auth|password|passwd|token|keystone|glance|nova_|'
                   r'project|domain|credential|endpoint|region_name|'
                   r'os_|user(name)?$', re.I)
#: the code a board runs: the agent, and the parts of nova_fpga it imports
BOARD_CODE = [ROOT / 'agent' / 'nova_fpga_agent'] + [
    ROOT / 'nova_fpga' / name for name in ('contract', 'bitstream',
                                           'catalogue')]
CLIENTS = ('keystoneauth1', 'keystoneclient', 'keystonemiddleware',
           'novaclient', 'glanceclient', 'openstack', 'nova', 'glance',
           'glance_store', 'neutronclient', 'placement')


def agent_options():
    """{(group, option)} of everything the agent registers."""
    conf = cfg.ConfigOpts()
    agent_conf.register_opts(conf)
    logging.register_options(conf)
    found = set()
    for group, opts in agent_conf.list_opts():
        found |= {(str(group), opt.name) for opt in opts}
    from nova_fpga_agent.backends import fpga_manager
    for group, opts in fpga_manager.list_opts():
        found |= {(str(group), opt.name) for opt in opts}
    return found


#: named like one, but not a cloud's: the Unix user the privileged helpers
#: run as (oslo.privsep's option)
NOT_CLOUD = {('nova_fpga_agent_privileged', 'user'),
             ('nova_fpga_agent_datapath_privileged', 'user')}


def test_the_agent_has_no_option_for_a_cloud_credential():
    options = agent_options()
    assert ('agent', 'board_name') in options
    assert not [option for option in options - NOT_CLOUD
                if CLOUD.search(option[1])]
    assert not {group for group, _ in options} & {
        'keystone_authtoken', 'service_user', 'glance', 'placement',
        'neutron', 'nova', 'cinder'}


def test_an_agent_conf_holds_only_its_own_bus_account():
    url = 'rabbit://nova-fpga-zynq0:pw@mq:5671/nova_fpga.zynq0'
    tls = deployment.Tls('/etc/nova-fpga/ca.pem', '/etc/nova-fpga/zynq0.pem',
                         '/etc/nova-fpga/zynq0-key.pem')
    written = deployment.agent('zynq0', url, '/var/lib/nova-fpga',
                               backend='fpga_manager', tls=tls)
    # every option is one the agent or oslo.messaging has
    known = agent_options() | {
        (group or 'DEFAULT', opt.name)
        for group, opts in messaging_opts.list_opts() for opt in opts}
    assert {(section, option) for section, option, _ in written} <= known
    assert {section for section, _, _ in written} <= {
        'DEFAULT', 'agent', 'oslo_messaging_rabbit'}
    secrets = [(s, o, v) for s, o, v in written if CLOUD.search(o)]
    assert secrets == []
    # its one account: the board's own, on the board's own vhost
    assert [v for s, o, v in written if '@' in str(v)] == [url]
    # as nova-fpga-config prints it for a deployment's scripts
    out = subprocess.run(
        [str(pathlib.Path(sys.prefix) / 'bin' / 'nova-fpga-config'), 'agent',
         '--board', 'zynq0', '--transport-url', url, '--state-dir', '/s',
         '--backend', 'fpga_manager', '--ssl-ca-file', tls.ca_file,
         '--ssl-cert-file', tls.cert_file, '--ssl-key-file', tls.key_file],
        capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == deployment.lines(deployment.agent(
        'zynq0', url, '/s', backend='fpga_manager', tls=tls))


def test_board_code_imports_no_openstack_client():
    imported = set()
    for top in BOARD_CODE:
        for path in pathlib.Path(top).rglob('*.py'):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Import):
                    imported |= {(a.name.split('.')[0], str(path))
                                 for a in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module \
                        and not node.level:
                    imported.add((node.module.split('.')[0], str(path)))
    assert [(name, path) for name, path in imported if name in CLIENTS] \
        == []
    assert any(name == 'oslo_messaging' for name, _ in imported)
