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

"""The tempest plugin (nova-fpga-tempest-plugin/) as tempest sees it,
without a cloud: tempest's plugin manager finds it by its entry point, its
options register into a fresh configuration, ``tempest run --list-tests``
in a workspace of ``tempest init`` lists every test with its idempotent
ID, and those IDs pass tempest's own check (check_uuid) and are unique
UUID4s.  The values the plugin cannot import from nova-fpga (it runs
beside tempest, not on the cloud) are checked here against the contract:
the region's resource class, the port's vif_type, the image properties,
the console's first line and the refusals' words.

tempest (pinned in constraints.txt) and the plugin (editable) are
installed by tools/setup-env and tox's environments.
"""
import ast
import io
import os
import pathlib
import re
import shutil
import subprocess
import sys
import uuid

from oslo_config import cfg
import pytest
from tempest.lib.cmd import check_uuid
from tempest.test_discover import plugins

from glance_store_bitstream import snapshots
from glance_store_bitstream import store
from nova_fpga import bitstream
from nova_fpga import catalogue
from nova_fpga.contract import network
from nova_fpga.contract import placement
from nova_fpga.contract import reports
from nova_fpga.contract import traits
from nova_fpga import conventions
from nova_fpga import deployment
from nova_fpga.virt import console
import nova_fpga_tempest_plugin
from nova_fpga_tempest_plugin import config as plugin_config
from nova_fpga_tempest_plugin import plugin
from nova_fpga_tempest_plugin.tests.api import test_region_servers_negative
from nova_fpga_tempest_plugin.tests import base
from tests.conftest import ROOT

DIST = ROOT / 'nova-fpga-tempest-plugin'
PACKAGE = DIST / 'nova_fpga_tempest_plugin'
TESTS = PACKAGE / 'tests'
ENTRY_POINT = 'nova_fpga_tests'
#: the tests the plugin must have (module.Class.method under
#: nova_fpga_tempest_plugin.tests)
REQUIRED = {
    'scenario.test_region_server_basic_ops.RegionServerBasicOpsTest.'
    'test_bitstream_server_loads_into_one_region_and_frees_it',
    'api.test_region_servers_negative.RegionImagesNegativeTest.'
    'test_ordinary_image_on_region_flavor_finds_no_valid_host',
    'api.test_region_servers_negative.RegionImagesNegativeTest.'
    'test_plain_upload_of_garbage_is_refused_with_a_reason',
    'api.test_region_servers_negative.RegionImagesNegativeTest.'
    'test_import_of_garbage_is_refused_with_a_reason',
    'api.test_region_servers_negative.RegionServerActionsNegativeTest.'
    'test_snapshot_of_region_server_is_refused',
    'api.test_region_capacity_negative.RegionCapacityNegativeTest.'
    'test_server_beyond_the_free_regions_finds_no_valid_host',
    'scenario.test_vtc_vlan_networks.VtcVlanNetworksTest.'
    'test_vtc_on_two_vlan_networks_binds_both_ports_to_its_board',
}
BIN = pathlib.Path(sys.executable).parent


def written_tests():
    """{test id: idempotent id} of every test method in the plugin's
    sources, read as tempest's check_uuid reads them (one per method; a
    method without one maps to None).
    """
    found = {}
    for path in sorted(TESTS.rglob('test_*.py')):
        module = '.'.join(path.relative_to(DIST).with_suffix('').parts)
        tree = ast.parse(path.read_text(encoding='utf-8'))
        for node in tree.body:
            if not (isinstance(node, ast.ClassDef)
                    and node.name.endswith('Test')):
                continue
            for method in node.body:
                if (isinstance(method, ast.FunctionDef)
                        and method.name.startswith('test')):
                    found['%s.%s.%s' % (module, node.name, method.name)] = \
                        check_uuid.TestChecker._get_idempotent_id(method)
    return found


def test_the_plugin_is_installed_from_this_checkout():
    assert pathlib.Path(nova_fpga_tempest_plugin.__file__).parent == PACKAGE


def test_tempest_finds_the_plugin_by_its_entry_point():
    manager = plugins.TempestTestPluginManager()
    found = {ext.name: ext.obj for ext in manager.ext_plugins}
    assert ENTRY_POINT in found, sorted(found)
    assert isinstance(found[ENTRY_POINT], plugin.NovaFpgaTempestPlugin)
    test_dir, top = manager.get_plugin_load_tests_tuple()[ENTRY_POINT]
    assert (pathlib.Path(test_dir), pathlib.Path(top)) == (TESTS, DIST)


def registered():
    conf = cfg.ConfigOpts()
    plugin.NovaFpgaTempestPlugin().register_opts(conf)
    return conf


