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

"""Fixtures for the board agent: reference shell, builder-made modules,
agents over oslo.messaging's in-process transport."""
import functools
import shutil

from oslo_config import cfg
import oslo_messaging as messaging
import pytest

from nova_fpga.bitstream import builder
from nova_fpga.bitstream import container
from nova_fpga import catalogue
from nova_fpga.contract import agent_api as api
from nova_fpga.contract import shell as mf
from nova_fpga_agent import conf as agent_conf
from nova_fpga_agent import service
from tests.agent.brokers import rabbitmq  # noqa: F401 (a fixture)
from tests.agent import fakekernel
from tests.conftest import HDL

REFERENCE = mf.load(mf.REFERENCE)


@functools.lru_cache(maxsize=None)
def module_for(
    region,
    module_id=catalogue.module_id('loopback'),
    part='7z020clg400',
    seed=0,
):
    """A builder-made partial for a reference-shell region."""
    footprint = REFERENCE.region(region).footprint
    return builder.build_partial(part, 'loopback_%s' % region, module_id,
                                 footprint, seed=seed)


def opaque_for(region):
    return module_for(region, container.NO_USER_ID)


def write_conf(tmp_path, board='board0', options=None):
    """An agent config file; options as {(group, name): value} (None:
    leave the option out).
    """
    values = {('agent', 'board_name'): board,
              ('agent', 'manifest'): str(mf.REFERENCE),
              ('agent', 'state_dir'): str(tmp_path / board),
              ('agent', 'backend'): 'sim',
              # a sysfs of its own (no XADC: no watchdog), never the
              # machine's /sys, which nova's functional harness forbids
              ('agent', 'sysfs_root'): str(tmp_path / ('%s-sys' % board)),
              ('emulator', 'pcap_rate'): 1000.0,
              ('emulator', 'hdl_dir'): HDL}
    values.update(options or {})
    groups = {}
    for (group, name), value in values.items():
        if value is None:
            continue
        groups.setdefault(group, []).append('%s = %s' % (name, value))
    path = tmp_path / ('%s.conf' % board)
    path.write_text(''.join('[%s]\n%s\n' % (g, '\n'.join(lines))
                            for g, lines in groups.items()))
    return path


def make_conf(tmp_path, board='board0', options=None):
    conf = cfg.ConfigOpts()
    agent_conf.register_opts(conf)
    conf(['--config-file', str(write_conf(tmp_path, board, options))],
         project='nova-fpga')
    return conf


class InProcessCloud:
    """Agents and a client on one in-process (fake) transport."""

    def __init__(self, tmp_path):
        self.tmp_path = tmp_path
        # oslo.messaging registers its tracing options on the global CONF
        # only, so transports are made with it, as in a real service.
        self.transport = messaging.get_rpc_transport(
            cfg.CONF, url='fake:/',
            allowed_remote_exmods=['nova_fpga.contract.agent_api'])
        # agents publish on their exchange (nova-fpga-agent makes it the
        # control_exchange), where nova-compute listens
        cfg.CONF.set_override('control_exchange', api.EXCHANGE)
        try:
            self.notifications = messaging.get_notification_transport(
                cfg.CONF, url='fake:/')
        finally:
            cfg.CONF.clear_override('control_exchange')
        self.client = api.AgentAPI(self.transport, timeout=30)
        self.agents = {}

    def start(self, board='board0', options=None):
        agent = service.Agent(make_conf(self.tmp_path, board, options),
                              self.transport, self.notifications)
        agent.start()
        self.agents[board] = agent
        return agent

    def stop(self, board):
        self.agents.pop(board).stop()

    def close(self):
        for board in list(self.agents):
            self.stop(board)


class BoardCloud(InProcessCloud):
    """Agents on one backend variant: sim, or a board backend over a fake
    kernel per board (kept across agent restarts, as a board's kernel).
    """

    def __init__(self, tmp_path, variant, base):
        super().__init__(tmp_path)
        self.variant = variant
        self.base = base
        self.kernels = {}

    def kernel(self, board):
        if board not in self.kernels:
            self.kernels[board] = fakekernel.kernel(
                self.base, board, self.variant).start()
        return self.kernels[board]

    def start(self, board='board0', options=None):
        opts = {}
        if self.variant != 'sim':
            opts.update(self.kernel(board).agent_options())
        opts.update(options or {})
        return super().start(board, opts)

    def reboot(self, board):
        """The board lost power (its agent stopped first)."""
        if self.variant == 'sim':
            (self.tmp_path / board / 'emulated-pl.json').unlink()
        else:
            self.kernels[board].reboot()

    def close(self):
        super().close()
        for kernel in self.kernels.values():
            kernel.stop()


@pytest.fixture
def cloud(tmp_path):
    c = InProcessCloud(tmp_path)
    yield c
    c.close()


@pytest.fixture(scope='module')
def kernels(tmp_path_factory):
    """Where the module's fake kernels live, with the privileged helper
    confined to it.
    """
    with fakekernel.privileged_helper(
            str(tmp_path_factory.mktemp('kernels'))) as base:
        yield base


@pytest.fixture(params=['sim'] + sorted(fakekernel.VARIANTS))
def board_cloud(request, tmp_path, kernels):
    """An in-process cloud whose agents run each backend in turn."""
    c = BoardCloud(tmp_path, request.param, kernels)
    yield c
    c.close()


@pytest.fixture
def ctxt():
    return {}


@pytest.fixture(scope='module')
def ca(tmp_path_factory):
    """A certificate authority made by openssl (nova_fpga_devtools.pki)
    that signs the tests' bitstream signers.
    """
    from nova_fpga_devtools import pki
    return pki.Authority(tmp_path_factory.mktemp('ca'))


@pytest.fixture
def trusted(tmp_path, ca):
    """A board's trust store ([agent] trusted_ca_dir) holding ca."""
    directory = tmp_path / 'trusted-ca'
    directory.mkdir()
    shutil.copy(ca.pem, directory / 'cloud-ca.pem')
    return directory
