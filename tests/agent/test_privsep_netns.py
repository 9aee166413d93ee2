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

"""The data mover started in a network namespace by the agent's data-path
privsep daemon (privsep-helper, as the emulator starts it; the tests run
as root): what it refuses, and that the mover runs in the namespace with
the packet socket's capability alone, in a session of its own.
"""
import os
import pathlib
import secrets
import subprocess
import time
import types

from oslo_config import cfg
from oslo_privsep import capabilities
from oslo_privsep import priv_context
import pytest

from nova_fpga_agent.backends import base
from nova_fpga_agent import datamover
from nova_fpga_agent import datapath
from nova_fpga_agent import privsep
from nova_fpga_agent.privsep import fpga
from nova_fpga_agent.privsep import netns
from nova_fpga_emulator import engine
from tests.agent import fakekernel

pytestmark = pytest.mark.skipif(os.geteuid() != 0,
                                reason='network namespaces need root')


def ip(*args):
    subprocess.run(['ip', *args], check=True, capture_output=True)


@pytest.fixture(scope='module')
def board(tmp_path_factory):
    """A namespace of the test's own with a veth's end in it, one
    emulated region engine, and the daemon started with a configuration
    naming the state directory (the test's own configuration has none:
    the daemon must not take it from its caller).
    """
    root = tmp_path_factory.mktemp('netns')
    state_dir = root / 'state'
    state_dir.mkdir()
    tag = secrets.token_hex(3)
    name, interface, peer = 'nfpt-%s' % tag, 'nfpt%sb' % tag, 'nfpt%sp' % tag
    ip('netns', 'add', name)
    region = None
    try:
        ip('link', 'add', interface, 'type', 'veth', 'peer', 'name', peer)
        ip('link', 'set', interface, 'netns', name)
        ip('netns', 'exec', name, 'ip', 'link', 'set', interface, 'up')
        region = engine.Engine(str(state_dir), 0, 'rp0')
        region.ensure()
        conf = root / 'agent.conf'
        conf.write_text('[agent]\nstate_dir = %s\n' % state_dir)
        section = privsep.datapath_pctxt.cfg_section
        cfg.CONF.set_override('helper_command', '%s --config-file %s'
                              % (fakekernel.HELPER, conf), group=section)
        privsep.datapath_pctxt.start(method=priv_context.Method.ROOTWRAP)
        try:
            yield types.SimpleNamespace(
                root=root, state_dir=state_dir, netns=name,
                interface=interface, region=region)
        finally:
            privsep.datapath_pctxt.stop()
            cfg.CONF.clear_override('helper_command', group=section)
            engine.power_off(str(state_dir))
    finally:
        if region is not None:
            region.stop()
        subprocess.run(['ip', 'link', 'del', peer], capture_output=True)
        subprocess.run(['ip', 'netns', 'del', name], capture_output=True)


def _conf(board):
    """The daemon's configuration, as DataPath reads it."""
    return types.SimpleNamespace(
        agent=types.SimpleNamespace(state_dir=str(board.state_dir)),
        dataplane=types.SimpleNamespace(
            control_socket=None, counters_file=None, state_file=None,
            runtime_dir=None))


def arguments(board, **changed):
    """The mover's arguments as DataPath gives them."""
    conf = _conf(board)
    r = board.region
    given = {'--interface': board.interface,
             '--counters': datapath.counters_path(conf),
             '--control': datapath.control_path(conf),
             '--state': datapath.state_path(conf),
             '--stall-us': '2000', '--rx-ring': 'v3',
             '--region': 'rp0,regs=%s,irq=%s,buf=%s,phys=0x%x,size=%d' % (
                 r.regs, r.irq, r.buf, r.phys, r.size)}
    given.update(changed)
    return [arg for flag, value in given.items() if value is not None
            for arg in (flag, value)]


def log_path(board):
    return str(board.state_dir / 'datamover.log')


def _status(pid):
    with open('/proc/%d/status' % pid) as f:
        return dict(line.rstrip('\n').split(':\t', 1) for line in f
                    if ':\t' in line)


