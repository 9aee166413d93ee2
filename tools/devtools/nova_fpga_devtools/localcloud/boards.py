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

"""Emulated Zynq boards: one nova-fpga-agent process per board.

Each runs with the reference shell, its state in state_dir/boards/<name>,
on the agents' own RabbitMQ vhost as a user of its own, on the sim backend
(the board emulator: modules as Verilator-compiled HDL) or on a board
backend (fpga_manager, xdevcfg) over a fake kernel process with the same
emulator behind it, its root writes through its own privsep-helper as on a
board.  Either way its [agent] sysfs_root shows an XADC (a directory beside
a sim board, the fake kernel's own otherwise), so its temperature watchdog
runs and a demo can make the board overheat; its data mover runs in the
namespace of its data interface, started there by the agent's data-path
privsep-helper.
"""
import json
import os
import pathlib
import subprocess
import time

import oslo_messaging as messaging

from nova_fpga import deployment
from nova_fpga_agent import datapath
import nova_fpga_devtools
from nova_fpga_devtools.localcloud import process
from nova_fpga_emulator.fakekernel import iio
from nova_fpga_emulator.fakekernel import kernel as fk
from nova_fpga_emulator.fakekernel import process as fkprocess

AGENT = process.BIN / 'nova-fpga-agent'
SIM = 'sim'
#: what a board may run on: the emulator, or a board backend over a fake
#: kernel
BACKENDS = (SIM,) + tuple(sorted(fkprocess.VARIANTS))
#: [dataplane] ring_full_wait_us of an emulated board: its modules are
#: simulated (a few thousand frames a second, not a beat a cycle), so a full
#: region ring is the simulator's pace, not overload; a burst waits in the
#: data interface's receive ring rather than being dropped
EMULATED_RING_FULL_WAIT_US = 1000000
#: [dataplane] rx_ring of an emulated board: one slot a frame (2,048), so
#: the ring holds a burst whatever its sender's pace (a V3 block is handed
#: over after 1 ms however few frames it holds: scapy's pace fills the
#: 128 blocks with a few hundred frames, and the demo's replay of 1,373
#: frames lost 50 to the kernel on a loaded CI host)
EMULATED_RX_RING = datapath.RX_RINGS[1]


