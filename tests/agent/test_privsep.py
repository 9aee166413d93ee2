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

"""The agent's privileged entrypoints, through a real privsep daemon
(privsep-helper; the tests run as root, so the daemon keeps exactly the
context's capabilities) against a fake kernel tree: what they write, and
what they refuse.
"""
import os
import sys

from oslo_config import cfg
from oslo_privsep import priv_context
import pytest

from nova_fpga_agent import privsep
from nova_fpga_agent.privsep import fpga

MGR = 'class/fpga_manager/fpga0'
OVERLAYS = os.path.join('sys', 'kernel', 'config', fpga.OVERLAYS)
HELPER = os.path.join(sys.prefix, 'bin', 'privsep-helper')


@pytest.fixture(scope='module')
def tree(tmp_path_factory):
    """A fake /sys, configfs, /lib/firmware and /dev, and the daemon as a
    board starts it: privsep-helper in a process of its own (no sudo: the
    tests run as root) with an agent config file naming that tree.  The
    test's own configuration keeps the real roots: the daemon must not
    take its roots from its caller.
    """
    root = tmp_path_factory.mktemp('board')
    sysfs = root / 'sys'
    (sysfs / MGR).mkdir(parents=True)
    for name in ('flags', 'firmware'):
        (sysfs / MGR / name).write_text('')
    configfs = sysfs / 'kernel' / 'config'
    (configfs / 'device-tree' / 'overlays').mkdir(parents=True)
    (root / 'lib' / 'firmware').mkdir(parents=True)
    (root / 'dev').mkdir()
    (root / 'dev' / 'xdevcfg').write_bytes(b'')
    (root / 'outside').write_text('untouched')
    (sysfs / 'escape').symlink_to(root / 'outside')
    conf = root / 'agent.conf'
    conf.write_text('[agent]\nsysfs_root = %s\nconfigfs_root = %s\n'
                    'firmware_dir = %s\ndev_root = %s\n' % (
                        sysfs, configfs, root / 'lib' / 'firmware',
                        root / 'dev'))
    section = privsep.board_pctxt.cfg_section
    cfg.CONF.set_override('helper_command', '%s --config-file %s'
                          % (HELPER, conf), group=section)
    # not Method.FORK: forking a test process whose other threads may
    # hold locks (logging, messaging) can leave the child deadlocked
    privsep.board_pctxt.start(method=priv_context.Method.ROOTWRAP)
    yield root
    privsep.board_pctxt.stop()
    cfg.CONF.clear_override('helper_command', group=section)


def _daemon_caps(conf):
    """CapEff of the privsep-helper processes started with ``conf``."""
    caps = []
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open('/proc/%s/cmdline' % pid, 'rb') as f:
                args = f.read().decode().split('\0')
            with open('/proc/%s/status' % pid) as f:
                status = dict(line.split(':\t', 1) for line in f
                              if ':\t' in line)
        except (OSError, ValueError):
            continue
        if str(conf) in args and any('privsep-helper' in a for a in args):
            caps.append(int(status['CapEff'], 16))
    return caps


def test_daemon_keeps_only_the_contexts_capabilities(tree):
    fpga.write_attribute(str(tree / 'sys' / MGR / 'flags'), '0')
    assert _daemon_caps(tree / 'agent.conf') == [
        sum(1 << cap for cap in privsep.CAPABILITIES)]


def test_writes_attributes_the_fpga_manager_way(tree):
    fpga.write_attribute(str(tree / 'sys' / MGR / 'flags'), '1')
    fpga.write_attribute(str(tree / 'sys' / MGR / 'firmware'),
                         'rp0_partial.bin')
    assert (tree / 'sys' / MGR / 'flags').read_text() == '1'
    assert (tree / 'sys' / MGR / 'firmware').read_text() == 'rp0_partial.bin'