def _wait_for(predicate, what, timeout=10):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, 'timed out waiting for %s' % what
        time.sleep(0.02)


def test_the_mover_runs_in_the_namespace_with_net_raw_alone(board):
    pid = netns.start_mover(board.netns, arguments(board), log_path(board))
    control = datamover.Control(datapath.control_path(_conf(board)))
    try:
        _wait_for(lambda: os.path.exists(control.path) or
                  not datapath._running(pid), 'the mover')
        assert datapath._running(pid), (board.state_dir /
                                        'datamover.log').read_text()
        control.ping()
        assert os.stat('/proc/%d/ns/net' % pid).st_ino == \
            os.stat('/run/netns/%s' % board.netns).st_ino
        assert os.stat('/proc/%d/ns/net' % pid).st_ino != \
            os.stat('/proc/self/ns/net').st_ino
        assert os.path.realpath('/proc/%d/exe' % pid) == os.path.realpath(
            datamover.binary())
        status = _status(pid)
        assert int(status['CapEff'], 16) == int(status['CapPrm'], 16) == \
            1 << capabilities.CAP_NET_RAW
        assert status['NoNewPrivs'] == '1'
        # a session of its own: it outlives the agent and the daemon
        assert os.getsid(pid) == pid
        assert oct(os.stat(board.state_dir / 'datamover.counters').st_mode
                   & 0o777) == '0o644'
        assert 'forwarding on %s' % board.interface in (
            board.state_dir / 'datamover.log').read_text()
    finally:
        if datapath._running(pid):
            control.stop()
    # ended, it is reaped by the daemon: no zombie left behind
    _wait_for(lambda: not os.path.exists('/proc/%d' % pid), 'the reaping')


def test_an_af_xdp_mover_keeps_what_its_socket_and_program_need(board):
    """[dataplane] packet_io = af_xdp: the mover gets CAP_NET_ADMIN,
    CAP_BPF and CAP_IPC_LOCK besides CAP_NET_RAW, and nothing else; it
    runs on its AF_XDP socket, and its XDP program goes with it.
    """
    pid = netns.start_mover(board.netns, arguments(board, **{'--io': 'xdp'}),
                            log_path(board))
    control = datamover.Control(datapath.control_path(_conf(board)))
    try:
        _wait_for(lambda: os.path.exists(control.path) or
                  not datapath._running(pid), 'the mover')
        log = (board.state_dir / 'datamover.log').read_text()
        assert datapath._running(pid), log
        control.ping()
        status = _status(pid)
        assert int(status['CapEff'], 16) == int(status['CapPrm'], 16) == (
            1 << capabilities.CAP_NET_RAW | 1 << capabilities.CAP_NET_ADMIN
            | 1 << capabilities.CAP_BPF | 1 << capabilities.CAP_IPC_LOCK)
        assert status['NoNewPrivs'] == '1'
        assert 'forwarding on %s (AF_XDP queue 0' % board.interface in log
        shown = subprocess.run(
            ['ip', 'netns', 'exec', board.netns, 'ip', 'link', 'show',
             board.interface], check=True, capture_output=True, text=True)
        assert 'xdp' in shown.stdout
    finally:
        if datapath._running(pid):
            control.stop()
    _wait_for(lambda: not os.path.exists('/proc/%d' % pid), 'the reaping')
    shown = subprocess.run(
        ['ip', 'netns', 'exec', board.netns, 'ip', 'link', 'show',
         board.interface], check=True, capture_output=True, text=True)
    assert 'xdp' not in shown.stdout


@pytest.fixture
def no_window():
    """An empty register file where the engines' are: a region the
    mover cannot map, so it exits at once.
    """
    path = pathlib.Path('%spt%s-regs' % (netns.ENGINE_FILES,
                                         secrets.token_hex(3)))
    path.write_bytes(b'')
    yield path
    path.unlink()


