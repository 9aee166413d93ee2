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

"""The Yocto layer agent/yocto/meta-nova-fpga, as far as this machine can
take it without bitbake.

- oelint-adv --release scarthgap is clean on every recipe (rules left out
  only in the layer's .oelint.cfg, each with its reason), and finds what
  it should in a recipe broken on purpose;
- layer.conf declares the scarthgap series, its collection and priority;
- what the agent imports on a board, found by running it in a board-role
  virtualenv (nova_fpga_devtools.yocto's probe), is each provided by a
  recipe of the layer at its constraints.txt version (or by a named
  upstream recipe of exactly that version), the agent recipe's RDEPENDS
  cover them, and every RDEPENDS of the layer resolves;
- the generated files are current (the generator's check mode: no
  network), and a changed pin or an edited recipe is caught;
- the shell's overlay source in the layer is nova-fpga-dt's output for
  the manifest, compiles with dtc -@ and matches the manifest node by node
  (the check of tests/unit/test_shell_overlay.py);
- the task bodies of the shell and agent recipes, run with bitbake's
  variables set as a scarthgap build sets them, install the real full
  bitstream (a Zynq-7020 stand-in from the shared real data), the compiled
  overlay, the manifest where the README's agent.conf points, and the
  project's own unit, sample configuration and sudoers rule from its sdist;
- that sdist builds as the agent recipe's setuptools3 builds it
  (setup.py bdist_wheel) with scarthgap's setuptools 69.1.1 and wheel
  0.42.0.
"""
import configparser
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile

import fdt
import pytest

from nova_fpga.bitstream import validator
from nova_fpga.cmd import dt as dt_cmd
from nova_fpga.contract import devicetree
from nova_fpga.contract import shell
from nova_fpga_devtools import yocto
from tests.conftest import REPORT
from tests.conftest import ROOT
from tests.unit.bitstream import realfiles
from tests.unit import test_shell_overlay

LAYER = ROOT / 'agent' / 'yocto' / 'meta-nova-fpga'
OELINT = pathlib.Path(sys.executable).with_name('oelint-adv')
AGENT_RECIPE = LAYER / 'recipes-openstack' / 'nova-fpga-agent' / \
    'nova-fpga-agent_0.1.0.bb'
AGENT_INC = LAYER / yocto.AGENT_INC
SHELL_RECIPE = LAYER / 'recipes-bsp' / 'nova-fpga-shell' / \
    'nova-fpga-shell-reference_1.0.0.bb'
SHELL_FILES = LAYER / yocto.SHELL_FILES
#: bitbake's variables as a scarthgap build for a Zynq sets them
#: (bitbake.conf; no usrmerge)
BITBAKE_DIRS = {
    'nonarch_base_libdir': '/lib', 'base_sbindir': '/sbin',
    'libexecdir': '/usr/libexec', 'sysconfdir': '/etc',
    'localstatedir': '/var', 'bindir': '/usr/bin',
    'systemd_system_unitdir': '/lib/systemd/system',
}
#: openembedded-core scarthgap's setuptools and wheel, what setuptools3
#: builds the agent with
SCARTHGAP_SETUPTOOLS = tuple('%s==%s' % (name, yocto.SCARTHGAP_BUILD_TOOLS[
    name]) for name in ('setuptools', 'wheel'))
#: runtime packages of openembedded-core the layer's recipes name
OE_CORE_PACKAGES = set(yocto.AGENT_RDEPENDS)
#: what linux-xlnx packages with the layer's kernel options (a module)
KERNEL_PACKAGES = {'kernel-module-uio-pdrv-genirq'}
KERNEL_DIR = LAYER / 'dynamic-layers' / 'xilinx' / 'recipes-kernel' / 'linux'
UDMABUF_RECIPE = LAYER / 'recipes-kernel' / 'u-dma-buf' / \
    'u-dma-buf_5.5.0.bb'


def recipes():
    return sorted(LAYER.rglob('*.bb')) + sorted(LAYER.rglob('*.bbappend'))