def test_options_register_into_a_fresh_conf_with_their_defaults():
    conf = registered()
    conf([], project='tempest')
    assert conf.service_available.nova_fpga is True
    assert conf.fpga.flavor == conventions.FLAVOR_NAME
    assert conf.fpga.image == deployment.SAMPLES['vtc'][0]
    assert conf.fpga.region_resource_class == \
        placement.REGION_RESOURCE_CLASS
    assert conf.fpga.vlan_physical_network == ''
    assert conf.fpga.max_regions_test == 0
    assert conf.fpga.build_timeout > 0


def test_options_are_read_from_tempest_conf(tmp_path):
    path = tmp_path / 'tempest.conf'
    path.write_text('[service_available]\nnova_fpga = false\n'
                    '[fpga]\nimage = loopback-bitstream\n'
                    'vlan_physical_network = fpga\nmax_regions_test = 4\n')
    conf = registered()
    conf(['--config-file', str(path)], project='tempest')
    assert conf.service_available.nova_fpga is False
    assert (conf.fpga.image, conf.fpga.vlan_physical_network,
            conf.fpga.max_regions_test) == ('loopback-bitstream', 'fpga', 4)
    path.write_text('[fpga]\nmax_regions_test = -1\n')
    conf = registered()
    conf(['--config-file', str(path)], project='tempest')
    with pytest.raises(ValueError):
        conf.fpga.max_regions_test


def test_each_conf_keeps_its_own_settings():
    first, second = registered(), registered()
    first([], project='tempest')
    second([], project='tempest')
    first.set_override('vlan_physical_network', 'fpga', group='fpga')
    first.set_override('nova_fpga', False, group='service_available')
    assert first.fpga.vlan_physical_network == 'fpga'
    assert second.fpga.vlan_physical_network == ''
    assert second.service_available.nova_fpga is True


def test_the_listed_options_are_the_registered_ones_with_help():
    conf = registered()
    lists = plugin.NovaFpgaTempestPlugin().get_opt_lists()
    assert [group for group, _ in lists] == ['service_available', 'fpga']
    for group, opts in lists:
        assert {opt.dest for opt in opts} == set(conf[group])
        for opt in opts:
            assert opt.help and len(opt.help) > 20, (group, opt.dest)
    assert {opt.dest for opt in plugin_config.FpgaGroup} == {
        'flavor', 'image', 'build_timeout', 'region_resource_class',
        'vlan_physical_network', 'max_regions_test'}
    assert plugin_config.fpga_group.help


def test_the_guide_and_the_readme_name_every_option():
    page = (ROOT / 'doc' / 'source' / 'contributor' /
            'tempest.rst').read_text()
    readme = (DIST / 'README.rst').read_text()
    for group, opts in plugin_config.GROUPS:
        for opt in opts:
            assert '``[%s] %s``' % (group.name, opt.name) in page, opt.name
            assert re.search(r'^ +%s = ' % opt.name, readme, re.M), \
                opt.name


def test_every_test_has_a_unique_uuid4_idempotent_id():
    tests = written_tests()
    assert {name.split('tests.', 1)[1] for name in tests} >= REQUIRED
    assert all(tests.values()), [n for n, i in tests.items() if not i]
    ids = list(tests.values())
    assert len(set(ids)) == len(ids), sorted(ids)
    for value in ids:
        parsed = uuid.UUID(value)
        assert (str(parsed), parsed.version) == (value, 4), value


