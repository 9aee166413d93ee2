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

"""The fake kernel's files: a FUSE filesystem whose files are driver
callbacks.

sysfs and configfs are filesystems whose files are code: a write is the
driver's ``store`` (it returns when the driver is done, with its error),
a read its ``show``, a mkdir under configfs makes an item with its
attributes already in it and an rmdir removes it whole.  A FUSE mount
gives the same semantics to the files the agent's privileged helper
writes, from a process the agent knows nothing about.  Nodes:

* Attribute: ``show()`` -> str, ``store(str)``; a store raises OSError to
  fail the write as the driver would.
* Device: a node whose writes accumulate until the writer closes it
  (/dev/xdevcfg programs on release).
* Directory: configfs-like when given ``make``/``remove`` callbacks.
* Link: a symbolic link out of the mount (a UIO socket, a DMA buffer).
"""
import errno
import stat
import threading

import mfusepy as fuse


class Attribute:
    def __init__(self, show=None, store=None):
        self.show = show
        self.store = store


class Device:
    def __init__(self, on_close):
        self.on_close = on_close


class Directory:
    def __init__(self, make=None, remove=None):
        self.make = make
        self.remove = remove


class Link:
    def __init__(self, target):
        self.target = target


class Tree:
    """The nodes by path ('/sys/class/...'), parents made as needed."""

    def __init__(self):
        self.lock = threading.RLock()
        self.nodes = {'/': Directory()}

    def add(self, path, node):
        with self.lock:
            parent = path.rsplit('/', 1)[0] or '/'
            if parent not in self.nodes:
                self.add(parent, Directory())
            self.nodes[path] = node
        return node

    def remove(self, path):
        with self.lock:
            for name in [n for n in self.nodes
                         if n == path or n.startswith(path + '/')]:
                del self.nodes[name]

    def get(self, path):
        with self.lock:
            node = self.nodes.get(path)
        if node is None:
            raise fuse.FuseOSError(errno.ENOENT)
        return node

    def children(self, path):
        prefix = path.rstrip('/') + '/'
        with self.lock:
            return [n[len(prefix):] for n in self.nodes
                    if n.startswith(prefix) and '/' not in n[len(prefix):]
                    and n != prefix]


class Filesystem(fuse.Operations):
    """FUSE operations over a Tree."""

    use_ns = True

    def __init__(self, tree):
        self.tree = tree
        self.mounted = False
        self._written = {}      # file handle -> bytes a Device was given
        self._next_fh = 1
        self._fh_lock = threading.Lock()

    def init(self, path):
        self.mounted = True

    def getattr(self, path, fh=None):
        node = self.tree.get(path)
        if isinstance(node, Directory):
            return {'st_mode': stat.S_IFDIR | 0o755, 'st_nlink': 2}
        if isinstance(node, Link):
            return {'st_mode': stat.S_IFLNK | 0o777, 'st_nlink': 1,
                    'st_size': len(node.target)}
        if isinstance(node, Device):
            return {'st_mode': stat.S_IFREG | 0o600, 'st_nlink': 1}
        mode = (0o444 if node.show else 0) | (0o200 if node.store else 0)
        return {'st_mode': stat.S_IFREG | mode, 'st_nlink': 1,
                'st_size': 4096}

    def readdir(self, path, fh):
        return ['.', '..'] + self.tree.children(path)

    def readlink(self, path):
        return self.tree.get(path).target

    def open(self, path, flags):
        node = self.tree.get(path)
        if isinstance(node, Directory):
            raise fuse.FuseOSError(errno.EISDIR)
        with self._fh_lock:
            fh = self._next_fh
            self._next_fh += 1
        if isinstance(node, Device):
            self._written[fh] = bytearray()
        return fh

    def read(self, path, size, offset, fh):
        node = self.tree.get(path)
        if not isinstance(node, Attribute) or node.show is None:
            raise fuse.FuseOSError(errno.EACCES)
        return (node.show() + '\n').encode()[offset:offset + size]

    def write(self, path, data, offset, fh):
        node = self.tree.get(path)
        if isinstance(node, Device):
            self._written[fh] += data
        elif isinstance(node, Attribute) and node.store is not None:
            node.store(bytes(data).decode().strip())
        else:
            raise fuse.FuseOSError(errno.EACCES)
        return len(data)

    def truncate(self, path, length, fh=None):
        return 0

    def flush(self, path, fh):
        node = self.tree.get(path)
        data = self._written.pop(fh, None)
        if isinstance(node, Device) and data is not None:
            node.on_close(bytes(data))
        return 0

    def release(self, path, fh):
        self._written.pop(fh, None)
        return 0

    def mkdir(self, path, mode):
        parent = self.tree.get(path.rsplit('/', 1)[0] or '/')
        if not isinstance(parent, Directory) or parent.make is None:
            raise fuse.FuseOSError(errno.EPERM)
        parent.make(path)
        return 0

    def rmdir(self, path):
        parent = self.tree.get(path.rsplit('/', 1)[0] or '/')
        if not isinstance(parent, Directory) or parent.remove is None:
            raise fuse.FuseOSError(errno.EPERM)
        parent.remove(path)
        return 0


def mount(tree, mountpoint):
    """Serve the tree at mountpoint until the process is signalled (libfuse
    unmounts on SIGTERM/SIGINT).  Nothing cached: every read is a show.
    """
    filesystem = Filesystem(tree)
    try:
        fuse.FUSE(filesystem, mountpoint, foreground=True, direct_io=True,
                  attr_timeout=0, entry_timeout=0, negative_timeout=0,
                  fsname='nova-fpga-fakekernel')
    except RuntimeError:
        # libfuse's loop ends non-zero when signalled: an error only if
        # the mount never came up
        if not filesystem.mounted:
            raise