def oelint(files, cwd=LAYER):
    env = dict(os.environ, OELINT_CONFIG=str(LAYER / '.oelint.cfg'))
    done = subprocess.run(
        [OELINT, '--release', 'scarthgap', '--quiet', '--relpaths',
         '--jobs', '1'] + [str(f) for f in files], cwd=cwd, env=env,
        capture_output=True, text=True, timeout=600)
    return done.returncode, (done.stdout + done.stderr).strip()


def test_oelint_is_clean_on_every_recipe():
    files = recipes()
    assert len(files) > 35
    status, findings = oelint(files)
    assert (status, findings) == (0, '')


def test_oelint_finds_what_is_wrong(tmp_path):
    broken = tmp_path / 'python3-broken_1.0.bb'
    text = (LAYER / 'recipes-devtools' / 'python' /
            'python3-vine_5.1.0.bb').read_text()
    broken.write_text(text.replace('SUMMARY = ', 'SUMMARY =  ')
                      .replace('LICENSE = "BSD-3-Clause"\n', ''))
    status, findings = oelint([broken], cwd=tmp_path)
    assert status != 0
    assert 'oelint.var.mandatoryvar.LICENSE' in findings


def assignments(path):
    """The single-line `VAR = "value"` assignments of a bitbake file."""
    found = {}
    for line in path.read_text().splitlines():
        match = re.match(r'^([A-Za-z0-9_:${}.-]+)\s*(\?\?=|\?=|=|\+=|\.=)'
                         r'\s*"([^"\\]*)"\s*$', line)
        if match:
            found[match.group(1)] = match.group(3)
    return found


def test_layer_conf_is_for_scarthgap():
    conf = assignments(LAYER / 'conf' / 'layer.conf')
    assert conf['BBFILE_COLLECTIONS'].split() == ['nova-fpga']
    assert conf['LAYERSERIES_COMPAT_nova-fpga'].split() == ['scarthgap']
    assert conf['LAYERDEPENDS_nova-fpga'].split() == ['core']
    assert conf['BBFILE_PATTERN_nova-fpga'] == '^${LAYERDIR}/'
    # above openembedded-core (5) and meta-python (7), whose recipes of
    # the same names have other versions than the pins
    assert int(conf['BBFILE_PRIORITY_nova-fpga']) > 7
    assert int(conf['LAYERVERSION_nova-fpga']) >= 1


def test_image_fragment_installs_the_packagegroup():
    inc = assignments(LAYER / 'conf' / 'nova-fpga-image.inc')
    assert inc['IMAGE_INSTALL:append'].split() == ['packagegroup-nova-fpga']
    rootfs = [line for line in
              (LAYER / 'conf' / 'user-rootfsconfig').read_text().splitlines()
              if line and not line.startswith('#')]
    assert rootfs == ['CONFIG_packagegroup-nova-fpga']
    group = rdepends(LAYER / 'recipes-core' / 'packagegroups' /
                     'packagegroup-nova-fpga.bb')
    assert group == {'nova-fpga-agent', 'nova-fpga-shell-reference',
                     'u-dma-buf', 'kernel-module-uio-pdrv-genirq'}


def rdepends(*paths):
    """Every package named in RDEPENDS:${PN} of the files."""
    names = set()
    for path in paths:
        text = path.read_text().replace('\\\n', ' ')
        for match in re.finditer(r'^RDEPENDS:\$\{PN\}\s*\+?=\s*"([^"]*)"',
                                 text, re.M):
            names |= set(match.group(1).split())
    return names


def layer_recipes():
    """{recipe name: version} of the .bb files of the layer."""
    found = {}
    for path in LAYER.rglob('*.bb'):
        name, _, version = path.stem.partition('_')
        found[name] = version
    return found


