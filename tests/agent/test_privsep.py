"""The agent's privileged entrypoints, through a real privsep daemon (forked
from the test, as oslo.privsep's own tests do; the tests run as root, so
the daemon keeps exactly the context's capabilities) against a fake kernel
tree: what they write, and what they refuse."""
import os
import sys

from oslo_config import cfg
from oslo_privsep import priv_context
import pytest

from nova_fpga_agent import privsep
from nova_fpga_agent.privsep import fpga

MGR = 'class/fpga_manager/fpga0'
HELPER = os.path.join(sys.prefix, 'bin', 'privsep-helper')


@pytest.fixture(scope='module')
def tree(tmp_path_factory):
    """A fake /sys, configfs, /lib/firmware and /dev, and the daemon
    started with them as its roots.
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
    roots = {'sysfs_root': sysfs, 'configfs_root': configfs,
             'firmware_dir': root / 'lib' / 'firmware',
             'dev_root': root / 'dev'}
    for name, path in roots.items():
        cfg.CONF.set_override(name, str(path), group='agent')
    privsep.board_pctxt.start(method=priv_context.Method.FORK)
    yield root
    privsep.board_pctxt.stop()
    for name in roots:
        cfg.CONF.clear_override(name, group='agent')


def _children_caps():
    """CapEff of this process's children (the daemon is one)."""
    caps = []
    for entry in os.listdir('/proc'):
        try:
            with open('/proc/%s/status' % entry) as f:
                status = dict(line.split(':\t', 1) for line in f
                              if ':\t' in line)
        except (OSError, ValueError):
            continue
        if int(status.get('PPid', '0')) == os.getpid():
            caps.append(int(status['CapEff'], 16))
    return caps


def test_daemon_keeps_only_the_contexts_capabilities(tree):
    fpga.write_attribute(str(tree / 'sys' / MGR / 'flags'), '0')
    assert sum(1 << cap for cap in privsep.CAPABILITIES) in _children_caps()


def test_writes_attributes_the_fpga_manager_way(tree):
    fpga.write_attribute(str(tree / 'sys' / MGR / 'flags'), '1')
    fpga.write_attribute(str(tree / 'sys' / MGR / 'firmware'),
                         'rp0_partial.bin')
    assert (tree / 'sys' / MGR / 'flags').read_text() == '1'
    assert (tree / 'sys' / MGR / 'firmware').read_text() == 'rp0_partial.bin'


def test_firmware_file_and_overlay(tree):
    data = bytes(range(256)) * 64
    (tree / 'lib' / 'firmware' / 'nova-fpga').mkdir()
    path = fpga.write_firmware('nova-fpga/rp0.bin', data)
    assert path == str(tree / 'lib' / 'firmware' / 'nova-fpga' / 'rp0.bin')
    assert (tree / 'lib' / 'firmware' / 'nova-fpga' / 'rp0.bin'
            ).read_bytes() == data
    assert oct(os.stat(path).st_mode & 0o777) == '0o644'
    overlay = fpga.make_overlay('rp0')
    assert os.path.isdir(overlay)
    # the kernel makes an overlay's attributes; here the test does
    open(os.path.join(overlay, 'path'), 'w').close()
    fpga.write_attribute(os.path.join(overlay, 'path'), 'rp0.dtbo')
    assert open(os.path.join(overlay, 'path')).read() == 'rp0.dtbo'
    os.unlink(os.path.join(overlay, 'path'))
    fpga.remove_overlay('rp0')
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
    lambda t: fpga.write_firmware('../../outside', b'x'),
    lambda t: fpga.write_firmware(str(t / 'outside'), b'x'),
    lambda t: fpga.make_overlay('../../../../outside'),
    lambda t: fpga.make_overlay('a/b'),
    lambda t: fpga.remove_overlay('..'),
], ids=['outside', 'symlink-out', 'dotdot', 'dev-as-attribute', 'the-root',
        'attribute-as-dev', 'real-dev', 'firmware-dotdot',
        'firmware-absolute', 'overlay-dotdot', 'overlay-slash',
        'overlay-parent'])
def test_refuses_paths_outside_the_roots(tree, call):
    with pytest.raises(fpga.PathRefused, match='refuses|only|without'):
        call(tree)
    assert (tree / 'outside').read_text() == 'untouched'


def test_creates_no_attribute_and_names_what_is_missing(tree):
    missing = tree / 'sys' / MGR / 'no_such_attribute'
    with pytest.raises(FileNotFoundError, match='no_such_attribute'):
        fpga.write_attribute(str(missing), '1')
    assert not missing.exists()


@pytest.fixture
def helper(tree, tmp_path):
    """The daemon as a board starts it: privsep-helper in a process of its
    own with the agent's config file (no sudo: the tests run as root),
    whose roots are another tree than the caller's configuration names.
    """
    (tmp_path / 'sys' / MGR).mkdir(parents=True)
    (tmp_path / 'sys' / MGR / 'flags').write_text('')
    conf = tmp_path / 'agent.conf'
    conf.write_text('[agent]\nsysfs_root = %s\nconfigfs_root = %s\n'
                    'firmware_dir = %s\ndev_root = %s\n' % (
                        tmp_path / 'sys', tmp_path / 'config',
                        tmp_path / 'firmware', tmp_path / 'dev'))
    privsep.board_pctxt.stop()
    section = privsep.board_pctxt.cfg_section
    cfg.CONF.set_override('helper_command', '%s --config-file %s'
                          % (HELPER, conf), group=section)
    privsep.board_pctxt.start(method=priv_context.Method.ROOTWRAP)
    yield tmp_path
    privsep.board_pctxt.stop()
    cfg.CONF.clear_override('helper_command', group=section)
    privsep.board_pctxt.start(method=priv_context.Method.FORK)


def test_helper_takes_its_roots_from_its_own_configuration(tree, helper):
    fpga.write_attribute(str(helper / 'sys' / MGR / 'flags'), '1')
    assert (helper / 'sys' / MGR / 'flags').read_text() == '1'
    with pytest.raises(fpga.PathRefused, match='refuses'):
        fpga.write_attribute(str(tree / 'sys' / MGR / 'flags'), '1')
