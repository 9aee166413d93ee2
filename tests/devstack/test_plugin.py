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

"""The DevStack plugin run phase by phase on DevStack's own functions (the
snapshot in tests/data/thirdparty), against temporary configuration files:
what it writes must be what nova_fpga.deployment says and what the demo
cloud runs with, option by option.

Only what acts on the machine or a running cloud is recorded instead of
run: pip (setup_develop, pip_install), systemd (run_process, stop_process),
rabbitmqctl and nova-fpga-manage.
"""
import json
import pathlib
import shutil
import subprocess
import sys
import tarfile

import glance
import pytest
import yaml

from nova_fpga.contract import placement
from nova_fpga import deployment
import nova_fpga_devtools
from nova_fpga_devtools.localcloud import boards as localboards
from nova_fpga_devtools.localcloud import glance as localglance
from nova_fpga_devtools.localcloud import process
from tests.conftest import ROOT

SNAPSHOT = nova_fpga_devtools.DEVSTACK_SNAPSHOT
PLUGIN = ROOT / 'devstack'
BOARDS = ['zynq0', 'zynq1']
RABBIT = 'rabbit://stackrabbit:secret@10.0.0.5:5672/nova_fpga'
#: DevStack's bashate flags (its tox.ini)
BASHATE_FLAGS = ['-v', '-iE006', '-eE005,E042']
SHELL_FILES = [PLUGIN / name for name in (
    'plugin.sh', 'settings', 'lib/nova-fpga')] + [
        ROOT / 'tools' / 'devstack-check']

DRIVER = r'''
set -o errexit
TOP=$DEVSTACK
TOP_DIR=$TOP
source $TOP/functions
source $TOP/tests/unittest.sh
# DevStack's python (unittest.sh takes the first python3 on PATH): the one
# with neutron, as in DevStack
PYTHON=$TEST_PYTHON
# as stack.sh has them when plugins run
SSL_BUNDLE_FILE=$DATA_DIR/ca-bundle.pem
source $TOP/lib/tls

# what acts on the machine is recorded, not run
function setup_develop { echo "setup_develop $*" >> $CALLS; }
function pip_install { echo "pip_install $*" >> $CALLS; }
function run_process { echo "run_process $1 $2" >> $CALLS; }
function stop_process { echo "stop_process $1" >> $CALLS; }
function get_or_create_project { echo "id-of-$1"; }
function get_python_exec_prefix { echo $FAKE_BIN; }
function restart_service { echo "restart_service $*" >> $CALLS; }
function openstack {
    echo "openstack $*" >> $CALLS
    if [[ "$*" == *"registered limit list"* ]]; then
        echo "${FAKE_LIMIT_ID:-}"
    fi
}
# what lib/glance's configure_glance writes of other services: not this
# test's
function database_connection_url { echo "mysql+pymysql://root@127.0.0.1/$1"; }
function configure_keystone_authtoken_middleware { :; }
function iniset_rpc_backend { :; }
function write_local_uwsgi_http_config { :; }
function sudo {
    if [[ $1 == rabbitmqctl || $1 == update-ca-certificates ||
            $1 == update-ca-trust ||
            ( $1 == cp && ${!#} == /usr/* ) ]]; then
        echo "$*" >> $CALLS
    elif [[ $1 == tee ]]; then
        echo "$* < $(cat)" >> $CALLS
    else
        "$@"
    fi
}

# a controller with nova-compute, or the node TEST_SERVICES says
all_in_one=rabbit,mysql,key,g-api,n-api,n-cpu,n-sch,n-cond,placement-api
ENABLED_SERVICES=${TEST_SERVICES:-$all_in_one,q-svc}
# stack.sh's order: lib/neutron (its ML2 defaults), the plugins' settings
# (the plugin has no override-defaults: DevStack's n-cpu keeps its
# VIRT_DRIVER)
source $TOP/lib/neutron
source $TOP/lib/glance
# (configure_keystoneauth and configure_placement_nova_compute: neutron's
# and placement's credentials in a board node's nova.conf)
source $TOP/lib/keystone
# (lib/nova sets its paths outright: the test's are kept)
_paths=$(declare -p NOVA_CONF_DIR NOVA_CONF NOVA_CPU_CONF NOVA_BIN_DIR)
source $TOP/lib/nova
eval "$_paths"
# (its files' place is the test's)
NEUTRON_CONF=$TEST_NEUTRON_CONF
source $NOVA_FPGA_DIR/devstack/settings
is_service_enabled n-fpga || failed "the boards' nova-compute enabled"
assert_equal True "$GLANCE_ENABLE_MULTIPLE_STORES" "multi-store Glance"
for phase in "stack pre-install" "stack install" "stack post-config" \
        "stack extra" "stack test-config" "unstack" "clean"; do
    if [[ $phase == "stack post-config" ]]; then
        # what stack.sh's configure_glance writes (multiple file stores,
        # the paste flavor, the paste file copied from glance's own), by
        # lib/glance's own function
        configure_glance
        # what stack.sh's configure_neutron writes of ML2 (between the
        # install and post-config phases), by lib/neutron's own functions;
        # only the file's place is the test's
        neutron_plugin_configure_common
        Q_PLUGIN_CONF_PATH=${ML2_CONF_DIR#/}
        Q_PLUGIN_CONF_FILE=$Q_PLUGIN_CONF_PATH/$Q_PLUGIN_CONF_FILENAME
        neutron_plugin_configure_service
        if [[ $Q_AGENT == ovn ]]; then
            configure_ovn_plugin
        fi
        cp /$Q_PLUGIN_CONF_FILE $SNAPSHOTS/ml2_conf.devstack.ini
    fi
    echo "phase $phase" >> $CALLS
    source $NOVA_FPGA_DIR/devstack/plugin.sh $phase
    if [[ $phase == "stack post-config" ]]; then
        cp -r $NOVA_CONF_DIR $GLANCE_CONF_DIR $NOVA_FPGA_CONF_DIR \
            $ML2_CONF_DIR $(dirname $PLACEMENT_CONF) $SNAPSHOTS/
        # the boards' state (their trust stores), modes kept
        cp -a $NOVA_FPGA_STATE_DIR $SNAPSHOTS/nova-fpga-state
        if [[ $NOVA_FPGA_TLS == True ]]; then
            cp -r $(dirname $NOVA_FPGA_RABBITMQ_CONF) $SNAPSHOTS/
        fi
    fi
done
prefix=$NOVA_FPGA_BOARD_PREFIX
assert_equal "${prefix}0,${prefix}1" "$(nova_fpga_boards)" "two boards"
is_service_enabled nova-fpga-agent-${prefix}1 || failed "agent service enabled"
report_results
'''