def test_a_mover_that_fails_ends_and_is_reaped(board, no_window):
    bad = no_window
    r = board.region
    pid = netns.start_mover(board.netns, arguments(
        board, **{'--region': 'rp0,regs=%s,irq=%s,buf=%s,phys=0x%x,size=%d'
                  % (bad, r.irq, r.buf, r.phys, r.size)}), log_path(board))
    _wait_for(lambda: not os.path.exists('/proc/%d' % pid), 'the reaping')


def test_the_agent_says_why_a_mover_it_had_started_did_not_start(
        board, no_window):
    """DataPath with a namespace: the mover is the daemon's child, not
    the agent's; one that ends at start still fails the start, with its
    log.
    """
    bad = no_window
    r = board.region
    conf = _conf(board)
    conf.dataplane = types.SimpleNamespace(
        interface=board.interface, netns=board.netns, mover_binary=None,
        control_socket=None, counters_file=None, state_file=None,
        runtime_dir=None, ring_full_wait_us=2000, start_timeout=10.0,
        packet_io='af_packet', rx_ring='v3')
    backend = types.SimpleNamespace(datapath_regions=lambda: [
        base.DmaRegion('rp0', str(bad), r.irq, r.buf, r.phys, r.size)])
    path = datapath.DataPath(conf, backend)
    with pytest.raises(RuntimeError, match=r'did not start on %s \(pid '
                       r'\d+, ended\): .*region rp0' % board.interface):
        path.start()


@pytest.mark.parametrize('name', ['../nfpt', 'a/b', '..', '.', '', 'x\n',
                                  '/run/netns/x', 'nfpt-none-0b5e7a'])
def test_refuses_a_namespace_that_is_no_plain_existing_name(board, name):
    with pytest.raises(netns.Refused, match='plain name|no network '
                       'namespace'):
        netns.start_mover(name, arguments(board), log_path(board))


@pytest.mark.parametrize('where', [
    lambda b: str(b.root / 'outside.log'),
    lambda b: str(b.state_dir / '..' / 'outside.log'),
    lambda b: str(b.state_dir),
    lambda b: '/etc/passwd',
], ids=['outside', 'dotdot', 'the-root', 'absolute'])
def test_refuses_a_log_outside_the_state_dir(board, where):
    with pytest.raises(fpga.PathRefused, match='refuses'):
        netns.start_mover(board.netns, arguments(board), where(board))
    assert not (board.root / 'outside.log').exists()


@pytest.mark.parametrize('changed', [
    {'--counters': '/etc/nova-fpga-counters'},
    {'--state': '/etc/passwd'},
    {'--control': '/tmp/elsewhere.sock'},
    {'--route': '100:rp0:200'},
    {'--interface': None},
    {'--region': 'rp0,regs=/dev/null,buf=/dev/zero,phys=0x0,size=4096'},
    {'--region': 'rp0,regs=/etc/passwd,buf=/etc/passwd,phys=0x0,size=4096'},
    {'--region': 'rp0,regs=/dev/shm/x,mode=y'},
    {'--io': 'dpdk'},
    {'--rx-ring': 'v1'},
], ids=['counters-elsewhere', 'state-elsewhere', 'control-elsewhere',
        'other-option', 'no-interface', 'device-node', 'not-an-engine-file',
        'unknown-key', 'unknown-io', 'unknown-rx-ring'])
def test_refuses_arguments_other_than_the_daemons_own(board, changed):
    with pytest.raises(netns.Refused):
        netns.start_mover(board.netns, arguments(board, **changed),
                          log_path(board))


def test_a_daemon_context_of_its_own(board):
    """The board's helper keeps its two DAC capabilities: entering a
    namespace is the data path helper's alone.
    """
    assert capabilities.CAP_SYS_ADMIN not in privsep.CAPABILITIES
    assert privsep.datapath_pctxt.cfg_section != \
        privsep.board_pctxt.cfg_section
    assert set(privsep.DATAPATH_CAPABILITIES) == {
        capabilities.CAP_SYS_ADMIN, capabilities.CAP_NET_RAW,
        capabilities.CAP_NET_ADMIN, capabilities.CAP_BPF,
        capabilities.CAP_IPC_LOCK}
