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

"""Every command the README and the guides show, checked one by one.

The commands are read from the documents themselves (each ``$ `` line of a
code block, continuation lines joined, a trailing ``  # comment`` cut, and
the ``nova-fpga-demo`` synopsis of the demo cloud's page).  Each is either
run here as written, by bash, on a demo cloud with a board and the VM host
(the documents' placeholders, such as ``SHELL_UUID``, given the values they
stand for), or listed in ELSEWHERE with the test or check that runs it.  A
command a document gains is neither until someone says how it is checked:
test_every_documented_command_is_checked fails.

"""
import json
import os
import pty
import re
import shutil
import subprocess
import time

import pytest

from nova_fpga import catalogue
from nova_fpga.contract import placement
from nova_fpga.contract import shell
from nova_fpga_devtools.localcloud import keystone as localkeystone
from nova_fpga_devtools.localcloud import process
from nova_fpga_devtools.localcloud import scenario as demo_scenario
from tests.conftest import REPORT
from tests.conftest import ROOT
from tests.localcloud.demo_cloud import demo

REFERENCE = shell.load(shell.REFERENCE)
#: the region's resource class, as the quota guide's commands name it
REGION_RC = placement.REGION_RESOURCE_CLASS

#: the synopsis lines of the demo cloud's page (a literal block, no prompt)
SYNOPSIS = re.compile(r'^\s+(nova-fpga-demo \S.*?)(?:\s{2,}#.*)?$')


def documents():
    return [ROOT / 'README.md'] + sorted(
        (ROOT / 'doc' / 'source').rglob('*.rst'))


def documented_commands():
    """(document, command) in document order."""
    found = []
    for path in documents():
        lines = path.read_text().splitlines()
        name = str(path.relative_to(ROOT))
        i = 0
        while i < len(lines):
            prompt = re.match(r'\s*\$ (.*)$', lines[i])
            synopsis = SYNOPSIS.match(lines[i])
            if prompt:
                command = prompt.group(1)
                while command.rstrip().endswith('\\') and i + 1 < len(lines):
                    i += 1
                    command = '%s %s' % (command.rstrip()[:-1].rstrip(),
                                         lines[i].strip())
                found.append((name, re.split(r'\s{2,}#', command)[0].strip()))
            elif synopsis:
                found.append((name, synopsis.group(1).strip()))
            i += 1
    return found


#: commands that do not run on the demo cloud, and where each is checked
ELSEWHERE = {
    '.venv/bin/python -m pytest tests/hdl -n 2':
        'make test runs it (CI)',
    '.venv/bin/python -m pytest tests/tempest_plugin':
        'make test runs it (CI)',
    'tempest run --regex nova_fpga_tempest_plugin':
        'make devstack-check runs it in the DevStack lab',
    'tempest run --regex nova_fpga_tempest_plugin --list-tests':
        'tests/tempest_plugin/test_discovery.py lists the plugin\'s tests',
    '.venv/bin/python hdl/generate.py --catalogue-dir DIR --out OUT':
        'tests/hdl/test_toy_module.py runs it with an operator\'s '
        'catalogue directory',
    'nova-fpga-demo down [--purge]':
        'tests/localcloud/test_stack.py (down, then up resumes the cloud) '
        'and tests/unit/test_readme_commands.py (the demo ends with it)',
}

#: each documented placeholder and the value it stands for here
PLACEHOLDERS = {
    'SHELL_UUID': REFERENCE.shell_id,
    'CONTROLLER': '127.0.0.1',
    'PW': 'secret',
}