@pytest.fixture(scope='module')
def board(tmp_path_factory):
    """The board role in a fresh virtualenv, and what the probe found
    there.
    """
    top = tmp_path_factory.mktemp('board-layer')
    venv = yocto.board_venv(top)
    found = yocto.probe(venv)
    REPORT.append('agent imports on a board (tests/yocto): %s' % ', '.join(
        '%s %s' % (name, found['installed'][name]['version'])
        for name in sorted(found['imported'], key=str.lower)
        if name != 'nova-fpga'))
    return {'found': found, 'venv': venv,
            'sdist': next((top / 'dist').glob('*.tar.gz'))}


def test_probe_ran_what_a_board_runs(board):
    found = board['found']
    imported = yocto.imported(found)
    # the rabbit driver (kombu, amqp), the RPC server's executor
    # (futurist), the privsep daemon (oslo.privsep, cffi)
    for name in ('kombu', 'amqp', 'futurist', 'oslo-privsep', 'cffi',
                 'oslo-messaging', 'oslo-config', 'oslo-log', 'stevedore'):
        assert name in imported
    assert {'fpga_manager', 'xdevcfg'} <= set(found['backends'])
    assert 'sim' not in found['backends']
    assert found['unowned'] == []
    # the standard library comes from python3-modules
    assert {'json', 'logging', 'asyncio', 'ssl', 'ctypes'} <= \
        set(found['stdlib'])


def test_every_import_is_provided_at_its_pin(board):
    found = board['found']
    pinned = yocto.board_pins()
    provided = layer_recipes()
    for name in yocto.imported(found):
        version = found['installed'][next(
            n for n in found['installed']
            if yocto.normalize(n) == name)]['version']
        assert version == pinned[name], name
        if name in yocto.UPSTREAM:
            layer, recipe, upstream = yocto.UPSTREAM[name]
            assert upstream == pinned[name], (name, layer, recipe)
        else:
            assert provided.get(yocto.recipe_name(name)) == pinned[name], \
                name
    # the agent recipe's RDEPENDS cover them
    agent = rdepends(AGENT_RECIPE, AGENT_INC)
    assert {yocto.recipe_name(n) for n in yocto.imported(found)} <= agent
    assert 'python3-modules' in agent


def test_every_rdepends_of_the_layer_resolves():
    provided = set(layer_recipes()) | {
        yocto.recipe_name(n) for n in yocto.UPSTREAM} | KERNEL_PACKAGES
    for path in LAYER.rglob('*.bb'):
        extra = rdepends(path, *path.parent.glob('*.inc')) - provided - \
            OE_CORE_PACKAGES
        assert extra == set(), path.name


def test_generated_files_are_current(board):
    files, provided = yocto.expected(board['found'], yocto.load_sdists(),
                                     yocto.board_pins())
    assert yocto.differences(files) == []
    assert set(provided) == set(yocto.imported(board['found']))


def test_check_command_says_current(board, capsys):
    assert yocto.main(['--check', '--venv', str(board['venv'])]) == 0
    assert capsys.readouterr().out == ''


def test_check_catches_a_changed_pin_or_an_edited_recipe(board, tmp_path):
    pinned = dict(yocto.board_pins(), kombu='5.6.0')
    with pytest.raises(yocto.LayerError, match='kombu 5.6.0'):
        yocto.expected(board['found'], yocto.load_sdists(), pinned)
    copy = tmp_path / 'layer'
    shutil.copytree(LAYER, copy)
    files, _ = yocto.expected(board['found'], yocto.load_sdists(),
                              yocto.board_pins())
    vine = copy / 'recipes-devtools' / 'python' / 'python3-vine_5.1.0.bb'
    vine.write_text(vine.read_text().replace('BSD-3-Clause', 'MIT'))
    stale = copy / 'recipes-devtools' / 'python' / 'python3-old_1.0.bb'
    stale.write_text(yocto.MARKER + '\n')
    assert yocto.differences(files, copy) == [
        'differs: recipes-devtools/python/python3-vine_5.1.0.bb',
        'stale: recipes-devtools/python/python3-old_1.0.bb']


