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

"""The VM host's tiny guest, built from Debian packages, and its Glance
images.

- kernel: ``vmlinuz`` of Debian's ``linux-image-cloud-amd64`` (the package
  it depends on, fetched with ``apt-get download`` and unpacked with
  ``dpkg-deb -x``: nothing is installed);
- initramfs (newc cpio, gzip): ``busybox`` of the installed
  ``busybox-static``, the virtio-net modules of the same kernel package
  with their dependencies (from its ``modules.dep``), and :data:`INIT`,
  which loads them, brings eth0 up with the address given as
  ``nfguest.ip=ADDR/PREFIX`` on the kernel command line (else busybox
  udhcpc), prints :data:`MARKER` and the interface on the console and
  stays up, printing eth0's received-frame counter when it changes
  (:data:`RX_MARKER`);
- a root disk the guest never reads (nova's libvirt driver wants an
  image to boot "from"; the kernel and ramdisk are its ``kernel_id`` and
  ``ramdisk_id``).

Built once per kernel package version and init script into the cache
directory; registered in Glance as aki + ari + ami images (nova's direct
kernel boot).
"""
import gzip
import hashlib
import io
import json
import os
import pathlib
import shutil
import subprocess
import tempfile

from oslo_log import log as logging

import nova_fpga_devtools

LOG = logging.getLogger(__name__)

#: Where built guests are kept (per checkout, ignored by git).
CACHE_DIR = nova_fpga_devtools.SOURCE / '.state' / 'vm-image'
KERNEL_META_PACKAGE = 'linux-image-cloud-amd64'
BUSYBOX = pathlib.Path('/bin/busybox')
#: What the guest prints on its console once its interface is up.
MARKER = 'NOVA-FPGA-GUEST-UP'
#: What it prints, with eth0's received-frame counter, whenever that
#: counter changes (checked every second): what a test reads of the
#: guest's traffic through `openstack console log show`.
RX_MARKER = 'NOVA-FPGA-GUEST-RX'
#: The modules eth0 needs, by name (their dependencies come along).
MODULES = ('virtio_pci', 'virtio_net')
#: The kernel command line nova gives the guest (image property
#: os_command_line); the test or the image's user appends nfguest.ip=.
COMMAND_LINE = 'console=ttyS0 quiet'
IMAGE_NAMES = {'kernel': 'tiny-vm-kernel', 'ramdisk': 'tiny-vm-ramdisk',
               'image': 'tiny-vm'}

INIT = r'''#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for module in $(cat /etc/modules); do
    insmod /lib/modules/$module || echo "nfguest: insmod $module failed"
done
address=
for arg in $(cat /proc/cmdline); do
    case "$arg" in nfguest.ip=*) address=${arg#nfguest.ip=} ;; esac
done
tries=0
while [ ! -e /sys/class/net/eth0 ] && [ $tries -lt 50 ]; do
    sleep 0.1; tries=$((tries + 1))
done
ip link set lo up
ip link set eth0 up
tries=0
while [ "$(cat /sys/class/net/eth0/operstate)" != up ] && [ $tries -lt 30 ]; do
    sleep 0.1; tries=$((tries + 1))
done
if [ -n "$address" ]; then
    ip addr add "$address" dev eth0
else
    udhcpc -i eth0 -n -q -t 5 -s /etc/udhcpc.script
fi
mac=$(cat /sys/class/net/eth0/address)
inet=$(ip -4 -o addr show dev eth0 | awk '{print $4}')
state=$(cat /sys/class/net/eth0/operstate)
echo "@MARKER@ eth0 $mac $inet $state"
last=
while true; do
    received=$(cat /sys/class/net/eth0/statistics/rx_packets)
    if [ "$received" != "$last" ]; then
        echo "@RX_MARKER@ eth0 $received"
        last=$received
    fi
    sleep 1
done
'''.replace('@MARKER@', MARKER).replace('@RX_MARKER@', RX_MARKER)