@pytest.fixture(scope='module')
def devstack(tmp_path_factory):
    """The DevStack snapshot, unpacked."""
    top = tmp_path_factory.mktemp('devstack')
    with tarfile.open(SNAPSHOT) as archive:
        archive.extractall(top, filter='data')
    return top / 'devstack'


@pytest.fixture(scope='module')
def run(devstack, tmp_path_factory):
    """Every phase of plugin.sh, as stack.sh, unstack.sh and clean.sh call
    them; the configuration as post-config left it, and the calls made.
    """
    return run_plugin(devstack, tmp_path_factory.mktemp('stack'),
                      {'Q_AGENT': 'ovn'})


@pytest.fixture(scope='module')
def quota_run(devstack, tmp_path_factory):
    """The same with a region quota on DevStack's unified limits."""
    return run_plugin(devstack, tmp_path_factory.mktemp('stack-quota'), {
        'NOVA_USE_UNIFIED_LIMITS': 'True', 'NOVA_FPGA_REGION_QUOTA': '3'})


@pytest.fixture(scope='module')
def tls_run(devstack, tmp_path_factory):
    """The same with NOVA_FPGA_TLS: RabbitMQ's configuration in a scratch
    file, its group the test user's.
    """
    work = tmp_path_factory.mktemp('stack-tls')
    return run_plugin(devstack, work, {
        'NOVA_FPGA_TLS': 'True',
        'NOVA_FPGA_RABBITMQ_CONF': str(work / 'rabbitmq' / 'rabbitmq.conf'),
        'NOVA_FPGA_RABBITMQ_GROUP': subprocess.check_output(
            ['id', '-gn'], text=True).strip()})