class Board:
    def __init__(self, state_dir, name, transport_url, options=None,
                 die_with_parent=True, backend=SIM, tls=None,
                 trusted_cas=(), signed_only=False):
        """options: {(section, option): value} over the agent's base config
        (a data plane interface and netns, the emulator's PCAP rate...).
        backend: one of BACKENDS.  tls: the board's deployment.Tls on the
        agents' bus, or None.  trusted_cas: PEM files of the certificate
        authorities whose signed bitstreams the board loads, installed in
        its trust store (its [agent] trusted_ca_dir) as a board image
        installs them; signed_only: its [agent] require_signed_bitstreams.
        """
        self.tls = tls
        self.trusted_cas = [pathlib.Path(path) for path in trusted_cas]
        self.signed_only = signed_only
        self.name = name
        self.backend = backend
        self.options = dict(options or {})
        self.dir = pathlib.Path(state_dir) / 'boards' / name
        self.conf_file = self.dir / 'agent.conf'
        #: a sim board's sysfs, where its agent reads the XADC
        self.sysfs = self.dir / 'sys'
        self.transport_url = transport_url
        self.process = process.Process(
            'agent', [AGENT, '--config-file', self.conf_file], self.dir,
            die_with_parent=die_with_parent)
        self.log = self.process.log
        self.kernel = None
        if backend != SIM:
            device = fkprocess.VARIANTS[backend][1]
            self.kernel = process.Process(
                'fakekernel', fkprocess.COMMAND + [
                    self.kernel_root, '--device', device, '--hdl-dir',
                    nova_fpga_devtools.HDL, '--engines'],
                self.dir, die_with_parent=die_with_parent)
        #: the XADC's values (what `nova-fpga-demo temperature` sets)
        self.xadc = (iio.FakeXadc(str(self.sysfs)) if self.kernel is None
                     else iio.control(str(self.kernel_root)))

    @property
    def kernel_root(self):
        return self.dir / 'fakekernel'

    @property
    def trust_store(self):
        """The agent's [agent] trusted_ca_dir (a board's
        /etc/nova-fpga/trusted-ca).
        """
        return self.dir / 'trusted-ca'

    def install_trust_store(self):
        """The trusted CAs' certificates in the trust store, and nothing
        else (0755, its files 0644, as the board image installs them).
        """
        self.trust_store.mkdir(parents=True, exist_ok=True)
        self.trust_store.chmod(0o755)
        wanted = {path.name: path for path in self.trusted_cas}
        for old in self.trust_store.iterdir():
            if old.name not in wanted:
                old.unlink()
        for name, path in wanted.items():
            target = self.trust_store / name
            target.write_bytes(path.read_bytes())
            target.chmod(0o644)

    @property
    def runtime_dir(self):
        """The agent's [dataplane] runtime_dir: the mover's socket and
        counters.
        """
        return self.dir / 'run'

    @property
    def state_file(self):
        """The agent's region state (regions.json)."""
        return self.dir / 'state' / 'regions.json'

    def last_regions(self):
        """[{'name', 'state', 'instance_uuid'}] as the agent last wrote its
        state file (regions it never touched are FREE and absent), or None
        when there is no readable file: what status shows of a silent
        board.
        """
        try:
            records = json.loads(self.state_file.read_text())['regions']
            return [{'name': record['region'], 'state': record['state'],
                     'instance_uuid': record.get('instance_uuid')}
                    for record in records]
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def conf(self):
        # what every nova-fpga deployment sets (the DevStack plugin too)
        conf = process.options(deployment.agent(
            self.name, self.transport_url, self.dir / 'state',
            hdl_dir=nova_fpga_devtools.HDL, tls=self.tls))
        if self.kernel is not None:
            backend, _, extra = fkprocess.VARIANTS[self.backend]
            conf[('agent', 'backend')] = backend
            conf.update(fk.options(self.kernel_root))
            conf.update(extra)
            # its own privileged helper, as on a board (no sudo: the demo
            # runs as root)
            conf[('nova_fpga_agent_privileged', 'helper_command')] = \
                '%s --config-file %s' % (process.BIN / 'privsep-helper',
                                         self.conf_file)
        else:
            conf[('agent', 'sysfs_root')] = str(self.sysfs)
        conf[('agent', 'trusted_ca_dir')] = str(self.trust_store)
        conf[('agent', 'require_signed_bitstreams')] = self.signed_only
        conf[('dataplane', 'ring_full_wait_us')] = EMULATED_RING_FULL_WAIT_US
        conf[('dataplane', 'rx_ring')] = EMULATED_RX_RING
        # the mover's socket and counters beside the state, not in it (a
        # board's /run/nova-fpga)
        conf[('dataplane', 'runtime_dir')] = str(self.runtime_dir)
        if self.options.get(('dataplane', 'netns')):
            # the data path's privileged helper starts the mover in the
            # board's namespace (privsep.netns; no sudo either)
            conf[('nova_fpga_agent_datapath_privileged', 'helper_command')] \
                = '%s --config-file %s' % (process.BIN / 'privsep-helper',
                                           self.conf_file)
        conf.update(self.options)
        return conf

    def _start_kernel(self, timeout=60):
        mount = self.kernel_root / 'kernel'
        # a mount its killed predecessor left behind
        subprocess.run(['umount', '-l', str(mount)], check=False,
                       stderr=subprocess.DEVNULL)
        self.kernel.start()
        ready = mount / 'sys' / 'devices' / 'soc0' / 'family'
        deadline = time.monotonic() + timeout
        while not os.path.exists(ready):
            if not self.kernel.running() or time.monotonic() > deadline:
                self.kernel.stop()
                raise process.ServiceError(self.name, 'fake kernel did not '
                                           'come up', self.kernel.log)
            time.sleep(0.05)

    def start(self, client, timeout=120):
        """Start the agent (after its fake kernel, if it has one) and wait
        until it answers health over RPC.
        """
        if self.kernel is not None and not process.pid_file_members(
                self.kernel.pid_file):
            self._start_kernel()
        process.write_conf(self.conf_file, self.conf())
        self.install_trust_store()
        if not pathlib.Path(self.xadc.path).exists():
            self.xadc.install()
        self.process.start()
        deadline = time.monotonic() + timeout
        while True:
            if not self.process.running():
                self.process.stop()
                raise process.ServiceError(self.name, 'agent exited',
                                           self.log)
            try:
                return client.health({}, self.name, timeout=2)
            except messaging.MessagingTimeout:
                pass
            if time.monotonic() > deadline:
                self.process.stop()
                raise process.ServiceError(self.name, 'agent did not answer '
                                           'within %ss' % timeout, self.log)
