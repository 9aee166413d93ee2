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

"""The faults the suite injects into a demo cloud, each undone when its
context ends (nothing mounted, no rights withheld, every process it
stopped running again).  The tests run as root (the demo cloud does).
"""
import contextlib
import os
import pathlib
import shutil
import subprocess
import tempfile

from nova_fpga import deployment


def _mount(*args):
    subprocess.run(['mount', *map(str, args)], check=True,
                   capture_output=True)


def _umount(path):
    subprocess.run(['umount', str(path)], check=True, capture_output=True)


def _used_bytes(path):
    return sum(f.stat().st_size for f in pathlib.Path(path).rglob('*')
               if f.is_file())


def _mirror(source, target):
    """target made a copy of source: what source lacks is removed."""
    source, target = pathlib.Path(source), pathlib.Path(target)
    for path in sorted(target.rglob('*'), reverse=True):
        if not (source / path.relative_to(target)).exists():
            if path.is_dir() and not path.is_symlink():
                path.rmdir()
            else:
                path.unlink()
    shutil.copytree(source, target, dirs_exist_ok=True, symlinks=True)


@contextlib.contextmanager
def small_filesystem(path, free_bytes):
    """path on a tmpfs with its current contents and free_bytes to spare
    (a full disk, as far as what writes there can tell); what is there at
    the end is kept on the real directory after.
    """
    path = pathlib.Path(path)
    size = _used_bytes(path) + free_bytes + 64 * 1024
    with tempfile.TemporaryDirectory(prefix='nf-fault-') as keep:
        kept = pathlib.Path(keep) / 'data'
        shutil.copytree(path, kept, symlinks=True)
        _mount('-t', 'tmpfs', '-o', 'size=%d' % size, 'tmpfs', path)
        try:
            shutil.copytree(kept, path, dirs_exist_ok=True, symlinks=True)
            filler = path / '.filler'
            try:
                with open(filler, 'wb') as out:
                    stat = os.statvfs(path)
                    out.write(b'\0' * max(
                        0, stat.f_bavail * stat.f_frsize - free_bytes))
            except OSError:
                pass
            yield path
            filler.unlink()
            shutil.rmtree(kept)
            shutil.copytree(path, kept, symlinks=True)
        finally:
            _umount(path)
        _mirror(kept, path)


@contextlib.contextmanager
def read_only(path):
    """path remounted read-only (a bind mount of itself)."""
    _mount('--bind', path, path)
    try:
        _mount('-o', 'remount,ro,bind', path)
        yield path
    finally:
        _umount(path)


@contextlib.contextmanager
def board_cut(cloud, board):
    """The board's agent cut off the agents' bus, and only it: its user's
    rights on its vhost withdrawn and its connections closed, so it can
    neither consume nova-compute's calls nor reconnect (what a broken
    link between the proxy's bus and that board looks like to both
    sides); its rights restored after.
    """
    broker = cloud._broker()
    login = cloud.state['mq_users'][board][0]
    vhost = deployment.board_vhost(cloud.state['vhosts']['agents'], board)
    broker.rabbitmqctl('clear_permissions', '-p', vhost, login)
    for line in broker.rabbitmqctl('list_connections', '--no-table-headers',
                                   'pid', 'user').splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[1] == login:
            broker.rabbitmqctl('close_connection', fields[0],
                               'fault injection: board cut off',
                               check=False)
    try:
        yield
    finally:
        broker.set_permissions(login, vhost,
                               deployment.board_permissions(board))