UDHCPC_SCRIPT = r'''#!/bin/sh
[ "$1" = bound ] || [ "$1" = renew ] || exit 0
ip addr add "$ip/${mask:-24}" dev "$interface"
[ -n "$router" ] && ip route add default via "${router%% *}"
exit 0
'''


class BuildError(RuntimeError):
    pass


def _run(argv, cwd=None):
    result = subprocess.run([str(arg) for arg in argv], cwd=cwd,
                            capture_output=True, text=True)
    if result.returncode:
        raise BuildError('%s: %s' % (' '.join(map(str, argv)),
                                     (result.stderr or result.stdout).strip()))
    return result.stdout


def kernel_package():
    """(name, version) of the kernel package linux-image-cloud-amd64
    depends on (apt's candidate).
    """
    for line in _run(['apt-cache', 'depends',
                      KERNEL_META_PACKAGE]).splitlines():
        line = line.strip()
        if line.startswith('Depends: linux-image-'):
            name = line.split()[1]
            break
    else:
        raise BuildError('apt-cache depends %s names no kernel' %
                         KERNEL_META_PACKAGE)
    for line in _run(['apt-cache', 'policy', name]).splitlines():
        if line.strip().startswith('Candidate:'):
            return name, line.split()[1]
    raise BuildError('apt-cache policy %s: no candidate' % name)


def _cpio_newc(entries):
    """A newc cpio archive of entries: [(path, mode, data or None)]
    (None: a directory; mode with its file type bits).
    """
    out = io.BytesIO()
    for ino, (path, mode, data) in enumerate(
            entries + [('TRAILER!!!', 0, b'')], start=1):
        data = data or b''
        name = path.encode() + b'\0'
        header = '070701' + ''.join('%08x' % value for value in (
            ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name), 0))
        out.write(header.encode() + name)
        out.write(b'\0' * (-(110 + len(name)) % 4))
        out.write(data)
        out.write(b'\0' * (-len(data) % 4))
    return out.getvalue()


def _depends(module):
    """The module names a .ko's .modinfo says it depends on."""
    data = module.read_bytes()
    at = data.find(b'\0depends=')
    if at < 0:
        return []
    text = data[at + 9:data.index(b'\0', at + 1)].decode()
    return [name for name in text.split(',') if name]


def _module_closure(modules_dir, names):
    """Module files (under modules_dir) for names with their dependencies,
    dependencies first (each module's own ``depends=``: the package ships
    no modules.dep, depmod writes it at install).
    """
    by_name = {path.name.split('.ko')[0].replace('-', '_'): path
               for path in modules_dir.rglob('*.ko')}
    ordered = []

    def add(name):
        name = name.replace('-', '_')
        if name not in by_name:
            raise BuildError('module %s is not in %s' % (name, modules_dir))
        path = by_name[name]
        for dep in _depends(path):
            add(dep)
        if path not in ordered:
            ordered.append(path)

    for name in names:
        add(name)
    return ordered


class Guest:
    """The built kernel, initramfs and root disk in one cache directory."""

    def __init__(self, directory):
        self.dir = pathlib.Path(directory)
        self.kernel = self.dir / 'vmlinuz'
        self.ramdisk = self.dir / 'initrd.img'
        self.disk = self.dir / 'disk.raw'
        self.info_file = self.dir / 'guest.json'

    @property
    def info(self):
        return json.loads(self.info_file.read_text())

    def built(self):
        return all(path.exists() for path in (
            self.kernel, self.ramdisk, self.disk, self.info_file))


