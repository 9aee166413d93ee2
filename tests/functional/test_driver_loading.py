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

"""A stock nova-compute finds the driver as ``zynq.ZynqDriver``.

nova imports drivers only as ``nova.virt.<name>``; nova-fpga-virt
(nova-virt-zynq/, installed by the compute role only) ships
``nova/virt/zynq`` (the convention of nova-dpm, nova-powervm, nova-zvm).  A
regular install puts it inside nova's own package directory; an editable
install (tools/setup-env's, DevStack's) resolves it through setuptools'
editable finder, which maps ``nova.virt.zynq`` to the checkout.  Neither
edits nova's files.
"""
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import time

from nova import baserpc
from oslo_config import cfg
import oslo_messaging as messaging
import pytest

from tests.agent.brokers import rabbitmq  # noqa: F401  (fixture)

ROOT = pathlib.Path(__file__).resolve().parents[2]
#: the nova-fpga-virt distribution: the nova.virt.zynq module
SHIM = ROOT / 'nova-virt-zynq'
BIN = pathlib.Path(sys.executable).parent
DRIVER_LOADED = 'Zynq driver: boards board0, board1'


@pytest.fixture
def conductor_ping(rabbitmq):  # noqa: F811
    """nova's own base RPC endpoint on the conductor topic: nova-compute
    waits for a conductor to answer ping before it loads its driver.
    """
    url = rabbitmq.user('nova')
    transport = messaging.get_rpc_transport(cfg.CONF, url=url)
    server = messaging.get_rpc_server(
        transport,
        # nova's control exchange, as nova.rpc sets it for its services
        messaging.Target(exchange='nova', topic='conductor', server='test'),
        [baserpc.BaseRPCAPI('conductor', None)], executor='threading')
    server.start()
    yield url
    server.stop()
    server.wait()
    transport.cleanup()


@pytest.fixture
def placement_url(tmp_path):
    """Placement's version document, which nova-compute reads before it
    loads its driver (nothing more is asked here).  Served by a separate
    process: a server thread here would block nova's eventlet hub.
    """
    www = tmp_path / 'www'
    (www / 'placement').mkdir(parents=True)
    (www / 'placement' / 'index.html').write_text(json.dumps({'versions': [{
        'id': 'v1.0', 'min_version': '1.0', 'max_version': '1.39',
        'status': 'CURRENT', 'links': [{'rel': 'self', 'href': ''}]}]}))
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, '-m', 'http.server', '--bind', '127.0.0.1',
         '--directory', str(www), str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(('127.0.0.1', port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.2)
    yield 'http://127.0.0.1:%d/placement/' % port
    server.terminate()
    server.wait(10)


def test_stock_nova_compute_loads_the_driver(tmp_path, conductor_ping,
                                             placement_url,
                                             rabbitmq):  # noqa: F811
    conf = tmp_path / 'nova.conf'
    conf.write_text('\n'.join([
        '[DEFAULT]', 'compute_driver = zynq.ZynqDriver',
        'transport_url = %s' % conductor_ping,
        'state_path = %s' % (tmp_path / 'state'), 'host = zynq-proxy',
        # a fixed RPC version: no conductor query for the minimum
        '[upgrade_levels]', 'compute = 6.0',
        # the manager makes its placement client before the driver
        '[placement]', 'auth_type = none',
        'endpoint_override = %s' % placement_url,
        '[zynq]', 'boards = board0,board1',
        'transport_url = %s' % rabbitmq.user('cloud'), '']))
    log = tmp_path / 'nova-compute.log'
    with open(log, 'wb') as out:
        process = subprocess.Popen(
            [str(BIN / 'nova-compute'), '--config-file', str(conf)],
            stdout=out, stderr=subprocess.STDOUT, cwd=tmp_path,
            start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            text = log.read_text(errors='replace')
            if DRIVER_LOADED in text or process.poll() is not None:
                break
            time.sleep(0.5)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
    text = log.read_text(errors='replace')
    assert "Loading compute driver 'zynq.ZynqDriver'" in text, text[-3000:]
    assert 'Unable to load the virtualization driver' not in text
    assert DRIVER_LOADED in text, text[-3000:]


def _mirror(src, dst, merged):
    """dst: src's entries as symlinks, except those in merged (real
    directories, merged the same way one level down).
    """
    dst.mkdir(parents=True, exist_ok=True)
    for entry in src.iterdir():
        if entry.name in merged:
            _mirror(entry, dst / entry.name, merged[entry.name])
        elif not (dst / entry.name).exists():
            (dst / entry.name).symlink_to(entry)


def test_regular_install_puts_the_module_inside_novas_package(tmp_path):
    wheels = tmp_path / 'wheels'
    subprocess.run([sys.executable, '-m', 'pip', 'wheel', '-q', '--no-deps',
                    '--no-build-isolation', '-w', str(wheels), str(SHIM)],
                   check=True, timeout=300)
    (wheel,) = wheels.glob('nova_fpga_virt-*.whl')
    site = tmp_path / 'site'
    subprocess.run([sys.executable, '-m', 'pip', 'install', '-q',
                    '--no-deps', '--target', str(site), str(wheel)],
                   check=True, timeout=300)
    # the wheel carries nova/virt/zynq and nothing else
    shipped = sorted(str(p.relative_to(site)) for p in site.rglob('*')
                     if p.is_file() and p.suffix != '.pyc'
                     and not p.parent.name.endswith('.dist-info'))
    assert shipped == ['nova/virt/zynq/__init__.py']
    # pip merges it into the installed nova package; do the same by
    # mirroring nova with symlinks and the wheel's files in place
    import nova
    nova_dir = pathlib.Path(nova.__file__).parent
    merged = tmp_path / 'merged'
    shutil.copytree(site / 'nova', merged / 'nova', symlinks=True)
    _mirror(nova_dir, merged / 'nova', {'virt': {}})
    probe = ('import nova.virt.zynq as z, nova_fpga.virt.driver as d;'
             'print(z.__file__); print(d.__file__);'
             'print(z.ZynqDriver is d.ZynqDriver)')
    out = subprocess.run(
        [sys.executable, '-c', probe], capture_output=True, text=True,
        timeout=120, cwd=tmp_path, check=True,
        env=dict(os.environ, PYTHONPATH=str(merged))).stdout
    zynq_file, driver_file, same = out.split()
    assert zynq_file == str(merged / 'nova/virt/zynq/__init__.py')
    # the driver from nova-fpga, installed beside it
    assert driver_file.startswith(str(ROOT / 'nova_fpga'))
    assert same == 'True'