def test_overlay_source_is_nova_fpga_dt_output(tmp_path):
    out = tmp_path / 'shell.dtso'
    assert dt_cmd.main([str(shell.REFERENCE), '-o', str(out)]) == 0
    assert (SHELL_FILES / 'reference_xc7z020.dtso').read_text() == \
        out.read_text()
    assert (SHELL_FILES / 'reference_xc7z020.json').read_text() == \
        shell.REFERENCE.read_text()


def test_overlay_source_compiles_and_matches_the_manifest(tmp_path):
    tree = test_shell_overlay.compile_overlay(
        tmp_path, (SHELL_FILES / 'reference_xc7z020.dtso').read_text())
    test_shell_overlay.assert_matches_manifest(
        tree, shell.load(SHELL_FILES / 'reference_xc7z020.json'))


def task(recipe, name):
    """The shell body of a task of a recipe (`name() {` ... `}`)."""
    match = re.search(r'^%s\(\) \{\n(.*?)^\}' % re.escape(name),
                      recipe.read_text(), re.M | re.S)
    assert match, name
    return match.group(1)


def expand(text, variables):
    for _ in range(5):
        text = re.sub(r'\$\{([A-Za-z_]+)\}',
                      lambda m: variables.get(m.group(1), m.group(0)), text)
    assert not re.search(r'\$\{[A-Za-z_]+\}', text), text
    return text


def run_task(recipe, names, variables):
    for name in names:
        subprocess.run(['sh', '-ec', expand(task(recipe, name), variables)],
                       check=True, timeout=60)


def test_shell_recipe_installs_bitstream_overlay_and_manifest(tmp_path):
    recipe = assignments(SHELL_RECIPE)
    src, build, dest = (tmp_path / 'src', tmp_path / 'build',
                        tmp_path / 'image')
    for folder in (src, build, dest):
        folder.mkdir()
    fetched = re.search(r'^SRC_URI = "(.*?)"', SHELL_RECIPE.read_text(),
                        re.M | re.S).group(1).replace('\\\n', ' ').split()
    for uri in fetched:
        name = uri.removeprefix('file://')
        if name == 'shell.bit':
            # the operator's full bitstream: a real Zynq-7020 one stands in
            shutil.copy(realfiles.path('prio.bit'), src / name)
        else:
            shutil.copy(SHELL_FILES / name, src / name)
    variables = dict(BITBAKE_DIRS, S=str(src), B=str(build), D=str(dest),
                     NOVA_FPGA_SHELL=recipe['NOVA_FPGA_SHELL'])
    variables['NOVA_FPGA_SHELL_DIR'] = expand(recipe['NOVA_FPGA_SHELL_DIR'],
                                              variables)
    run_task(SHELL_RECIPE, ['do_compile', 'do_install'], variables)

    shell_dir = variables['NOVA_FPGA_SHELL_DIR']
    installed = dest / shell_dir.lstrip('/')
    assert sorted(p.name for p in installed.iterdir()) == [
        'manifest.json', 'shell.bit', 'shell.dtbo']
    info = validator.validate_file(installed / 'shell.bit')
    assert not info.partial and info.device.name == 'xc7z020'
    manifest = shell.load(installed / 'manifest.json')
    assert manifest.part.startswith(info.device.name)
    test_shell_overlay.assert_matches_manifest(
        fdt.parse_dtb((installed / 'shell.dtbo').read_bytes()), manifest)
    unit = (dest / 'lib/systemd/system/nova-fpga-shell.service').read_text()
    assert 'ExecStart=/usr/libexec/nova-fpga/shell-overlay apply %s/' \
        'shell.dtbo\n' % shell_dir in unit
    assert '@' not in unit
    assert os.access(dest / 'usr/libexec/nova-fpga/shell-overlay', os.X_OK)
    # the agent.conf of the layer's README names this manifest
    readme = (LAYER / 'README.md').read_text()
    assert '--manifest %s/manifest.json' % shell_dir in readme
    assert 'manifest = %s/manifest.json' % shell_dir in readme


