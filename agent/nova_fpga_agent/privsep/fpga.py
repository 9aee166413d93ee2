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

"""What a board backend does as root, confined to the configured roots.

The board backends (fpga_manager, xdevcfg) call these:
write ``flags`` and ``firmware`` under /sys/class/fpga_manager/<mgr>/ or
``is_partial_bitstream`` under /sys/class/xdevcfg/ (write_attribute), put
the byte-swapped .bin under the firmware path (write_firmware; then
remove_firmware), apply a
region's device-tree overlay through configfs (make_overlay, then
write_attribute of its ``path``; remove_overlay), or write a partial to
/dev/xdevcfg (write_device).  Each runs in the privsep daemon and refuses
any path outside [agent] sysfs_root, configfs_root, firmware_dir or
dev_root (symbolic links resolved) with PathRefused.

Privsep passes values, not file descriptors: data goes in the call (a
partial bitstream is a few MB) and nothing opened here reaches the agent.
Register access through UIO needs an mmap in the agent itself: give the
agent's user the /dev/uioN nodes (a udev rule), not this daemon.
"""
import contextlib
import os
import re
import tempfile

from oslo_config import cfg

from nova_fpga_agent import conf as agent_conf
from nova_fpga_agent import privsep

CONF = cfg.CONF
# the daemon reads the roots from its own configuration (privsep-helper
# is started with the agent's --config-file), never from the caller
agent_conf.register_root_opts(CONF)

OVERLAYS = os.path.join('device-tree', 'overlays')
_OVERLAY_NAME = re.compile(r'^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$')


class PathRefused(PermissionError):
    """A privileged write outside the roots the configuration allows."""


def _confined(path, *options):
    """The real path of ``path`` if it lies strictly below the root of one
    of the [agent] ``options``; else PathRefused.
    """
    real = os.path.realpath(path)
    roots = [os.path.realpath(getattr(CONF.agent, opt)) for opt in options]
    for root in roots:
        if real != root and os.path.commonpath([real, root]) == root:
            return real
    raise PathRefused('%s is outside %s (%s): the privileged helper '
                      'refuses it' % (path, ', '.join(roots), ', '.join(
                          '[agent] %s' % opt for opt in options)))


@contextlib.contextmanager
def _naming(path):
    """OSErrors that name the path in their message: privsep re-raises
    an exception from its args, and an OSError's filename is not one.
    """
    try:
        yield
    except OSError as exc:
        if exc.errno is None:
            raise
        raise type(exc)(exc.errno, '%s: %s' % (exc.strerror, path)) \
            from None


def _write(path, data):
    """Write to an existing file or node; never create one."""
    if isinstance(data, str):
        data = data.encode()
    with _naming(path):
        fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)


def _overlay(path):
    """The real path of an overlay directory: a plain name in a
    device-tree/overlays directory below configfs_root (given whole, so
    the directory may be any configfs below the root: a test's fake ones).
    """
    name = os.path.basename(path)
    if not _OVERLAY_NAME.match(name or ''):
        raise PathRefused('overlay name %r: letters, digits, _ . - only'
                          % name)
    real = _confined(path, 'configfs_root')
    if not os.path.dirname(real).endswith(os.sep + OVERLAYS):
        raise PathRefused('%s is not in a configfs %s directory: the '
                          'privileged helper refuses it' % (path, OVERLAYS))
    return real


@privsep.board_pctxt.entrypoint
def write_attribute(path, value):
    """Write an existing sysfs or configfs attribute."""
    _write(_confined(path, 'sysfs_root', 'configfs_root'), value)


@privsep.board_pctxt.entrypoint
def make_overlay(path):
    """Create a configfs device-tree overlay directory; its path."""
    path = _overlay(path)
    with _naming(path):
        os.mkdir(path)
    return path


@privsep.board_pctxt.entrypoint
def remove_overlay(path):
    """Remove an overlay directory (the kernel reverts the overlay)."""
    path = _overlay(path)
    with _naming(path):
        os.rmdir(path)


@privsep.board_pctxt.entrypoint
def write_firmware(path, data):
    """Write a file below firmware_dir (its folders made as needed)
    atomically, readable by the kernel's loader; its path.
    """
    path = _confined(path, 'firmware_dir')
    os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix='.fw-')
    try:
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    return path


@privsep.board_pctxt.entrypoint
def remove_firmware(path):
    """Remove a file the agent wrote below firmware_dir (once the kernel
    loaded it); a missing one is no error.
    """
    try:
        os.unlink(_confined(path, 'firmware_dir'))
    except FileNotFoundError:
        pass


@privsep.board_pctxt.entrypoint
def write_device(path, data):
    """Write to an existing device node (a partial to /dev/xdevcfg)."""
    _write(_confined(path, 'dev_root'), data)