def test_firmware_file_and_overlay(tree):
    data = bytes(range(256)) * 64
    (tree / 'lib' / 'firmware' / 'nova-fpga').mkdir()
    path = fpga.write_firmware(
        str(tree / 'lib' / 'firmware' / 'nova-fpga' / 'rp0.bin'), data)
    assert path == str(tree / 'lib' / 'firmware' / 'nova-fpga' / 'rp0.bin')
    assert (tree / 'lib' / 'firmware' / 'nova-fpga' / 'rp0.bin'
            ).read_bytes() == data
    assert oct(os.stat(path).st_mode & 0o777) == '0o644'
    overlays = tree / 'sys' / 'kernel' / 'config' / fpga.OVERLAYS
    overlay = fpga.make_overlay(str(overlays / 'rp0'))
    assert os.path.isdir(overlay)
    # the kernel makes an overlay's attributes; here the test does
    open(os.path.join(overlay, 'path'), 'w').close()
    fpga.write_attribute(os.path.join(overlay, 'path'), 'rp0.dtbo')
    assert open(os.path.join(overlay, 'path')).read() == 'rp0.dtbo'
    os.unlink(os.path.join(overlay, 'path'))
    fpga.remove_overlay(str(overlays / 'rp0'))
    assert not os.path.exists(overlay)


def test_device_node(tree):
    fpga.write_device(str(tree / 'dev' / 'xdevcfg'), b'\xaa\x99\x55\x66')
    assert (tree / 'dev' / 'xdevcfg').read_bytes() == b'\xaa\x99\x55\x66'


@pytest.mark.parametrize('call', [
    lambda t: fpga.write_attribute(str(t / 'outside'), 'x'),
    lambda t: fpga.write_attribute(str(t / 'sys' / 'escape'), 'x'),
    lambda t: fpga.write_attribute(str(t / 'sys' / '..' / 'outside'), 'x'),
    lambda t: fpga.write_attribute(str(t / 'dev' / 'xdevcfg'), 'x'),
    lambda t: fpga.write_attribute(str(t / 'sys'), 'x'),
    lambda t: fpga.write_device(str(t / 'sys' / MGR / 'flags'), b'x'),
    lambda t: fpga.write_device('/dev/null', b'x'),
    lambda t: fpga.write_firmware(
        str(t / 'lib' / 'firmware' / '..' / '..' / 'outside'), b'x'),
    lambda t: fpga.write_firmware(str(t / 'outside'), b'x'),
    lambda t: fpga.make_overlay(str(t / OVERLAYS / '..' / '..' / 'rp0')),
    lambda t: fpga.make_overlay(str(t / 'sys' / 'kernel' / 'config' / 'a')),
    lambda t: fpga.make_overlay(str(t / OVERLAYS / 'a b')),
    lambda t: fpga.remove_overlay(str(t / OVERLAYS / '..')),
    lambda t: fpga.make_overlay(str(t / 'outside' / fpga.OVERLAYS / 'x')),
], ids=['outside', 'symlink-out', 'dotdot', 'dev-as-attribute', 'the-root',
        'attribute-as-dev', 'real-dev', 'firmware-dotdot',
        'firmware-absolute', 'overlay-dotdot', 'overlay-not-in-overlays',
        'overlay-bad-name', 'overlay-parent', 'overlay-outside-configfs'])
def test_refuses_paths_outside_the_roots(tree, call):
    with pytest.raises(fpga.PathRefused, match='refuses|only|without'):
        call(tree)
    assert (tree / 'outside').read_text() == 'untouched'


def test_creates_no_attribute_and_names_what_is_missing(tree):
    missing = tree / 'sys' / MGR / 'no_such_attribute'
    with pytest.raises(FileNotFoundError, match='no_such_attribute'):
        fpga.write_attribute(str(missing), '1')
    assert not missing.exists()


def test_roots_are_the_daemons_not_the_callers(tree):
    assert cfg.CONF.agent.sysfs_root == '/sys'
    with pytest.raises(fpga.PathRefused, match='refuses'):
        fpga.write_attribute('/sys/kernel/mm/ksm/run', '0')
