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

"""What the fault cases keep in flight: servers created and deleted with
the real openstack CLI (as bob, a tenant), from builder-made bitstreams
imported through Glance's import flow, and one bad image (plain data in
the file store: no board takes it, so its servers must fail cleanly).
"""
import subprocess
import threading
import time

from nova_fpga.bitstream import builder
from nova_fpga import catalogue
from nova_fpga.contract import shell
from nova_fpga_devtools.localcloud import process

REFERENCE = shell.load(shell.REFERENCE)
PART = '7z020clg400'
#: name -> (region, module) of the bitstream images
IMAGES = {'rel-loopback-rp0': ('rp0', 'loopback'),
          'rel-loopback-rp1': ('rp1', 'loopback'),
          'rel-vtc-rp1': ('rp1', 'vtc')}
#: an image no board takes (not a bitstream)
BAD = 'rel-not-a-bitstream'
FLAVOR = 'fpga.region'


def bitstream(path, name):
    region, module = IMAGES[name]
    path.write_bytes(builder.build_partial(
        PART, name.replace('-', '_'), catalogue.module_id(module),
        REFERENCE.region(region).footprint))
    return path


def import_image(cli, name, path):
    """name imported from path with nova-fpga-manage image create (the
    import flow); (exit code, output).
    """
    out = subprocess.run(
        [str(process.BIN / 'nova-fpga-manage'), 'image', 'create', name,
         str(path), '--shell-id', REFERENCE.shell_id],
        env=cli.env, capture_output=True, text=True, timeout=300)
    return out.returncode, out.stdout + out.stderr


def make_images(cloud, admin, bob, work):
    """The flavor, and {name: image id} of IMAGES and BAD, made by bob."""
    out = subprocess.run([str(process.BIN / 'nova-fpga-manage'), 'flavor',
                          'create'], env=admin.env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    made = {}
    for name in [*IMAGES, BAD]:
        # an interrupted earlier run's (image show wants one by a name)
        for image in bob.json('image', 'list', '--name', name):
            bob.run('image', 'delete', image['ID'])
    for name in IMAGES:
        code, output = import_image(bob, name, bitstream(
            work / ('%s.bit' % name), name))
        assert code == 0, output
        made[name] = bob.json('image', 'show', name)['id']
    made[BAD] = upload_to_file_store(cloud, BAD, b'not a bitstream\n' * 64)
    return made


def upload_to_file_store(cloud, name, data):
    """An image of data in the file store, as bob; its id.  The CLI
    cannot choose a store for an upload (FACTS.md), and the default
    (bitstream) store refuses plain data: Glance's API with its
    X-Image-Meta-Store header does.
    """
    session = cloud.keystone.session('bob')
    endpoint = {'service_type': 'image', 'interface': 'public'}
    image = session.post('/v2/images', endpoint_filter=endpoint, json={
        'name': name, 'disk_format': 'raw', 'container_format': 'bare'},
    ).json()
    response = session.put(
        '/v2/images/%s/file' % image['id'], endpoint_filter=endpoint,
        data=data, headers={'Content-Type': 'application/octet-stream',
                            'X-Image-Meta-Store': 'file'})
    assert response.status_code == 204, response.text
    return image['id']


class Flight:
    """Servers created and deleted in the background with the CLI, each
    call in a thread of its own (the CLI waits for nothing): what is in
    flight while a case injects its fault.
    """

    def __init__(self, cli, images, prefix):
        self.cli, self.images, self.prefix = cli, images, prefix
        self.threads = []
        self.ids = []
        self.errors = []
        self._lock = threading.Lock()

    def _call(self, cli, args, on_done=None):
        out = cli.run(*args, check=False)
        with self._lock:
            if out.returncode:
                self.errors.append('openstack %s: %s' % (
                    ' '.join(args), out.stderr.strip()))
            elif on_done:
                on_done(out.stdout)

    def _start(self, cli, args, on_done=None):
        thread = threading.Thread(target=self._call,
                                  args=(cli, args, on_done))
        thread.start()
        self.threads.append(thread)

    def _create_args(self, image, name, node):
        """The CLI's arguments: node pins the server to a board (an admin
        request, microversion 2.74).
        """
        version = ['--os-compute-api-version', '2.74'] if node else []
        pin = ['--hypervisor-hostname', node] if node else []
        return [*version, 'server', 'create', *pin, '--flavor', FLAVOR,
                '--image', self.images[image], '--nic', 'none', name]

    def create(self, image, index, node=None, admin=None):
        """Start a server create (the CLI returns once nova accepted it);
        node: on that board (admin: the admin's CLI that may ask).
        """
        cli = admin if node else self.cli
        args = self._create_args(image, '%s-%d' % (self.prefix, index), node)
        self._start(cli, args + ['-f', 'value', '-c', 'id'],
                    lambda out: self.ids.append(out.strip()))

    def delete(self, server_id, cli=None):
        """Start a server delete (as cli: default the flight's user)."""
        self._start(cli or self.cli, ['server', 'delete', server_id])

    def join(self, timeout=300):
        for thread in self.threads:
            thread.join(timeout)
        self.threads = []

    def create_and_wait(self, plan, node=None, admin=None):
        """Servers of plan ([image]) created with --wait; their ids."""
        cli = admin if node else self.cli
        return [cli.json(*self._create_args(
            image, '%s-pre%d' % (self.prefix, index), node), '--wait')['id']
            for index, image in enumerate(plan)]


def wait_until(predicate, timeout, what, interval=0.5):
    """Seconds until predicate() held; AssertionError after timeout."""
    began = time.monotonic()
    while not predicate():
        assert time.monotonic() - began < timeout, 'not within %d s: %s' % (
            timeout, what)
        time.sleep(interval)
    return time.monotonic() - began