class Runner:
    """bash, as a reader with the demo's openrc of one user sourced, in a
    directory holding the files the documents name (vtc_rp1.bit, and the
    repository's nova_fpga for the shell manifest's path).
    """

    def __init__(self, cloud, work):
        self.cloud, self.work = cloud, work
        self.ran = []

    def text(self, command):
        command = command.replace('.state/demo', str(self.cloud.dir))
        for name, value in PLACEHOLDERS.items():
            command = re.sub(r'\b%s\b' % name, value, command)
        return command

    def __call__(self, command, user='admin', expect=None, check=True):
        env = dict(localkeystone.without_client_variables(os.environ))
        env['PATH'] = '%s:%s' % (process.BIN, env.get('PATH', ''))
        script = '. %s\n%s' % (self.cloud.dir / ('openrc-%s' % user),
                               self.text(command))
        # a terminal on stdin, as a reader has: without one, openstack
        # image create (no --file) would upload its empty stdin
        primary, terminal = pty.openpty()
        try:
            out = subprocess.run(['bash', '-e', '-c', script], cwd=self.work,
                                 env=env, stdin=terminal,
                                 capture_output=True, text=True, timeout=600)
        finally:
            os.close(terminal)
            os.close(primary)
        assert out.returncode == 0 or not check, (
            '%s (as %s) exited %d:\n%s%s%s' % (
                command, user, out.returncode, out.stdout, out.stderr,
                self.fault(command, user, env)))
        if expect:
            assert re.search(expect, out.stdout), (command, out.stdout)
        self.ran.append(command)
        return out.stdout

    def fault(self, command, user, env):
        """For a server create that failed, the server's fault as nova
        recorded it (what the CLI's "Error creating server" leaves out).
        """
        words = command.split()
        if 'server' not in words or 'create' not in words:
            return ''
        name = words[-2] if words[-1] == '--wait' else words[-1]
        shown = subprocess.run(
            ['bash', '-c', '. %s\nopenstack server show %s -c id -c status '
             '-c fault -f yaml' % (self.cloud.dir / ('openrc-%s' % user),
                                   self.text(name))],
            cwd=self.work, env=env, capture_output=True, text=True,
            timeout=120)
        found = re.search(r'^id: (\S+)$', shown.stdout, re.MULTILINE)
        return '\nserver %s: %s%s%s' % (
            name, shown.stdout, shown.stderr,
            self.logged(found.group(1)) if found else '')

    def logged(self, server_id, most=40):
        """The nova and neutron logs' warnings and errors that name the
        server (the last `most`): why its build failed, which the fault's
        "Exceeded maximum number of retries" does not say.
        """
        lines = []
        for log in sorted(self.cloud.dir.rglob('*.log')):
            if not any(part in ('nova', 'neutron', 'vm-host')
                       for part in log.relative_to(self.cloud.dir).parts):
                continue
            for line in log.read_text(errors='replace').splitlines():
                if server_id in line and (' ERROR ' in line
                                          or ' WARNING ' in line):
                    lines.append('%s: %s' % (log.name, line))
        return '\nlogged:\n%s' % '\n'.join(lines[-most:])

    def json(self, command, user='admin'):
        return json.loads(self(command + ' -f json', user))

    def delete_images(self, name, user):
        """Images of that name (the next documented create makes one)."""
        for image in self.json('openstack image list --name %s' % name,
                               user):
            self('openstack image delete %s' % image['ID'], user)

    def delete_server(self, name, user):
        if self.json('openstack server list --name ^%s$' % name, user):
            self('openstack server delete --wait %s' % name, user)

    def wait_import(self, name, user, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            image = self.json('openstack image show %s' % name, user)
            if image['status'] == 'active':
                return image
            assert 'fpga_import_error' not in (image.get('properties') or
                                               {}), image
            time.sleep(0.5)
        raise AssertionError('%s not active after %d s' % (name, timeout))


def test_every_documented_command_is_checked():
    """Each command is run by test_the_documented_commands_run or named in
    ELSEWHERE; nothing is listed that the documents no longer show.
    """
    shown = {command for _, command in documented_commands()}
    assert len(shown) > 30, shown
    unchecked = shown - set(RUN) - set(ELSEWHERE)
    assert not unchecked, 'documented, checked nowhere: %s' % sorted(
        unchecked)
    stale = (set(RUN) | set(ELSEWHERE)) - shown
    assert not stale, 'no longer documented: %s' % sorted(stale)


class Doc:
    """A documented command, run as written (user: whose openrc; expect: a
    pattern its output shows; run: the concrete form of a synopsis).
    """

    def __init__(self, command, user='admin', expect=None, run=None):
        self.command, self.user, self.expect = command, user, expect
        self.concrete = run or command

    def __call__(self, runner):
        return runner(self.concrete, self.user, self.expect)


class Demo(Doc):
    """A nova-fpga-demo synopsis line, run as nova-fpga-demo on the
    cloud's state directory.
    """

    def __init__(self, command, *args, expect=None):
        super().__init__(command, expect=expect)
        self.args = args

    def __call__(self, runner):
        out = demo(runner.cloud, *self.args)
        if self.expect:
            assert re.search(self.expect, out), out
        return out


BOB = 'bob'


def _delete_images(name, *users):
    return lambda run: [run.delete_images(name, user) for user in users]


def _delete_server(name, user=BOB):
    return lambda run: run.delete_server(name, user)


def _wait_import(name, user=BOB):
    return lambda run: run.wait_import(name, user)


def _event_request(run):
    events = run('openstack server event list vtc1', BOB)
    PLACEHOLDERS['REQUEST_ID'] = re.search(
        r'\b(req-[0-9a-f-]{36})\b', events).group(1)


def _wait_active(name, user=BOB, timeout=120):
    def wait(run):
        deadline = time.monotonic() + timeout
        while run.json('openstack server show %s' % name,
                       user)['status'] != 'ACTIVE':
            assert time.monotonic() < deadline, '%s not ACTIVE' % name
            time.sleep(1)
    return wait


def _fresh_region_limits(run):
    """The demo registered the region limits itself: the documented
    creates make them anew.
    """
    # keystone keeps a registered limit while a project's limit uses it
    for limit in run.json('openstack limit list --resource-name '
                          'class:%s' % REGION_RC):
        run('openstack limit delete %s' % limit['ID'])
    for limit in run.json('openstack registered limit list --resource-name '
                          'class:%s' % REGION_RC):
        run('openstack registered limit delete %s' % limit['ID'])


VTC = '0x%08X' % catalogue.module_id('vtc')
#: the signing guide's openstack secret store (name, PEM file)
SECRET_STORE = (
    'openstack secret store --name %s --secret-type certificate '
    '--payload-content-type application/octet-stream '
    '--payload-content-encoding base64 --payload "$(base64 -w0 %s)" -f '
    'value -c "Secret href"')


def _secret_id(placeholder, name, user=BOB):
    """The ID of the newest secret of that name (the last part of its
    href, as the signing guide says), for the placeholder.
    """
    def find(run):
        secrets = run.json('openstack secret list --name %s' % name, user)
        newest = max(secrets, key=lambda secret: secret['Created'])
        PLACEHOLDERS[placeholder] = newest['Secret href'].rsplit('/', 1)[-1]
    return find


#: the documents' commands in the order a reader meets them, with what
#: the test does between them (callables: clean-ups and waits a reader
#: would do by looking)
STEPS = [
    # the demo cloud's page: up (resume) leaves the flavor and the images
    Demo('nova-fpga-demo up', 'up',
         expect='The flavor fpga.region and the images vtc-bitstream'),
    Demo('nova-fpga-demo status', 'status', expect=r'board0'),
    Demo('nova-fpga-demo logs [SERVICE] [-n N] [-f]', 'logs', 'nova-api',
         '-n', '3'),
    Demo('nova-fpga-demo temperature BOARD CELSIUS', 'temperature',
         'board0', '40', expect='XADC reads 40.0'),
    Doc('. .state/demo/openrc'),
    Doc('openstack resource provider list', expect=r'board0:rp1'),
    Doc('openstack --os-cloud nova-fpga-alice server list'),
    Doc('. .state/demo/openrc-bob', BOB),
    Doc('openstack network create net1', BOB),
    Doc('openstack subnet create --network net1 --subnet-range '
        '10.77.0.0/24 --no-dhcp net1-v4', BOB),
    Doc('openstack server create --image tiny-vm --flavor vm.tiny --nic '
        'net-id=net1 --wait vm1', BOB, expect='ACTIVE'),
    _delete_server('vm1'),
    # installing the controller: the configuration, the flavor, an image
    # by the admin's tool
    Doc('nova-fpga-config nova --boards board0,board1 '
        '--agents-transport-url rabbit://nova-compute:PW@CONTROLLER:5671/'
        'nova_fpga --policy-dir /etc/nova/policy.d --ssl-ca-file ca.pem '
        '--ssl-cert-file nova-compute.pem --ssl-key-file '
        'nova-compute-key.pem', expect=r'zynq\tboards\tboard0,board1'),
    Doc('nova-fpga-manage flavor create'),
    _delete_images('vtc-bitstream', 'admin', BOB),
    Doc('nova-fpga-manage image create vtc-bitstream vtc_rp1.bit '
        '--shell-id SHELL_UUID', expect='active'),
    _delete_images('vtc-bitstream', 'admin'),
    # the user guide's images: in one command, then in three
    Doc('openstack image create vtc-bitstream --file vtc_rp1.bit '
        '--disk-format raw --container-format bare --import --property '
        'fpga_shell_id=SHELL_UUID', BOB),
    Doc('nova-fpga-bitstream wait-import vtc-bitstream', BOB,
        expect=r'vtc-bitstream \(.*\): active: fpga_bitstream=partial'),
    Doc('openstack image show vtc-bitstream -c status -c properties', BOB,
        expect='active'),
    _delete_images('vtc-bitstream', BOB),
    Doc('openstack image create vtc-bitstream --disk-format raw '
        '--container-format bare --property fpga_shell_id=SHELL_UUID', BOB),
    Doc('openstack image stage --file vtc_rp1.bit vtc-bitstream', BOB),
    Doc('openstack image import vtc-bitstream --method glance-direct '
        '--store fpga', BOB),
    _wait_import('vtc-bitstream'),
    # the bitstream tool's synopses, each form with its placeholders
    Doc('nova-fpga-bitstream inspect FILE [--json]', BOB,
        run='nova-fpga-bitstream inspect vtc_rp1.bit --json',
        expect='"partial"'),
    Doc('nova-fpga-bitstream verify FILE [--part P] [--partial] '
        '[--footprint SIG]', BOB,
        run='nova-fpga-bitstream verify vtc_rp1.bit --partial'),
    Doc('nova-fpga-bitstream to-bin FILE -o OUT [--plain]', BOB,
        run='nova-fpga-bitstream to-bin vtc_rp1.bit -o vtc_rp1.bin'),
    Doc('nova-fpga-bitstream build --part 7z020clg400 --design NAME '
        '--module-id 0x… --footprint REGION.bit|FOOTPRINT.json -o OUT.bit',
        BOB, run='nova-fpga-bitstream build --part 7z020clg400 --design '
        'again --module-id %s --footprint vtc_rp1.bit -o again.bit' % VTC),
    # the user guide's servers and events; the admin guide's networks (the
    # tenant's part); the settings on the same two networks
    Doc('openstack server create --image vtc-bitstream --flavor '
        'fpga.region --nic none vtc1 --wait', BOB, expect='ACTIVE'),
    _event_request,
    Doc('openstack server event list vtc1', BOB, expect='create'),
    Doc('openstack --os-compute-api-version 2.84 server event show vtc1 '
        'REQUEST_ID', BOB, expect='req-'),
    _delete_server('vtc1'),
    Doc('openstack network create vtc-in ; openstack network create '
        'vtc-out', BOB),
    Doc('openstack subnet create --network vtc-in --subnet-range '
        '10.9.0.0/24 --no-dhcp vtc-in', BOB),
    Doc('openstack subnet create --network vtc-out --subnet-range '
        '10.9.1.0/24 --no-dhcp vtc-out', BOB),
    Doc('openstack server create --image vtc-bitstream --flavor '
        'fpga.region --nic net-id=vtc-in --nic net-id=vtc-out vtc1 --wait',
        BOB, expect='ACTIVE'),
    _delete_server('vtc1'),
    Doc('openstack server create --image vtc-bitstream --flavor '
        'fpga.region --nic net-id=vtc-in --nic net-id=vtc-out --property '
        'vtc:dscp:sip=46 --property vtc:dscp:tls=18 --property '
        'vtc:dscp:smtp=10 vtc1 --wait', BOB, expect='ACTIVE'),
    Doc('openstack server set --property vtc:dscp:sip=34 vtc1', BOB),
    Doc('openstack server reboot --hard vtc1', BOB),
    _wait_active('vtc1'),
    _delete_server('vtc1'),
    Doc('openstack server create --image vtc-bitstream --flavor '
        'fpga.region --nic net-id=vtc-in --nic net-id=vtc-out --property '
        'vtc:dscp:app:youtube=34 --property vtc:dscp:tls=18 vtc1 --wait',
        BOB, expect='ACTIVE'),
    _delete_server('vtc1'),
    # the user guide's signed image (on the demo cloud, the reader is also
    # the operator of its bitstream-signing CA)
    Doc('openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:secp384r1 '
        '-out signer.key', BOB),
    Doc('openssl req -new -key signer.key -subj /CN=bob-builder -out '
        'signer.csr', BOB),
    Doc('openssl x509 -req -in signer.csr -CA .state/demo/signing-ca/ca.pem '
        '-CAkey .state/demo/signing-ca/ca.key -days 365 -out signer.pem',
        BOB),
    Doc(SECRET_STORE % ('bob-builder', 'signer.pem'), BOB,
        expect='/v1/secrets/'),
    _secret_id('CERT_ID', 'bob-builder'),
    Doc('nova-fpga-bitstream sign vtc_rp1.bit --key signer.key '
        '--certificate signer.pem --certificate-id CERT_ID', BOB,
        expect='--property img_signature='),
    _delete_images('vtc-signed', BOB),
    Doc('openstack image create vtc-signed --file vtc_rp1.bit --disk-format '
        'raw --container-format bare --import --property '
        'fpga_shell_id=SHELL_UUID $(nova-fpga-bitstream sign vtc_rp1.bit '
        '--key signer.key --certificate-id CERT_ID)', BOB),
    Doc('nova-fpga-bitstream wait-import vtc-signed', BOB,
        expect=r'vtc-signed \(.*\): active'),
    Doc('openstack server create --image vtc-signed --flavor fpga.region '
        '--nic none vtc-signed --wait', BOB, expect='ACTIVE'),
    _delete_server('vtc-signed'),
    Doc(SECRET_STORE % ('bitstream-ca', '.state/demo/signing-ca/ca.pem'),
        BOB, expect='/v1/secrets/'),
    _secret_id('CA_ID', 'bitstream-ca'),
    Doc('openstack --os-compute-api-version 2.63 server create --image '
        'vtc-signed --flavor fpga.region --nic none --trusted-image-cert '
        'CA_ID vtc-signed --wait', BOB, expect='ACTIVE'),
    _delete_server('vtc-signed'),
    _delete_images('vtc-signed', BOB),
    # the admin guide: drain, quotas
    Doc('nova-fpga-manage board drain board0'),
    Doc('nova-fpga-manage board show board0', expect='drain'),
    Doc('nova-fpga-manage board undrain board0'),
    _fresh_region_limits,
    Doc('openstack registered limit create --service nova --region '
        'RegionOne --default-limit 10 class:%s' % REGION_RC),
    Doc('openstack limit create --service nova --region RegionOne '
        '--project demo --resource-limit 1 class:%s' % REGION_RC),
    # installing a board: the shell's device tree overlay
    Doc('nova-fpga-dt nova_fpga/contract/shells/reference_xc7z020.json -o '
        'shell.dtso'),
    Doc('dtc -@ -I dts -O dtb -o shell.dtbo shell.dtso'),
]
RUN = {step.command for step in STEPS if isinstance(step, Doc)}


@pytest.mark.skipif(os.geteuid() != 0, reason='the demo cloud needs root')
def test_the_documented_commands_run(vm_host_cloud, tmp_path):
    """Each command of STEPS, as written, on a demo cloud with a board and
    the VM host, in the order the documents give them.
    """
    cloud = vm_host_cloud
    work = tmp_path / 'reader'
    work.mkdir()
    # the files the documents name, where a reader would have them
    (work / 'nova_fpga').symlink_to(ROOT / 'nova_fpga')
    for name in ('ca.pem', 'nova-compute.pem', 'nova-compute-key.pem'):
        (work / name).write_text('')
    vtc = demo_scenario.Scenario(cloud).build(
        'vtc', 'rp1', catalogue.module_id('vtc'))
    shutil.copy(vtc, work / 'vtc_rp1.bit')
    run = Runner(cloud, work)
    started = time.monotonic()
    for step in STEPS:
        step(run)
    assert (work / 'vtc_rp1.bin').stat().st_size > 0
    assert (work / 'again.bit').stat().st_size > 0
    assert (work / 'shell.dtbo').stat().st_size > 0
    REPORT.append('documented commands: %d run as written on the demo cloud '
                  'in %.0f s, %d checked elsewhere (%d documents)' % (
                      len(RUN), time.monotonic() - started, len(ELSEWHERE),
                      len({d for d, _ in documented_commands()})))