def test_tempest_check_uuid_passes_and_finds_the_tests():
    checker = check_uuid.TestChecker(nova_fpga_tempest_plugin)
    tests = checker.get_tests()
    found = {'%s.%s' % (module, name)
             for module, info in tests.items() for name in info['tests']}
    assert found == set(written_tests())
    assert not checker.find_untagged(tests)
    assert not checker.report_collisions(tests)
    run = subprocess.run(
        [sys.executable, '-m', 'tempest.lib.cmd.check_uuid', '--package',
         'nova_fpga_tempest_plugin'],
        capture_output=True, text=True, cwd=DIST, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr


def test_check_uuid_catches_a_duplicate_and_a_missing_id(tmp_path):
    """The check above can fail: a copy with one ID repeated and one
    removed is refused.
    """
    lib = tmp_path / 'lib'
    shutil.copytree(PACKAGE, lib / PACKAGE.name,
                    ignore=shutil.ignore_patterns('__pycache__'))
    ids = list(written_tests().values())
    path = lib / PACKAGE.name / 'tests' / 'api' / \
        'test_region_servers_negative.py'
    text = path.read_text()
    first = [i for i in ids if i in text][0]
    second = [i for i in ids if i in text and i != first][0]
    path.write_text(text.replace(second, first))
    run = subprocess.run(
        [sys.executable, '-m', 'tempest.lib.cmd.check_uuid', '--package',
         PACKAGE.name, '--libpath', str(lib)],
        capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert run.returncode != 0
    assert 'uuid %s collision' % first in run.stdout, run.stdout

    path.write_text(re.sub(r"\n *@decorators\.idempotent_id\('%s'\)" % first,
                           '', text, count=1))
    run = subprocess.run(
        [sys.executable, '-m', 'tempest.lib.cmd.check_uuid', '--package',
         PACKAGE.name, '--libpath', str(lib)],
        capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert run.returncode != 0
    assert 'missing @decorators.idempotent_id' in run.stdout, run.stdout


def test_tempest_run_lists_every_test_with_its_idempotent_id(tmp_path):
    # tempest init records its workspaces in ~/.tempest: a HOME of its own
    env = dict(os.environ, HOME=str(tmp_path))
    for name in ('TEMPEST_CONFIG', 'TEMPEST_CONFIG_DIR'):
        env.pop(name, None)
    workspace = tmp_path / 'workspace'
    subprocess.run([str(BIN / 'tempest'), 'init', str(workspace)], env=env,
                   check=True, capture_output=True, timeout=300)
    run = subprocess.run(
        [str(BIN / 'tempest'), 'run', '--list-tests', '--regex',
         'nova_fpga_tempest_plugin'],
        cwd=workspace, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    listed = {}
    for line in run.stdout.splitlines():
        match = re.match(r'^(nova_fpga_tempest_plugin\.\S+)\[(.*)\]$', line)
        if match:
            listed[match.group(1)] = match.group(2).split(',')
    written = written_tests()
    assert set(listed) == set(written), run.stdout
    for name, idempotent_id in written.items():
        assert 'id-%s' % idempotent_id in listed[name], (name, listed[name])
    negative = [name for name, attrs in listed.items() if 'negative' in attrs]
    assert len(negative) >= 5, listed


# What the plugin's tests expect of the cloud, from nova-fpga's own code.

def test_the_contract_values_the_tests_expect():
    assert base.REGION_VIF_TYPE == network.VIF_TYPE
    assert base.MODULE_ID_PROPERTY == traits.MODULE_ID_PROPERTY
    assert base.SHELL_ID_PROPERTY == traits.SHELL_ID_PROPERTY
    assert base.IMPORT_ERROR_PROPERTY == traits.IMPORT_ERROR_PROPERTY
    assert base.REGION_PROVIDER_NAME % ('zynq0', 'rp1') == \
        placement.region_provider_name('zynq0', 'rp1')


def sample_image():
    """The vTC sample's properties as the import writes them."""
    name, data = [sample for sample in deployment.samples()
                  if sample[0] == deployment.SAMPLES['vtc'][0]][0]
    info = bitstream.validate(data)
    return dict(traits.image_properties(
        info, '0b9a5a3e-0000-4000-8000-000000000001'), id='x', name=name)


def test_the_image_traits_the_tests_read_are_the_imports():
    image = sample_image()
    wanted = base.FpgaBaseTest.image_traits(image)
    assert wanted
    assert wanted == sorted(key.split(':', 1)[1] for key in image
                            if key.startswith('trait:'))
    assert all(t.startswith(traits.TRAIT_PREFIX) for t in wanted)


def test_the_console_line_the_scenario_reads():
    image = sample_image()
    stats = reports.RegionStats(
        region='rp1', state='ACTIVE',
        module_id=image[traits.MODULE_ID_PROPERTY], log=['loaded'])
    text = console.render('zynq0', stats, catalogue.load())
    match = base.CONSOLE_HEADLINE.search(text)
    assert match, text
    assert match.groupdict() == {
        'board': 'zynq0', 'region': 'rp1', 'state': 'ACTIVE',
        'module': image[traits.MODULE_ID_PROPERTY]}


def test_the_refusals_the_negative_tests_expect():
    negative = test_region_servers_negative
    assert negative.SNAPSHOT_REFUSAL in snapshots.REFUSAL
    reader = store._ValidatingReader(io.BytesIO(negative.GARBAGE),
                                     ['xc7z020'], imported=False)
    with pytest.raises(store.BitstreamRejected) as refused:
        while reader.read(4096):
            pass
    assert negative.STORE_REFUSAL in str(refused.value)
    with pytest.raises(bitstream.BitstreamError):
        bitstream.validate(negative.GARBAGE)
    plugin_source = (ROOT / 'glance_store_bitstream' /
                     'import_plugin.py').read_text()
    assert "'%s: %%s'" % negative.IMPORT_REFUSAL in plugin_source