def run_plugin(devstack, work, settings=None):
    work.mkdir(exist_ok=True)
    etc = {name: work / 'etc' / name
           for name in ('nova', 'glance', 'ml2', 'placement')}
    for path in etc.values():
        path.mkdir(parents=True)
    # as DevStack's lib/placement writes it
    (etc['placement'] / 'placement.conf').write_text(
        '[placement_database]\nconnection = mysql+pymysql://root:secret@'
        '127.0.0.1/placement?charset=utf8\n')
    (etc['nova'] / 'nova.conf').write_text(
        '[DEFAULT]\ntransport_url = rabbit://stackrabbit:secret@10.0.0.5\n')
    # glance's own files where DevStack's lib/glance copies them from
    # ($GLANCE_DIR/etc: the installed glance's data files, and the image
    # schema its tests keep, the sdist's etc/schema-image.json)
    glance_etc = work / 'opt' / 'glance' / 'etc'
    shutil.copytree(localglance.PASTE_INI.parent, glance_etc)
    shutil.copy(pathlib.Path(glance.__file__).parent / 'tests' / 'etc' /
                'schema-image.json', glance_etc)
    fake_bin = work / 'bin'
    fake_bin.mkdir()
    for tool in ('nova-fpga-config', 'nova-fpga-agent'):
        (fake_bin / tool).symlink_to(process.BIN / tool)
    manage = fake_bin / 'nova-fpga-manage'
    # (board list: every board answers and is in placement, unless the
    # test says one is not)
    manage.write_text(
        '#!/bin/sh\necho "nova-fpga-manage $*" >> $CALLS\n'
        'case "$*" in *"board list"*) if [ -n "$FAKE_BOARD_MISSING" ]; then '
        'echo "nova-fpga-manage: no full answer for $FAKE_BOARD_MISSING" '
        '>&2; exit 1; fi;; esac\n')
    manage.chmod(0o755)
    snapshots = work / 'after-post-config'
    snapshots.mkdir()
    env = {
        'PATH': '/usr/bin:/bin', 'HOME': str(work),
        'DEVSTACK': str(devstack), 'NOVA_FPGA_DIR': str(ROOT),
        'CALLS': str(work / 'calls'), 'FAKE_BIN': str(fake_bin),
        'SNAPSHOTS': str(snapshots), 'TEST_PYTHON': sys.executable,
        'DEST': str(work / 'opt'), 'DATA_DIR': str(work / 'data'),
        'NOVA_DIR': str(work / 'opt' / 'nova'),
        'STACK_USER': subprocess.check_output(['id', '-un'],
                                              text=True).strip(),
        'NOVA_CONF_DIR': str(etc['nova']),
        'NOVA_CONF': str(etc['nova'] / 'nova.conf'),
        # lib/nova's: where DevStack's start_nova_compute writes
        # nova-compute's file, and nova's commands
        'NOVA_CPU_CONF': str(etc['nova'] / 'nova-cpu.conf'),
        'NOVA_BIN_DIR': str(work / 'opt' / 'bin'),
        'PLACEMENT_CONF': str(etc['placement'] / 'placement.conf'),
        'REGION_NAME': 'RegionOne',
        'GLANCE_CONF_DIR': str(etc['glance']),
        'GLANCE_API_CONF': str(etc['glance'] / 'glance-api.conf'),
        'GLANCE_API_PASTE_INI': str(etc['glance'] / 'glance-api-paste.ini'),
        # where lib/neutron's functions write ml2_conf.ini (and OVN's part
        # of neutron.conf)
        'ML2_CONF_DIR': str(etc['ml2']),
        'TEST_NEUTRON_CONF': str(work / 'etc' / 'neutron.conf'),
        # DevStack's default is ovn (the `run` fixture's); its configuration
        # imports neutron twice, so the other runs take ML2/OVS
        'Q_AGENT': 'openvswitch',
        'NOVA_FPGA_CONF_DIR': str(work / 'etc' / 'nova-fpga'),
        'RABBIT_HOST': '10.0.0.5', 'RABBIT_USERID': 'stackrabbit',
        'RABBIT_PASSWORD': 'secret',
        'NOVA_FPGA_BITSTREAM_CREATORS': 'fpga-builders',
        'NOVA_FPGA_REAL_BITSTREAMS': str(nova_fpga_devtools.REALDATA /
                                         'bitstreams' / 'royforu_pynq_pr'),
    }
    env.update(settings or {})
    out = subprocess.run(['bash', '-c', DRIVER], env=env, cwd=work,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    calls = (work / 'calls').read_text().splitlines()
    return {'work': work, 'etc': snapshots, 'calls': calls,
            'out': out.stdout, 'err': out.stderr, 'env': env}


def ini(path):
    """{(section, option): [values]} of an ini file as oslo.config reads
    it (a repeated option keeps every value).
    """
    found, section = {}, 'DEFAULT'
    for line in pathlib.Path(path).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(('#', ';')):
            continue
        if line.startswith('['):
            section = line.strip('[]')
            continue
        key, _, value = line.partition('=')
        found.setdefault((section, key.strip()), []).append(value.strip())
    return found


def expected(options):
    """deployment's options as ini() reads them back."""
    return {(section, option): [deployment.text(v) for v in (
        value if isinstance(value, deployment.Multi) else [value])]
        for section, option, value in options}


def assert_written(path, options):
    written = ini(path)
    for key, values in expected(options).items():
        assert written.get(key) == values, (path, key, written.get(key))


def test_devstacks_own_unit_checks_pass(run):
    assert 'FAILED' not in run['out'] and 'PASS' in run['out'], run['out']


def test_nova_conf_is_the_deployments(run):
    """The scheduler's and API's part in nova.conf; the Zynq
    nova-compute's in a file of its own, read after nova-cpu.conf by the
    n-fpga service, whose host is its own: DevStack's n-cpu (nova-cpu.conf
    is a copy of nova.conf) keeps its driver.
    """
    etc = run['etc'] / 'nova'
    assert_written(etc / 'nova.conf', deployment.nova_scheduler(
        etc.parent.parent / 'etc' / 'nova' / 'policy.d'))
    assert (etc / 'policy.d' / 'nova-fpga.yaml').read_text() == \
        deployment.NOVA_POLICY.read_text()
    nova = ini(etc / 'nova.conf')
    assert ('DEFAULT', 'compute_driver') not in nova
    assert not [key for key in nova if key[0] == 'zynq']
    compute = etc / 'nova-fpga-compute.conf'
    assert_written(compute, deployment.nova_compute(BOARDS, RABBIT))
    host = ini(compute)[('DEFAULT', 'host')]
    assert host == [subprocess.check_output(['hostname'], text=True)
                    .strip() + '-fpga']
    env = run['env']
    start = 'run_process n-fpga %s/nova-compute --config-file %s ' \
        '--config-file %s/nova-fpga-compute.conf' % (
            env['NOVA_BIN_DIR'], env['NOVA_CPU_CONF'], env['NOVA_CONF_DIR'])
    calls = run['calls']
    extra = calls[calls.index('phase stack extra'):
                  calls.index('phase stack test-config')]
    # started after DevStack's nova (extra), then waited for until its
    # boards are in placement (stack.sh's discover_hosts maps them next)
    assert start in extra
    assert 'nova-fpga-manage --os-cloud devstack-admin board list ' \
        '--config-file %s/nova-fpga-compute.conf' % env['NOVA_CONF_DIR'] \
        in extra[extra.index(start):]
    assert 'stop_process n-fpga' in calls[calls.index('phase unstack'):]


def test_a_board_nova_does_not_report_fails_stack(devstack, tmp_path):
    """n-fpga up but a board not in placement (or its agent silent): the
    extra phase dies saying which board and where the log is, instead of
    stack.sh's discover_hosts leaving the board out of the cell.
    """
    with pytest.raises(AssertionError) as failed:
        run_plugin(devstack, tmp_path, {'FAKE_BOARD_MISSING': 'zynq1',
                                        'NOVA_READY_TIMEOUT': '1'})
    assert 'did not report its boards in 1 s' in str(failed.value)
    assert 'no full answer for zynq1' in str(failed.value)
    assert 'devstack@n-fpga' in str(failed.value)


def test_placement_conf_is_the_deployments(run):
    """No server-side retry of a lost allocation race (issue 20), beside
    what DevStack wrote.
    """
    conf = run['etc'] / 'placement' / 'placement.conf'
    assert_written(conf, deployment.placement())
    assert ('placement_database', 'connection') in ini(conf)


def limit_calls(run):
    return [call for call in run['calls']
            if call.startswith('openstack') and ' limit ' in call]


def test_no_region_quota_unless_asked(run):
    assert limit_calls(run) == []


def test_region_quota_is_a_registered_limit_on_unified_limits(quota_run):
    """NOVA_FPGA_REGION_QUOTA with NOVA_USE_UNIFIED_LIMITS: every
    project's default limit on the regions' resource class, registered
    for nova in DevStack's region in post-config (created: none yet).
    """
    admin = 'openstack --os-cloud devstack-system-admin registered limit '
    assert limit_calls(quota_run) == [
        admin + 'list --service nova --region RegionOne --resource-name '
        '%s -f value -c ID' % placement.REGION_LIMIT,
        admin + 'create --service nova --default-limit 3 --region RegionOne '
        '%s' % placement.REGION_LIMIT]
    post_config = quota_run['calls'][quota_run['calls'].index(
        'phase stack post-config'):quota_run['calls'].index(
        'phase stack extra')]
    assert limit_calls(quota_run)[-1] in post_config


REGION_QUOTA = r'''
set -o errexit
TOP=$DEVSTACK
TOP_DIR=$TOP
source $TOP/functions
function get_python_exec_prefix { echo $FAKE_BIN; }
function openstack {
    echo "openstack $*" >> $CALLS
    if [[ "$*" == *"registered limit list"* ]]; then
        echo "${FAKE_LIMIT_ID:-}"
    elif [[ "$*" == *"hypervisor list"* ]]; then
        # the compute nodes nova reports: the boards, once n-fpga runs
        echo "${FAKE_HYPERVISORS-${NOVA_FPGA_BOARD_LIST//,/$'\n'}}"
    fi
}
ENABLED_SERVICES=key,n-api,placement-api
source $NOVA_FPGA_DIR/devstack/settings
source $NOVA_FPGA_DIR/devstack/plugin.sh
configure_nova_fpga_region_quota
'''


def region_quota(devstack, work, settings):
    """configure_nova_fpga_region_quota alone: (its openstack calls, its
    output).
    """
    (work / 'bin').mkdir()
    (work / 'bin' / 'nova-fpga-config').symlink_to(
        process.BIN / 'nova-fpga-config')
    env = {'PATH': '/usr/bin:/bin', 'HOME': str(work),
           'DEVSTACK': str(devstack), 'NOVA_FPGA_DIR': str(ROOT),
           'CALLS': str(work / 'calls'), 'FAKE_BIN': str(work / 'bin'),
           'REGION_NAME': 'RegionOne', 'DEST': str(work),
           'DATA_DIR': str(work)}
    env.update(settings)
    out = subprocess.run(['bash', '-c', REGION_QUOTA], env=env, cwd=work,
                         capture_output=True, text=True, timeout=120)
    calls = (work / 'calls').read_text().splitlines() \
        if (work / 'calls').exists() else []
    return out, calls


def test_region_quota_sets_an_existing_limit(devstack, tmp_path):
    """Stacked again: the limit keystone has is set to the quota."""
    out, calls = region_quota(devstack, tmp_path, {
        'NOVA_USE_UNIFIED_LIMITS': 'True', 'NOVA_FPGA_REGION_QUOTA': '5',
        'FAKE_LIMIT_ID': 'limit-1'})
    assert out.returncode == 0, out.stdout + out.stderr
    assert calls[-1] == ('openstack --os-cloud devstack-system-admin '
                         'registered limit set --default-limit 5 limit-1')


def test_region_quota_without_unified_limits_says_so(devstack, tmp_path):
    """nova's legacy quotas cannot count regions: nothing registered,
    and the log says why.
    """
    out, calls = region_quota(devstack, tmp_path,
                              {'NOVA_FPGA_REGION_QUOTA': '3'})
    assert out.returncode == 0, out.stdout + out.stderr
    assert calls == []
    assert 'NOVA_FPGA_REGION_QUOTA=3 is not registered' in \
        out.stdout + out.stderr


def test_region_quota_must_be_a_number(devstack, tmp_path):
    out, calls = region_quota(devstack, tmp_path, {
        'NOVA_USE_UNIFIED_LIMITS': 'True', 'NOVA_FPGA_REGION_QUOTA': 'ten'})
    assert out.returncode != 0
    assert 'NOVA_FPGA_REGION_QUOTA=ten: a number of regions' in \
        out.stdout + out.stderr
    assert calls == []


def test_glance_conf_is_the_deployments(run):
    etc = run['etc'] / 'glance'
    conf = etc / 'glance-api.conf'
    data = pathlib.Path(run['env']['DATA_DIR'])
    assert_written(conf, deployment.glance(
        data / 'glance' / 'fpga', [deployment.REFERENCE_SHELL],
        pathlib.Path(run['env']['GLANCE_CONF_DIR']) /
        'property-protections-fpga.conf'))
    # DevStack's file store stays Glance's default (its own image uploads,
    # VM images); the bitstream store is one more backend
    assert ini(conf)[('DEFAULT', 'enabled_backends')] == [
        'fast:file, fpga:bitstream']
    assert ini(conf)[('glance_store', 'default_backend')] == ['fast']
    # which has a directory (DevStack's lib/glance sets none: a file store
    # without one refuses every image)
    assert ini(conf)[('fast', 'filesystem_store_datadir')] == [
        str(data / 'glance' / 'fast') + '/']
    paste = (etc / 'glance-api-paste.ini').read_text()
    # in the pipeline of DevStack's flavor (keystone+cachemanagement) too
    flavor = ini(conf)[('paste_deploy', 'flavor')][0]
    for name in ('keystone', flavor):
        pipeline = [line for line in paste.splitlines()
                    if line.startswith(name + ' = ')][0].split()
        assert pipeline[-4:] == ['bitstream_upload_errors',
                                 'bitstream_snapshots',
                                 'bitstream_store_route', 'rootapp'], name
    assert (etc / 'policy.yaml').read_text() == \
        deployment.glance_policy(['id-of-fpga-builders'])
    assert (etc / 'property-protections-fpga.conf').read_text() == \
        deployment.PROPERTY_PROTECTIONS.read_text()


#: neutron-server's own start-up checks of an ML2 file: the type manager
#: (it ends the service when a project network type has no type driver)
#: and neutron-lib's parser of the VLAN ranges (the VLAN type driver's)
NEUTRON_CHECK = """
import json, sys
from neutron_lib.plugins import utils as plugin_utils
from oslo_config import cfg
from neutron.conf import common as common_conf
from neutron.conf.plugins.ml2 import config as ml2_config
from neutron.plugins.ml2 import managers
common_conf.register_core_common_config_opts()
ml2_config.register_ml2_plugin_opts()
cfg.CONF(['--config-file', sys.argv[1]], project='neutron')
types = managers.TypeManager()
ranges = plugin_utils.parse_network_vlan_ranges(
    cfg.CONF.ml2_type_vlan.network_vlan_ranges)
print(json.dumps({'type_drivers': sorted(types.drivers),
                  'project_network_types': types.project_network_types,
                  'vlan_ranges': {net: [list(r) for r in rs]
                                  for net, rs in ranges.items()}}))
"""


def neutron_reads(path):
    """What neutron-server makes of an ML2 file at start, or its reason
    for ending.
    """
    out = subprocess.run([sys.executable, '-c', NEUTRON_CHECK, str(path)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope='module')
def ovs_run(devstack, tmp_path_factory):
    """The plugin with ML2/OVS as devstack-check's local.conf sets it."""
    return run_plugin(devstack, tmp_path_factory.mktemp('stack-ovs'), {
        'Q_AGENT': 'openvswitch',
        'Q_ML2_PLUGIN_MECHANISM_DRIVERS': 'openvswitch'})


@pytest.fixture(scope='module')
def vlan_run(devstack, tmp_path_factory):
    """The plugin with VLAN project networks of DevStack's own range and
    DevStack's type drivers named.
    """
    return run_plugin(devstack, tmp_path_factory.mktemp('stack-vlan'), {
        'Q_AGENT': 'openvswitch',
        'Q_ML2_PLUGIN_MECHANISM_DRIVERS': 'openvswitch',
        'Q_ML2_TENANT_NETWORK_TYPE': 'vlan',
        'Q_ML2_PLUGIN_TYPE_DRIVERS': 'flat,geneve',
        'TENANT_VLAN_RANGE': '1000:1999'})


@pytest.mark.parametrize('which, devstacks_driver, project_types', [
    ('run', 'ovn', ['geneve']),
    ('ovs_run', 'openvswitch', ['geneve']),
    ('vlan_run', 'openvswitch', ['vlan']),
])
def test_neutron_ml2_binds_ports_to_the_boards_beside_devstacks(
        request, which, devstacks_driver, project_types):
    """DevStack's lib/neutron writes ml2_conf.ini with the plugin's
    variables: the boards' mechanism driver before DevStack's, the boards'
    VLAN range beside DevStack's, DevStack's project network type kept;
    neutron-server's own checks accept the file.
    """
    run = request.getfixturevalue(which)
    path = run['etc'] / 'ml2' / 'ml2_conf.ini'
    conf = ini(path)
    ours = expected(deployment.neutron_ml2(BOARDS, switch_driver='noop'))
    assert conf[('ml2_zynq', 'boards')] == ours[('ml2_zynq', 'boards')]
    assert conf[('ml2_zynq', 'switch_driver')] == ['noop']
    assert conf[('ml2', 'mechanism_drivers')] == [
        '%s,%s' % (deployment.MECHANISM_DRIVER, devstacks_driver)]
    # only the boards' section was added after DevStack wrote the file
    devstacks = ini(run['etc'] / 'ml2_conf.devstack.ini')
    assert {k: v for k, v in conf.items() if k[0] != 'ml2_zynq'} == \
        devstacks
    neutron = neutron_reads(path)
    assert neutron['project_network_types'] == project_types
    assert 'vlan' in neutron['type_drivers']
    physnet, first, last = ours[('ml2_type_vlan', 'network_vlan_ranges')][
        0].split(':')
    assert neutron['vlan_ranges'][physnet] == [[int(first), int(last)]]
    # DevStack's own physical network stays
    assert 'public' in neutron['vlan_ranges']
    if which == 'vlan_run':
        assert neutron['vlan_ranges']['public'] == [[1000, 1999]]
        assert neutron['type_drivers'] == ['flat', 'geneve', 'vlan']


def test_the_plugin_of_45ff410_fails_this_check(devstack, tmp_path):
    """The class of break this test exists for: the ML2 merge of main
    45ff410 (tenant_network_types/type_drivers edited after DevStack)
    leaves an ML2 file neutron-server refuses.
    """
    path = tmp_path / 'ml2_conf.ini'
    # what that plugin's configure_nova_fpga_neutron made of DevStack's
    # ML2/OVS file (tools/devstack-check's local.conf)
    path.write_text('[ml2]\nproject_network_types = geneve\n'
                    'tenant_network_types = geneve,vlan\n'
                    'mechanism_drivers = fpga_board,openvswitch\n'
                    'type_drivers = flat,vlan\n')
    out = subprocess.run([sys.executable, '-c', NEUTRON_CHECK, str(path)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert 'No type driver for project network_type: geneve' in (
        out.stdout + out.stderr)


def test_each_board_agent_is_configured_and_run(run):
    state = pathlib.Path(run['env']['DATA_DIR']) / 'nova-fpga'
    conf_dir = pathlib.Path(run['env']['NOVA_FPGA_CONF_DIR'])
    for board in BOARDS:
        assert_written(run['etc'] / 'nova-fpga' / ('agent-%s.conf' % board),
                       deployment.agent(
                           board, 'rabbit://nova-fpga-%s:secret@10.0.0.5:'
                           '5672/%s' % (board, deployment.board_vhost(
                               'nova_fpga', board)), state / board,
                           hdl_dir=ROOT / 'hdl'))
        assert 'run_process nova-fpga-agent-%s %s/nova-fpga-agent ' \
            '--config-file %s/agent-%s.conf' % (
                board, run['env']['FAKE_BIN'], conf_dir, board) \
            in run['calls']
        # the board's user: only its own vhost, only the board's rights;
        # nova-compute's (DevStack's user) all rights there
        vhost = deployment.board_vhost('nova_fpga', board)
        assert 'rabbitmqctl add_vhost %s' % vhost in run['calls']
        granted = [call for call in run['calls']
                   if call.startswith('rabbitmqctl set_permissions') and
                   'nova-fpga-%s ' % board in call]
        assert granted == ['rabbitmqctl set_permissions -p %s nova-fpga-%s '
                           '%s' % (vhost, board, ' '.join(
                               deployment.board_permissions(board)))]
        assert 'rabbitmqctl set_permissions -p %s stackrabbit .* .* .*' % (
            vhost) in run['calls']
        assert 'rabbitmqctl delete_vhost %s' % vhost in run['calls']
        assert 'stop_process nova-fpga-agent-%s' % board in run['calls']


@pytest.fixture(scope='module')
def signed_run(devstack, tmp_path_factory):
    """The same with NOVA_FPGA_SIGNED_ONLY_BOARDS, as devstack-check's."""
    return run_plugin(devstack, tmp_path_factory.mktemp('stack-signed'), {
        'NOVA_FPGA_SIGNED_ONLY_BOARDS': 'zynq1'})


def test_each_board_trusts_the_plugins_signing_ca(run, signed_run):
    """With no NOVA_FPGA_TRUSTED_CAS the plugin makes a bitstream-signing CA
    (openssl) and installs it in each emulated board's trust store, as a
    board image does; NOVA_FPGA_SIGNED_ONLY_BOARDS sets those boards'
    require_signed_bitstreams.
    """
    from cryptography import x509
    for result, signed_only in ((run, set()), (signed_run, {'zynq1'})):
        state = pathlib.Path(result['env']['DATA_DIR']) / 'nova-fpga'
        # as post-config left it (clean removes it)
        kept = result['etc'] / 'nova-fpga-state'
        ca = x509.load_pem_x509_certificate(
            (kept / 'signing-ca' / 'ca.pem').read_bytes())
        assert ca.extensions.get_extension_for_class(
            x509.BasicConstraints).value.ca
        assert (kept / 'signing-ca' / 'ca.key').stat().st_mode & 0o077 == 0
        for board in BOARDS:
            written = ini(result['etc'] / 'nova-fpga' /
                          ('agent-%s.conf' % board))
            assert written[('agent', 'trusted_ca_dir')] == [
                str(state / board / 'trusted-ca')]
            store = kept / board / 'trusted-ca'
            assert [p.read_bytes() for p in store.iterdir()] == [
                (kept / 'signing-ca' / 'ca.pem').read_bytes()]
            assert store.stat().st_mode & 0o777 == 0o755
            assert written.get(('agent', 'require_signed_bitstreams')) == (
                ['True'] if board in signed_only else None), board


def test_phases_do_what_devstack_expects_of_them(run):
    calls = run['calls']
    phase = {}
    current = None
    for call in calls:
        if call.startswith('phase '):
            current = call[len('phase '):]
        else:
            phase.setdefault(current, []).append(call)
    install = phase['stack install']
    # a path entry for DevStack's nova, in the site directory of DevStack's
    # python (which sudo tee writes there)
    pth = install.pop(2).split()
    assert pth[0] == 'tee' and pth[2:] == ['<', run['env']['NOVA_DIR']]
    assert pth[1].endswith('-packages/nova-fpga-nova-dir.pth')
    assert install == [
        'setup_develop %s' % ROOT, 'setup_develop %s/nova-virt-zynq' % ROOT,
        'pip_install %s/agent/emulator[hdl]' % ROOT]
    assert 'rabbitmqctl add_vhost nova_fpga' in phase['stack post-config']
    manage = [c for c in phase['stack extra']
              if 'nova-fpga-manage' in c and ' board list ' not in c]
    assert manage[0] == ('nova-fpga-manage --os-cloud devstack-admin flavor '
                         'create')
    assert [c.split()[5] for c in manage[1:]] == [
        'vtc-bitstream', 'loopback-bitstream', 'pr-0-add']
    assert 'stack pre-install' not in phase
    assert 'stack test-config' not in phase
    assert phase['clean'][-1] == 'rabbitmqctl delete_vhost nova_fpga'
    assert not (pathlib.Path(run['env']['DATA_DIR']) / 'nova-fpga').exists()


def test_the_demo_cloud_writes_the_same_options(tmp_path):
    """The demo's nova.conf, placement.conf, glance-api.conf and agent
    configuration hold every option the deployment module gives, with its
    values for the demo's inputs.
    """
    from nova_fpga_devtools.localcloud import nova as localnova

    class Keystone:
        auth_url = 'http://keystone/v3'
        dir = tmp_path / 'keystone'

        @staticmethod
        def password(user):
            return 'pw'
    demo_nova = localnova.Nova(Keystone(), tmp_path, {
        'api': 'sqlite://', 'cell0': 'sqlite://', 'cell1': 'sqlite://'},
        'rabbit://nova', BOARDS, RABBIT, port=1)
    conf = {key: [deployment.text(v) for v in (
        value if isinstance(value, deployment.Multi) else [value])]
        for key, value in demo_nova.conf().items()}
    for key, values in expected(deployment.nova(
            BOARDS, RABBIT, demo_nova.conf_dir / 'policy.d')).items():
        assert conf[key] == values, key
    demo_glance = localglance.bitstream_glance(Keystone(), tmp_path, 'p1')
    conf = {key: [deployment.text(value)]
            for key, value in demo_glance.conf().items()}
    for key, values in expected(deployment.glance(
            tmp_path / 'glance' / 'images' / 'fpga',
            [deployment.REFERENCE_SHELL],
            'property-protections.conf')).items():
        assert conf[key] == values, key
    assert set(conf[('DEFAULT', 'enabled_backends')][0].split(',')) == \
        set(deployment.glance_backends('file:file').split(', '))
    from nova_fpga_devtools.localcloud import placement as localplacement
    demo_placement = localplacement.Placement(Keystone(), tmp_path,
                                              'sqlite://', 1)
    conf = {key: [deployment.text(value)]
            for key, value in demo_placement.conf().items()}
    for key, values in expected(deployment.placement()).items():
        assert conf[key] == values, key
    board = localboards.Board(tmp_path, 'zynq0', RABBIT)
    conf = {key: [deployment.text(value)]
            for key, value in board.conf().items()}
    for key, values in expected(deployment.agent(
            'zynq0', RABBIT, board.dir / 'state',
            hdl_dir=nova_fpga_devtools.HDL)).items():
        assert conf[key] == values, key


def test_tls_the_agents_bus_on_rabbitmqs_tls_listener(tls_run):
    """With NOVA_FPGA_TLS, DevStack's CA issues RabbitMQ's certificate and
    nova-compute's and each board's; rabbitmq.conf gets the deployment's
    TLS listener, and nova.conf and the agents' files the deployment's TLS
    options with the TLS port.
    """
    env = tls_run['env']
    ca_dir = pathlib.Path(env['DATA_DIR']) / 'CA' / 'int-ca'
    port = deployment.RABBITMQ_TLS_PORT
    url = RABBIT.replace(':5672/', ':%d/' % port)

    def files(name):
        return deployment.Tls(ca_dir / 'ca-chain.pem',
                              ca_dir / ('%s.crt' % name),
                              ca_dir / 'private' / ('%s.key' % name))
    etc = tls_run['etc']
    assert_written(etc / 'nova' / 'nova-fpga-compute.conf',
                   deployment.nova_compute(BOARDS, url,
                                           tls=files('nova-fpga-compute')))
    state = pathlib.Path(env['DATA_DIR']) / 'nova-fpga'
    for board in BOARDS:
        assert_written(etc / 'nova-fpga' / ('agent-%s.conf' % board),
                       deployment.agent(
                           board, 'rabbit://nova-fpga-%s:secret@10.0.0.5:'
                           '%d/%s' % (board, port, deployment.board_vhost(
                               'nova_fpga', board)), state / board,
                           hdl_dir=ROOT / 'hdl',
                           tls=files('nova-fpga-%s' % board)))
    # RabbitMQ: the deployment's listener, with its copies of the files
    broker = pathlib.Path(env['NOVA_FPGA_RABBITMQ_CONF']).parent
    conf = (etc / broker.name / 'rabbitmq.conf').read_text()
    assert conf == (
        "# nova-fpga: the agents' TLS listener (DevStack plugin)\n"
        + deployment.rabbitmq_tls(str(port), deployment.Tls(
            broker / 'nova-fpga' / 'ca.pem',
            broker / 'nova-fpga' / 'cert.pem',
            broker / 'nova-fpga' / 'key.pem'))
        + '# nova-fpga: end\n')
    assert (broker / 'nova-fpga' / 'key.pem').stat().st_mode & 0o777 == \
        0o640
    post = tls_run['calls'][tls_run['calls'].index(
        'phase stack post-config'):]
    assert post.index('restart_service rabbitmq-server') < \
        post.index('rabbitmqctl await_startup') < \
        post.index('rabbitmqctl add_vhost nova_fpga')
    # the certificates: the broker's for the address the URLs name, each
    # client's for client authentication, all of DevStack's CA
    chain = str(ca_dir / 'ca-chain.pem')
    openssl = ['openssl', 'verify', '-CAfile', chain, '-purpose']
    server = str(broker / 'nova-fpga' / 'cert.pem')
    assert subprocess.run(openssl + ['sslserver', server],
                          capture_output=True).returncode == 0
    names = subprocess.run(
        ['openssl', 'x509', '-noout', '-ext', 'subjectAltName', '-in',
         server], capture_output=True, text=True, check=True).stdout
    assert 'IP Address:10.0.0.5' in names
    for name in ['nova-fpga-compute'] + ['nova-fpga-%s' % b for b in BOARDS]:
        done = subprocess.run(openssl + ['sslclient', str(ca_dir / (
            '%s.crt' % name))], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


def test_without_tls_rabbitmq_is_left_alone(run):
    assert not [call for call in run['calls']
                if call.startswith(('restart_service', 'update-ca', 'cp '))]
    assert not (pathlib.Path(run['env']['DATA_DIR']) / 'CA').exists()


def test_shell_files_are_bashate_and_bash_clean():
    out = subprocess.run([str(process.BIN / 'bashate'), *BASHATE_FLAGS,
                          *map(str, SHELL_FILES)], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    for path in SHELL_FILES:
        syntax = subprocess.run(['bash', '-n', str(path)],
                                capture_output=True, text=True)
        assert syntax.returncode == 0, syntax.stderr


def test_the_guides_local_conf_is_the_one_devstack_check_runs():
    """The developer guide's sample local.conf is devstack/local.conf.check
    (included, not copied), the file tools/devstack-check runs; no page
    carries a local.conf of its own.
    """
    check = PLUGIN / 'local.conf.check'
    guide = ROOT / 'doc' / 'source' / 'install' / 'devstack.rst'
    included = [
        (guide.parent / line.split('::', 1)[1].strip()).resolve()
        for line in guide.read_text().splitlines()
        if line.startswith('.. literalinclude::')]
    assert check.resolve() in included
    assert '"$CHECKOUT/devstack/local.conf.check"' in (
        ROOT / 'tools' / 'devstack-check').read_text()
    pages = [ROOT / 'README.md', PLUGIN / 'README.md'] + sorted(
        (ROOT / 'doc' / 'source').rglob('*.rst'))
    copies = [str(page.relative_to(ROOT)) for page in pages
              if '[[local|localrc]]' in page.read_text()]
    assert copies == []


#: local.conf.check's settings that are the lab's own (its address, its log
#: file, no git network), not the cloud's: Zuul's devstack job sets these
LAB_ONLY = {'ADMIN_PASSWORD', 'DATABASE_PASSWORD', 'RABBIT_PASSWORD',
            'SERVICE_PASSWORD', 'HOST_IP', 'SERVICE_HOST', 'LOGFILE',
            'GIT_BASE', 'RECLONE'}
#: services the lab disables for want of git network and devstack-check
#: replaces (tempest from PyPI); the Zuul job enables them
LAB_DISABLED = {'tempest'}


def _local_conf(path):
    """(localrc {KEY: value}, disabled services, plugins) of a local.conf."""
    return _local_conf_text(path.read_text())


def _local_conf_text(text):
    settings, disabled, plugins = {}, set(), {}
    section = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith('[['):
            section = line
            continue
        if section != '[[local|localrc]]' or not line or line[0] == '#':
            continue
        words = line.split()
        if words[0] == 'disable_service':
            disabled.update(words[1:])
        elif words[0] == 'enable_plugin':
            plugins[words[1]] = words[2:]
        else:
            key, _, value = line.partition('=')
            settings[key] = value
    return settings, disabled, plugins


def _zuul_text(value):
    # (not a dict lookup: 0 == False and 1 == True)
    return str(value)


def test_the_zuul_job_runs_devstack_checks_local_conf():
    settings, disabled, plugins = _local_conf(PLUGIN / 'local.conf.check')
    jobs = {item['job']['name']: item['job']
            for item in yaml.safe_load((ROOT / '.zuul.yaml').read_text())
            if 'job' in item}
    job = jobs['nova-fpga-devstack-tempest']
    assert job['parent'] == 'devstack-tempest'
    variables = job['vars']
    assert {key: _zuul_text(value) for key, value in
            variables['devstack_localrc'].items()} == {
        key: value for key, value in settings.items()
        if key not in LAB_ONLY}
    services = variables['devstack_services']
    assert {name for name, on in services.items() if not on} == \
        disabled - LAB_DISABLED
    assert all(services[name] for name in LAB_DISABLED)
    assert set(variables['devstack_plugins']) == set(plugins) == {
        'barbican', 'nova-fpga'}
    assert variables['tempest_plugins'] == ['nova-fpga']
    assert 'nova_fpga_tempest_plugin' in variables['tempest_test_regex']
    # the multinode job is this job on two nodes
    multinode = jobs['nova-fpga-devstack-tempest-multinode']
    assert multinode['parent'] == 'nova-fpga-devstack-tempest'


def _nova_fpga_settings(settings):
    return {key: value for key, value in settings.items()
            if key.startswith('NOVA_FPGA_')}


def test_the_multinode_job_runs_devstack_check_multinodes_settings():
    """The plugin's settings of `make devstack-check-multinode`'s two
    nodes (the controller's lines after local.conf.check, the board
    node's local.conf) are the multinode Zuul job's, node for node.
    """
    controller = PLUGIN / 'local.conf.check-controller'
    # (lines appended to local.conf.check's localrc: no section of their own)
    added, _, _ = _local_conf_text(
        '[[local|localrc]]\n' + controller.read_text())
    subnode, _, plugins = _local_conf(PLUGIN / 'local.conf.check-subnode')
    assert set(plugins) == {'nova-fpga'}
    job = {item['job']['name']: item['job']
           for item in yaml.safe_load((ROOT / '.zuul.yaml').read_text())
           if 'job' in item}['nova-fpga-devstack-tempest-multinode']
    assert {key: _zuul_text(value) for key, value in
            job['vars']['devstack_localrc'].items()} == \
        _nova_fpga_settings(added)
    group = job['group-vars']['subnode']
    assert {key: _zuul_text(value) for key, value in
            group['devstack_localrc'].items()} == \
        _nova_fpga_settings(subnode)
    # the board node runs the boards' nova-compute and the plugin
    assert group['devstack_services']['n-fpga'] is True
    assert group['devstack_services']['nova-fpga'] is True
    # the controller has no board, so the vTC can only land on the board
    # node's (what devstack-check-multinode checks)
    assert added['NOVA_FPGA_EMULATED_BOARDS'] == '0'
    assert added['NOVA_FPGA_REMOTE_BOARDS'] == ','.join(
        '%s%d' % (subnode['NOVA_FPGA_BOARD_PREFIX'], n)
        for n in range(int(subnode['NOVA_FPGA_EMULATED_BOARDS'])))


@pytest.fixture(scope='module')
def compute_node(devstack, tmp_path_factory):
    """The plugin on a compute/board node of a two-node DevStack: only
    nova-compute and the plugin there (RabbitMQ, Glance, neutron-server and
    the APIs on the controller), its boards named apart.
    """
    return run_plugin(devstack, tmp_path_factory.mktemp('stack-compute'), {
        'TEST_SERVICES': 'placement-client',
        'NOVA_FPGA_BOARD_PREFIX': 'node2-zynq'})


def test_a_compute_node_configures_only_nova_compute_and_its_boards(
        compute_node):
    calls = compute_node['calls']
    # RabbitMQ is the controller's: no rabbitmqctl here
    assert not [c for c in calls if c.startswith('rabbitmqctl')], calls
    # nor Glance's files, nor the samples (imported once, by the
    # controller), nor ML2's
    etc = compute_node['etc']
    assert not (etc / 'glance' / 'glance-api.conf').read_text().count(
        'bitstream')
    assert not [c for c in calls
                if 'nova-fpga-manage' in c and ' board list ' not in c]
    assert ('ml2_zynq', 'boards') not in ini(etc / 'ml2' / 'ml2_conf.ini') \
        if (etc / 'ml2' / 'ml2_conf.ini').exists() else True
    # no neutron service here, yet its nova-compute asks neutron-server
    # (on the controller) for ports: DevStack's own neutron section
    nova = ini(etc / 'nova' / 'nova.conf')
    assert nova[('neutron', 'auth_type')] == ['password']
    assert nova[('neutron', 'auth_url')][0].endswith('/identity')
    assert nova[('neutron', 'username')] == ['nova']
    assert nova[('neutron', 'region_name')] == ['RegionOne']
    # nor n-cpu or n-sch, yet its nova-compute reports the boards to
    # placement: DevStack's own placement section
    assert nova[('placement', 'auth_type')] == ['password']
    assert nova[('placement', 'username')] == ['nova']
    # nova-compute proxies this node's boards, named apart
    nova = ini(etc / 'nova' / 'nova-fpga-compute.conf')
    assert nova[('zynq', 'boards')] == ['node2-zynq0,node2-zynq1']
    for board in ('node2-zynq0', 'node2-zynq1'):
        assert (etc / 'nova-fpga' / ('agent-%s.conf' % board)).exists()
        assert any(c.startswith('run_process nova-fpga-agent-%s ' % board)
                   for c in calls)


def test_the_rabbitmq_node_makes_the_other_nodes_boards_users(devstack,
                                                              tmp_path):
    result = run_plugin(devstack, tmp_path, {
        'NOVA_FPGA_REMOTE_BOARDS': 'node2-zynq0,node2-zynq1'})
    added = [c.split()[2] for c in result['calls']
             if c.startswith('rabbitmqctl add_user')]
    assert added == ['nova-fpga-zynq0', 'nova-fpga-zynq1',
                     'nova-fpga-node2-zynq0', 'nova-fpga-node2-zynq1']
    # the controller's nova-compute proxies its own boards only
    nova = ini(result['etc'] / 'nova' / 'nova-fpga-compute.conf')
    assert nova[('zynq', 'boards')] == ['zynq0,zynq1']


def test_agents_whose_file_local_conf_merges_restart_after_the_merge(
        tmp_path):
    """stack.sh merges local.conf's post-config group after the plugin's
    post-config phase, where the agents started: an agent whose file it
    changes is restarted in extra (after the merge), the others not.
    """
    with tarfile.open(SNAPSHOT) as archive:
        archive.extractall(tmp_path, filter='data')
    devstack = tmp_path / 'devstack'
    (devstack / 'local.conf').write_text(
        '[[local|localrc]]\nADMIN_PASSWORD=secret\n'
        '[[post-config|$NOVA_FPGA_CONF_DIR/agent-zynq1.conf]]\n'
        '[agent]\nreport_interval = 5\n'
        '[[post-config|$NOVA_CONF]]\n[DEFAULT]\ndebug = True\n')
    result = run_plugin(devstack, tmp_path / 'work')
    calls = result['calls']
    extra = calls[calls.index('phase stack extra'):
                  calls.index('phase stack test-config')]
    stops = [c for c in extra if c.startswith('stop_process')]
    starts = [c for c in extra if c.startswith('run_process')]
    assert stops == ['stop_process nova-fpga-agent-zynq1']
    assert len(starts) == 2 and starts[0].startswith(
        'run_process nova-fpga-agent-zynq1 ')
    assert extra.index(stops[0]) < extra.index(starts[0])
    # and the boards' nova-compute after it (it finds the agent answering)
    assert starts[1].startswith('run_process n-fpga ')


def test_devstack_checks_multinode_constants_are_its_local_confs():
    """tools/devstack-check's node addresses and the board node's board
    prefix (which its scenario checks the vTC against) are the local.conf
    files' values.
    """
    script = dict(
        line.split('=', 1) for line in
        (ROOT / 'tools' / 'devstack-check').read_text().splitlines()
        if line.split('=', 1)[0] in ('CONTROLLER_IP', 'SUBNODE_IP',
                                     'SUBNODE_BOARD_PREFIX'))
    controller, _, _ = _local_conf_text(
        '[[local|localrc]]\n'
        + (PLUGIN / 'local.conf.check-controller').read_text())
    subnode, _, _ = _local_conf(PLUGIN / 'local.conf.check-subnode')
    assert script == {'CONTROLLER_IP': controller['HOST_IP'],
                      'SUBNODE_IP': subnode['HOST_IP'],
                      'SUBNODE_BOARD_PREFIX':
                      subnode['NOVA_FPGA_BOARD_PREFIX']}
    assert subnode['SERVICE_HOST'] == controller['HOST_IP']