def test_agent_recipe_installs_the_projects_own_files(board, tmp_path):
    recipe = assignments(AGENT_RECIPE)
    sdist = board['sdist']
    assert recipe['SRC_URI'] == 'file://nova_fpga-${PV}.tar.gz'
    pv = AGENT_RECIPE.stem.partition('_')[2]
    assert sdist.name == 'nova_fpga-%s.tar.gz' % pv
    with tarfile.open(sdist) as t:
        t.extractall(tmp_path, filter='data')
    dest = tmp_path / 'image'
    # a bbappend's CA for the board's trust store, fetched into WORKDIR
    from nova_fpga_devtools import pki
    ca = pki.Authority(tmp_path / 'ca', name='cloud bitstream CA')
    shutil.copy(ca.pem, tmp_path / 'cloud-ca.pem')
    variables = dict(BITBAKE_DIRS, PV=pv, D=str(dest), S=str(expand(
        recipe['S'], {'WORKDIR': str(tmp_path), 'PV': pv})),
        WORKDIR=str(tmp_path), NOVA_FPGA_TRUSTED_CAS='cloud-ca.pem')
    assert recipe['NOVA_FPGA_TRUSTED_CAS'] == ''
    run_task(AGENT_RECIPE, ['do_install:append'], variables)
    trusted = dest / 'etc/nova-fpga/trusted-ca'
    assert oct(trusted.stat().st_mode & 0o777) == '0o755'
    assert oct((trusted / 'cloud-ca.pem').stat().st_mode & 0o777) == '0o644'
    assert (trusted / 'cloud-ca.pem').read_bytes() == ca.pem.read_bytes()
    for installed, source in [
            ('lib/systemd/system/nova-fpga-agent.service',
             'agent/systemd/nova-fpga-agent.service'),
            ('etc/nova-fpga/agent.conf.sample',
             'agent/etc/agent.conf.sample'),
            ('etc/sudoers.d/nova-fpga-agent',
             'agent/etc/sudoers.d/nova-fpga-agent'),
            ('lib/udev/rules.d/70-nova-fpga.rules',
             'agent/udev/70-nova-fpga.rules')]:
        assert (dest / installed).read_bytes() == \
            (ROOT / source).read_bytes(), installed
    assert oct((dest / 'etc/sudoers.d/nova-fpga-agent').stat().st_mode
               & 0o777) == '0o440'
    # the unit the recipe names is the one it installs, and what it runs
    # is where setuptools puts console scripts (${bindir})
    assert recipe['SYSTEMD_SERVICE:${PN}'] == 'nova-fpga-agent.service'
    unit = (ROOT / 'agent/systemd/nova-fpga-agent.service').read_text()
    assert 'ExecStart=/usr/bin/nova-fpga-agent ' in unit
    assert 'User=nova-fpga' in unit
    assert '--gid nova-fpga' in AGENT_RECIPE.read_text()


