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

"""Register windows (UIO) and DMA buffers (u-dma-buf), found by name.

The shell's device tree names each region's register blocks after the
contract (nova_fpga.contract.devicetree): ``generic-uio`` makes each a
/dev/uioN whose /sys/class/uio/uioN/name is that name and whose
maps/map0/{addr,size} say where it is, so the agent checks them against
the shell manifest.  A window is read and written 32 bits at a time
through an mmap of /dev/uioN (give the agent's user the nodes with a udev
rule; privsep passes values, not mappings).

DMA buffers are u-dma-buf's rather than a dmaengine client's: the AXI DMA
runs in simple (register) mode, driven from userspace through its own UIO
window, and needs memory the PL can reach at a known physical address;
u-dma-buf gives exactly that (/sys/class/u-dma-buf/<name>/phys_addr, an
O_SYNC mmap of /dev/<name> that is uncached, so no cache maintenance),
while dmaengine has no userspace interface without a driver of our own.

The one seam: what /dev/uioN is.  On a board it is a character device and
the window is its mmap.  The emulator's fake kernel cannot see loads and
stores into a mapping, so it offers the node as a Unix socket instead, and
the same 32-bit reads and writes go to it as requests; a kernel never
makes a socket in /dev, so the node's type alone chooses.  A bus error
(SLVERR/DECERR) is a SIGBUS on a board, which Python cannot survive: the
backends refuse register accesses the shell would fault (a decoupled or
empty region) before they reach the bus.
"""
import contextlib
import glob
import mmap
import os
import socket
import stat
import struct
import threading

from nova_fpga_agent.backends import base

_REQUEST = struct.Struct('<cII')    # b'r'/b'w', offset, value
_ANSWER = struct.Struct('<BI')      # status (0 ok), value or message length
OK = 0


def _read(path):
    with open(path, encoding='ascii') as f:
        return f.read().strip()


def find_uio(sysfs_root, name):
    """(/dev node name, map0 address, map0 size) of the UIO device ``name``.

    :raises BackendUnavailable: no UIO device has that name.
    """
    for entry in sorted(glob.glob(os.path.join(sysfs_root, 'class', 'uio',
                                               'uio*'))):
        try:
            if _read(os.path.join(entry, 'name')) != name:
                continue
            maps = os.path.join(entry, 'maps', 'map0')
            return (os.path.basename(entry),
                    int(_read(os.path.join(maps, 'addr')), 16),
                    int(_read(os.path.join(maps, 'size')), 16))
        except (OSError, ValueError):
            continue
    raise base.BackendUnavailable(
        'no UIO device named %s under %s/class/uio: the device tree lacks '
        'the node, or uio_pdrv_genirq is not bound to generic-uio'
        % (name, sysfs_root))


class MmapWindow:
    """A register window as a board maps it: 32-bit loads and stores."""

    def __init__(self, path, size):
        fd = os.open(path, os.O_RDWR | os.O_SYNC)
        try:
            self._map = mmap.mmap(fd, size, mmap.MAP_SHARED,
                                  mmap.PROT_READ | mmap.PROT_WRITE)
        finally:
            os.close(fd)
        # indexing a memoryview of 'I' is one 32-bit access
        self._words = memoryview(self._map).cast('I')

    def read32(self, offset):
        return self._words[offset // 4]

    def write32(self, offset, value):
        self._words[offset // 4] = value


@contextlib.contextmanager
def socket_address(path):
    """A name for the Unix socket at ``path`` that fits in sun_path (108
    bytes, which a deep state directory exceeds): the same file reached
    through its directory's descriptor under /proc/self/fd, open while the
    name is in use (to bind or connect).
    """
    real = os.path.realpath(path)
    fd = os.open(os.path.dirname(real), os.O_PATH)
    try:
        yield '/proc/self/fd/%d/%s' % (fd, os.path.basename(real))
    finally:
        os.close(fd)


class SocketWindow:
    """A register window the fake kernel answers (see the module doc)."""

    def __init__(self, path):
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with socket_address(path) as address:
            self._sock.connect(address)
        self._file = self._sock.makefile('rwb')
        # one request and its answer at a time: the agent's threads (RPC,
        # reports, data plane) share the window, as they share a mapping
        self._lock = threading.Lock()

    def _ask(self, op, offset, value=0):
        with self._lock:
            self._file.write(_REQUEST.pack(op, offset, value))
            self._file.flush()
            status, value = _ANSWER.unpack(self._file.read(_ANSWER.size))
            if status != OK:
                raise base.RegisterError(self._file.read(value).decode())
            return value

    def read32(self, offset):
        return self._ask(b'r', offset)

    def write32(self, offset, value):
        self._ask(b'w', offset, value)


def find_node(conf, name, base_address):
    """The /dev node of UIO device ``name``, checked to map
    ``base_address`` (the shell manifest's).
    """
    node, addr, _ = find_uio(conf.agent.sysfs_root, name)
    if addr != base_address:
        raise base.BackendUnavailable(
            'UIO %s (%s) maps 0x%08X, the shell manifest says 0x%08X: the '
            'device tree is not this shell\'s'
            % (name, node, addr, base_address))
    return os.path.join(conf.agent.dev_root, node)


def open_window(conf, name, base_address):
    """The register window of UIO device ``name``, checked to sit at
    ``base_address`` (the shell manifest's).
    """
    path = find_node(conf, name, base_address)
    size = find_uio(conf.agent.sysfs_root, name)[2]
    mode = os.stat(path).st_mode
    if stat.S_ISCHR(mode):
        return MmapWindow(path, size)
    if stat.S_ISSOCK(mode):
        return SocketWindow(path)
    raise base.BackendUnavailable('%s is not a UIO device node' % path)


class DmaBuffer:
    """A u-dma-buf buffer: its bus address and an uncached mapping."""

    def __init__(self, conf, name):
        sysfs = os.path.join(conf.agent.sysfs_root, 'class', 'u-dma-buf',
                             name)
        try:
            self.phys_addr = int(_read(os.path.join(sysfs, 'phys_addr')), 16)
            self.size = int(_read(os.path.join(sysfs, 'size')), 0)
            self.path = os.path.join(conf.agent.dev_root, name)
            fd = os.open(self.path, os.O_RDWR | os.O_SYNC)
        except (OSError, ValueError) as exc:
            raise base.BackendUnavailable(
                'u-dma-buf %s unusable (%s): is the u-dma-buf module loaded '
                'with the shell\'s device tree?' % (name, exc))
        try:
            self.map = mmap.mmap(fd, self.size, mmap.MAP_SHARED,
                                 mmap.PROT_READ | mmap.PROT_WRITE)
        finally:
            os.close(fd)
