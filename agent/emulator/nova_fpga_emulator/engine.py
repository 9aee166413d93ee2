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

"""A region's AXI DMA and module as the C emulated engine (issue 31).

With a data interface, each emulated region's DMA is ``nova-fpga-sgemu``
(agent/datamover/emu: PG021 scatter-gather, register-exact) on files in
/dev/shm that the C data mover maps as it maps /dev/uioN and the u-dma-buf
on a board, and the region's module (its Verilog, the same libregion.so
hdl_bridge builds) runs inside that process, behind its DMA.  The engine
is the emulated fabric: it is started detached and outlives the agent, as
a board's programmable logic does, and an agent starting again adopts it
(its pid file in the state directory).  The emulated board reaches the
module's registers, decoupler and reset over the engine's socket
(FABRIC_* commands of emu/main.c) through EngineBridge, which stands where
hdl_bridge.HdlBridge stands without an engine.
"""
import hashlib
import os
import signal
import socket
import struct
import subprocess
import threading
import time
import types

from oslo_log import log as logging

from nova_fpga.contract import devicetree as dt
from nova_fpga_agent.backends import uio
from nova_fpga_agent import datamover
from nova_fpga_agent import datapath
from nova_fpga_emulator import hdl_bridge

LOG = logging.getLogger(__name__)

#: emu/main.c
FABRIC_MAGIC = 0x52424146
LOAD, AXIL_READ, AXIL_WRITE, DECOUPLE, RESET, STATUS = range(1, 7)
_REQ = struct.Struct('<4I')
_ANS = struct.Struct('<IiI')
PHYS_BASE = 0x1F000000
ENGINE_DIR = 'engines'


def shm_prefix(state_dir):
    """Where a board's engines keep their files.

    One board per state directory.
    """
    tag = hashlib.sha1(os.path.realpath(state_dir).encode()).hexdigest()[:10]
    return '/dev/shm/nfe-%s' % tag


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open('/proc/%d/cmdline' % pid, 'rb') as f:
            return b'nova-fpga-sgemu' in f.read()
    except OSError:
        return False


class Engine:
    """One region's emulated DMA + module process."""

    def __init__(self, state_dir, index, region):
        self.region = region
        prefix = '%s-%s' % (shm_prefix(state_dir), region)
        self.regs = prefix + '-regs'
        self.buf = prefix + '-buf'
        self.irq = prefix + '-irq'
        # a region's DMA buffer: the size of a board's u-dma-buf
        self.size = dt.DMA_BUFFER_BYTES
        self.phys = PHYS_BASE + index * dt.DMA_BUFFER_BYTES
        self.pid_file = os.path.join(state_dir, ENGINE_DIR, region + '.pid')
        self._sock = None
        # one command and its answer at a time: the agent's threads share
        # the connection
        self._lock = threading.Lock()

    def pid(self):
        try:
            with open(self.pid_file, encoding='ascii') as f:
                pid = int(f.read())
        except (OSError, ValueError):
            return None
        return pid if _alive(pid) else None

    def ensure(self):
        """Adopt the running engine, or start one (detached)."""
        if self.pid() and os.path.exists(self.irq):
            LOG.info('region %s: emulated DMA engine pid %d adopted',
                     self.region, self.pid())
            return
        os.makedirs(os.path.dirname(self.pid_file), exist_ok=True)
        proc = subprocess.Popen(
            [datamover.binary('nova-fpga-sgemu'), '--regs', self.regs,
             '--buf', self.buf, '--size', str(self.size), '--phys',
             hex(self.phys), '--irq', self.irq],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            start_new_session=True)
        deadline = time.monotonic() + 10
        while not os.path.exists(self.irq):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError('region %s: nova-fpga-sgemu did not start'
                                   % self.region)
            time.sleep(0.01)
        with open(self.pid_file, 'w', encoding='ascii') as f:
            f.write(str(proc.pid))
        LOG.info('region %s: emulated DMA engine pid %d on %s',
                 self.region, proc.pid, self.regs)

    def stop(self):
        """End the engine (the fabric powered off); its files go with it."""
        pid = self.pid()
        self.close()
        if pid:
            os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + 5
            while _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.01)
        for path in (self.pid_file, self.regs, self.buf, self.irq):
            if os.path.exists(path):
                os.unlink(path)

    def close(self):
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def command(self, op, addr=0, value=0, path=b''):
        """(status, value) of a fabric command."""
        with self._lock:
            return self._command(op, addr, value, path)

    def _command(self, op, addr, value, path):
        if self._sock is None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            sock.settimeout(30)
            with uio.socket_address(self.irq) as address:
                sock.connect(address)
            self._sock = sock
        self._sock.send(_REQ.pack(FABRIC_MAGIC, op, addr, value) + path)
        while True:
            answer = self._sock.recv(64)
            if not answer:
                self.close()
                raise OSError('region %s: the emulated engine went away'
                              % self.region)
            if len(answer) == _ANS.size:   # not an interrupt count
                magic, status, value = _ANS.unpack(answer)
                if magic == FABRIC_MAGIC:
                    return status, value