def build(cache_dir=CACHE_DIR):
    """The guest (a Guest), built unless the cache holds it for apt's
    candidate kernel package and this init script.
    """
    package, version = kernel_package()
    if not BUSYBOX.exists():
        raise BuildError('%s is missing: install busybox-static '
                         '(bindep.txt)' % BUSYBOX)
    key = hashlib.sha256(('%s %s\n%s\n%s\n%s' % (
        package, version, INIT, UDHCPC_SCRIPT, MODULES)).encode()).hexdigest()
    guest = Guest(pathlib.Path(cache_dir) / key[:16])
    if guest.built():
        return guest
    LOG.info('building the tiny guest from %s %s', package, version)
    guest.dir.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=guest.dir.parent) as work:
        work = pathlib.Path(work)
        _run(['apt-get', 'download', '%s=%s' % (package, version)], cwd=work)
        deb, = work.glob('*.deb')
        tree = work / 'tree'
        _run(['dpkg-deb', '-x', deb, tree])
        vmlinuz, = (tree / 'boot').glob('vmlinuz-*')
        modules_dir, = (tree / 'lib' / 'modules').iterdir()
        modules = _module_closure(modules_dir, MODULES)
        entries = [(name, 0o40755, None) for name in (
            'bin', 'dev', 'etc', 'proc', 'sys', 'lib', 'lib/modules')]
        entries.append(('bin/busybox', 0o100755, BUSYBOX.read_bytes()))
        entries.append(('init', 0o100755, INIT.encode()))
        entries.append(('etc/udhcpc.script', 0o100755,
                        UDHCPC_SCRIPT.encode()))
        names = []
        for path in modules:
            names.append(path.name)
            entries.append(('lib/modules/' + path.name, 0o100644,
                            path.read_bytes()))
        entries.append(('etc/modules', 0o100644,
                        ('\n'.join(names) + '\n').encode()))
        staging = guest.dir.with_name(guest.dir.name + '.partial')
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        shutil.copy(vmlinuz, staging / guest.kernel.name)
        (staging / guest.ramdisk.name).write_bytes(
            gzip.compress(_cpio_newc(entries), mtime=0))
        # one MiB nobody reads: the server's root disk
        with open(staging / guest.disk.name, 'wb') as disk:
            disk.truncate(1 << 20)
        (staging / guest.info_file.name).write_text(json.dumps({
            'kernel_package': package, 'kernel_version': version,
            'modules': names, 'marker': MARKER}, indent=2))
        shutil.rmtree(guest.dir, ignore_errors=True)
        os.replace(staging, guest.dir)
    return guest


ENDPOINT = {'service_type': 'image', 'interface': 'public'}


def upload(session, name, path, disk_format, properties=None,
           glance_store='file'):
    """A public image of path's bytes (an active one of that name is
    kept); its id.  glance_store: the backend the file goes to (the
    cloud's default store takes bitstreams only).
    """
    for image in session.get('/v2/images?name=%s' % name,
                             endpoint_filter=ENDPOINT).json()['images']:
        if image['status'] == 'active':
            return image['id']
        session.delete('/v2/images/%s' % image['id'], endpoint_filter=ENDPOINT)
    body = dict(name=name, disk_format=disk_format,
                container_format=disk_format, visibility='public',
                **(properties or {}))
    image = session.post('/v2/images', json=body,
                         endpoint_filter=ENDPOINT).json()
    session.put('/v2/images/%s/file' % image['id'],
                data=path.read_bytes(), endpoint_filter=ENDPOINT,
                headers={'Content-Type': 'application/octet-stream',
                         'X-Image-Meta-Store': glance_store})
    return image['id']


def register(session, guest, names=None, command_line=COMMAND_LINE):
    """The guest as three public Glance images (aki, ari, and the ami nova
    boots, with kernel_id, ramdisk_id and os_command_line), made unless
    active images of those names exist; {'kernel', 'ramdisk', 'image'}:
    image id.  session: a keystoneauth session with admin's rights.
    command_line: the guest's kernel command line (e.g. with
    ``nfguest.ip=10.0.0.5/24``: an image per address).
    """
    names = dict(IMAGE_NAMES, **(names or {}))
    ids = {'kernel': upload(session, names['kernel'], guest.kernel, 'aki'),
           'ramdisk': upload(session, names['ramdisk'], guest.ramdisk,
                             'ari')}
    ids['image'] = upload(session, names['image'], guest.disk, 'ami', {
        'kernel_id': ids['kernel'], 'ramdisk_id': ids['ramdisk'],
        'os_command_line': command_line, 'hw_architecture': 'x86_64'})
    return ids