def test_agent_builds_with_scarthgaps_setuptools(board, tmp_path):
    """What the agent recipe's setuptools3 runs (setup.py bdist_wheel) on
    the sdist, with scarthgap's setuptools and wheel: the wheel has the
    agent, the CRC extension and the console script.
    """
    venv = tmp_path / 'venv'
    subprocess.run([sys.executable, '-m', 'venv', '--without-pip', venv],
                   check=True, timeout=120)
    subprocess.run([sys.executable, '-m', 'pip', '--python',
                    venv / 'bin' / 'python', 'install', '-q', '--no-input',
                    *SCARTHGAP_SETUPTOOLS], check=True, timeout=300)
    with tarfile.open(board['sdist']) as t:
        t.extractall(tmp_path, filter='data')
    src = next(tmp_path.glob('nova_fpga-*'))
    done = subprocess.run([venv / 'bin' / 'python', 'setup.py',
                           'bdist_wheel'], cwd=src, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    wheel = next((src / 'dist').glob('nova_fpga-*.whl'))
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        entry_points = next(z.read(n).decode() for n in names
                            if n.endswith('.dist-info/entry_points.txt'))
    assert 'nova_fpga_agent/service.py' in names
    assert [n for n in names if n.startswith('nova_fpga/bitstream/_crc')
            and n.endswith('.so')]
    assert 'nova-fpga-agent = nova_fpga_agent.service:main' in entry_points


def kernel_options(path):
    """{CONFIG_X: value} of a kernel configuration fragment."""
    found = {}
    for line in path.read_text().splitlines():
        if line.startswith('CONFIG_'):
            name, _, value = line.partition('=')
            found[name] = value
    return found


def test_kernel_side_for_linux_xlnx():
    """The kernel options the agent drives the board by, applied to
    linux-xlnx only when meta-xilinx-core is in the build, and
    uio_pdrv_genirq bound to the overlay's generic-uio nodes.
    """
    conf = (LAYER / 'conf' / 'layer.conf').read_text().replace('\\\n', ' ')
    dynamic = re.search(r'^BBFILES_DYNAMIC \+= "([^"]*)"', conf, re.M)
    collection, _, pattern = dynamic.group(1).split()[0].partition(':')
    assert collection == 'xilinx'    # meta-xilinx-core's BBFILE_COLLECTIONS
    appends = sorted(LAYER.glob(pattern.replace('${LAYERDIR}/', '')))
    assert appends == [KERNEL_DIR / 'linux-xlnx_%.bbappend']
    append = assignments(appends[0])
    assert append['SRC_URI:append:zynq'].split() == ['file://nova-fpga.cfg']
    options = kernel_options(KERNEL_DIR / 'files' / 'nova-fpga.cfg')
    assert options == dict(options, **{
        # the FPGA manager (PCAP), regions and the PR decoupler bridge
        'CONFIG_FPGA': 'y', 'CONFIG_FPGA_MGR_ZYNQ_FPGA': 'y',
        'CONFIG_FPGA_BRIDGE': 'y', 'CONFIG_XILINX_PR_DECOUPLER': 'y',
        'CONFIG_FPGA_REGION': 'y', 'CONFIG_OF_FPGA_REGION': 'y',
        # overlays through configfs
        'CONFIG_OF_OVERLAY': 'y', 'CONFIG_OF_CONFIGFS': 'y',
        'CONFIG_CONFIGFS_FS': 'y',
        # UIO, a module that takes of_id; XADC (IIO); CMA for u-dma-buf
        'CONFIG_UIO': 'y', 'CONFIG_UIO_PDRV_GENIRQ': 'm', 'CONFIG_IIO': 'y',
        'CONFIG_XILINX_XADC': 'y', 'CONFIG_DMA_CMA': 'y'})
    # the contiguous memory the overlay's u-dma-bufs take, with room left
    # for the kernel's own drivers (half of it at most)
    buffers = devicetree.DMA_BUFFER_BYTES * len(
        shell.load(shell.REFERENCE).regions)
    assert options['CONFIG_CMA_SIZE_SEL_MBYTES'] == 'y'
    assert int(options['CONFIG_CMA_SIZE_MBYTES']) << 20 >= 2 * buffers
    assert append['KERNEL_MODULE_PROBECONF:append:zynq'].split() == \
        ['uio_pdrv_genirq']
    assert append['module_conf_uio_pdrv_genirq:zynq'] == \
        'options uio_pdrv_genirq of_id=%s' % devicetree.COMPATIBLE_UIO
    readme = (LAYER / 'README.md').read_text()
    assert 'uio_pdrv_genirq.of_id=%s' % devicetree.COMPATIBLE_UIO in readme


def test_u_dma_buf_recipe_is_pinned():
    recipe = assignments(UDMABUF_RECIPE)
    assert 'inherit module' in UDMABUF_RECIPE.read_text()
    assert recipe['SRC_URI'].startswith('git://github.com/ikwzm/udmabuf.git;')
    assert re.fullmatch('[0-9a-f]{40}', recipe['SRCREV'])
    assert re.fullmatch(r'file://LICENSE;md5=[0-9a-f]{32}',
                        recipe['LIC_FILES_CHKSUM'])
    assert recipe['LICENSE'] == 'BSD-2-Clause'
    assert recipe['KERNEL_MODULE_AUTOLOAD'] == 'u-dma-buf'
    # the overlay's buffers are this module's
    assert 'compatible = "%s";' % devicetree.COMPATIBLE_UDMABUF in \
        (SHELL_FILES / 'reference_xc7z020.dtso').read_text()


def test_udev_rule_gives_the_agents_user_its_devices():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.read(ROOT / 'agent' / 'systemd' / 'nova-fpga-agent.service')
    group = unit['Service']['Group']
    rules = [line for line in (ROOT / 'agent' / 'udev' /
                               '70-nova-fpga.rules').read_text().splitlines()
             if line and not line.startswith('#')]
    assert rules == [
        'SUBSYSTEM=="%s", GROUP="%s", MODE="0660"' % (subsystem, group)
        for subsystem in ('uio', 'u-dma-buf')]


BOARD_TRUST_CHECK = r'''
import json, pathlib, sys
import cryptography
from nova_fpga.contract import signature as sig
from nova_fpga_agent import trust
cases = json.loads(sys.stdin.read())
verdicts = {'cryptography': cryptography.__version__}
for name, case in cases.items():
    check = trust.Verifier(trust.TrustStore(case['trusted']), True, 'board0')
    record = sig.BitstreamSignature(**case['signature'])
    try:
        verdicts[name] = check.verify(
            pathlib.Path(case['data']).read_bytes(), record, 'image')
    except trust.SignatureRefused as exc:
        verdicts[name] = 'refused: %s' % exc
print(json.dumps(verdicts))
'''


def test_the_boards_signature_check_runs_on_the_boards_cryptography(
        board, tmp_path):
    """nova_fpga_agent.trust in the board role's virtualenv, on the
    cryptography a scarthgap board has (UPSTREAM), with keys and
    certificates made by openssl: a good signature verifies; changed
    data, an untrusted CA and an expired certificate are refused.
    """
    from nova_fpga_devtools import pki
    ca = pki.Authority(tmp_path / 'ca')
    rogue = pki.Authority(tmp_path / 'rogue', name='rogue')
    trusted = tmp_path / 'trusted'
    trusted.mkdir()
    shutil.copy(ca.pem, trusted / 'ca.pem')
    data = tmp_path / 'module.bit'
    data.write_bytes(os.urandom(4096))
    changed = tmp_path / 'changed.bit'
    changed.write_bytes(data.read_bytes()[:-1] + b'\0')

    def case(signer, path=data):
        return {'trusted': str(trusted), 'data': str(path), 'signature': {
            'signature': signer.sign(data), 'hash_method': 'SHA-256',
            'key_type': signer.key_type,
            'certificate': signer.certificate()}}
    good = ca.issue('builder')
    cases = {'good': case(good), 'changed': case(good, changed),
             'untrusted': case(rogue.issue('mallory')),
             'expired': case(ca.issue('old', start='20250101000000Z',
                                      end='20260101000000Z')),
             'ecc': case(ca.issue('ec', 'ECC_SECP384R1'))}
    out = subprocess.run([str(board['venv'] / 'bin' / 'python'), '-c',
                          BOARD_TRUST_CHECK], input=json.dumps(cases),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    verdicts = json.loads(out.stdout)
    assert verdicts['cryptography'] == yocto.UPSTREAM['cryptography'][2]
    assert verdicts['good'].startswith('signature by CN=builder')
    assert verdicts['ecc'].startswith('signature by CN=ec')
    assert 'does not match its bitstream' in verdicts['changed']
    assert 'not issued by a certificate authority' in verdicts['untrusted']
    assert 'valid from 2025-01-01' in verdicts['expired']