def stop_all(state_dir, regions):
    """Stop every engine of a board (tests, the emulated board's end)."""
    for index, name in enumerate(regions):
        Engine(state_dir, index, name).stop()


def power_off(state_dir, control=None, runtime_dir=None):
    """An emulated board's end (its agent stopped): what outlives the
    agent stops too, the data mover (over its control socket, in
    runtime_dir: the agent's [dataplane] runtime_dir) and the regions'
    engines, with their files.
    """
    conf = types.SimpleNamespace(
        dataplane=types.SimpleNamespace(
            control_socket=control, counters_file=None,
            runtime_dir=None if runtime_dir is None else str(runtime_dir)),
        agent=types.SimpleNamespace(state_dir=str(state_dir)))
    ctl = datamover.Control(datapath.control_path(conf), timeout=5)
    try:
        pid = datamover.Counters(datapath.counters_path(conf)).read()['pid']
    except (OSError, ValueError, datamover.DataMoverError):
        pid = None
    try:
        ctl.stop()
    except (OSError, datamover.DataMoverError):
        pid = None
    deadline = time.monotonic() + 10
    while pid and os.path.exists('/proc/%d' % pid) and \
            time.monotonic() < deadline:
        time.sleep(0.02)
    if os.path.exists(ctl.path):
        os.unlink(ctl.path)
    try:
        pids = os.listdir(os.path.join(str(state_dir), ENGINE_DIR))
    except FileNotFoundError:
        pids = []
    stop_all(str(state_dir), [name[:-len('.pid')] for name in sorted(pids)
                              if name.endswith('.pid')])


class EngineBridge:
    """A module in the engine: what the emulated board asks of
    hdl_bridge.HdlBridge, over the engine's socket.
    """

    def __init__(self, engine, module, hdl_dir):
        self.engine = engine
        self.module = module
        library = hdl_bridge.build(module, hdl_dir)
        status, kept = engine.command(LOAD, value=module.quiet_cycles,
                                      path=str(library).encode())
        if status:
            raise hdl_bridge.BuildError('region %s: the engine could not '
                                        'load %s' % (engine.region, library))
        if not kept:
            self.reset()

    def set_decoupled(self, decoupled):
        self.engine.command(DECOUPLE, value=int(bool(decoupled)))

    @property
    def decoupled(self):
        return bool(self.engine.command(STATUS)[1] & 2)

    def close(self):
        self.engine.command(LOAD)

    def reset(self, cycles=8):
        self.engine.command(RESET, value=0)

    def clock(self, cycles):
        # the board clocks only after a reset, to let the module start up:
        # the engine's reset runs those cycles
        self.engine.command(RESET, value=cycles)

    def axil_write(self, address, value, strobe=0xF):
        status, _ = self.engine.command(AXIL_WRITE, address, value)
        if status:
            raise hdl_bridge.AxiLiteError('write', address, status)

    def axil_read(self, address):
        status, value = self.engine.command(AXIL_READ, address)
        if status:
            raise hdl_bridge.AxiLiteError('read', address, status)
        return value
