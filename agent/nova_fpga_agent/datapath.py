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

"""The board's data path: the C data mover, started and supervised here.

Frames go from the board's data interface to the regions' AXI DMAs and back
in ``nova-fpga-datamover`` (agent/datamover, issue 31), one process a board;
no frame passes through Python.  The outer 802.1Q tag selects the region:
the region manager programs, per region holding a module, the VLAN its
frames enter by and the one they leave by (regions/network.py); frames on
a VLAN no region was given are dropped and counted (``unsteered``).

The mover is a daemon of its own session, so it outlives the agent: the
control plane's restart does not stop the data plane.  At start the agent
pings the mover's control socket and adopts a mover that answers (its
routes are then made the agent's again from the persisted state, at the
first save); only when none answers does it start one, with every region
decoupled until the agent couples it.  A region's frames are dropped and
counted as decoupled in the mover *before* its module is stopped,
reloaded or held by the watchdog (backend ``dma_stop``), and it is coupled
only once the module runs (``dma_start``): the mover's fresh rings then
hold nothing of a previous holder.  Counters come from the mover's
shared-memory file, read while it forwards.

In the emulator the board's data interface lives in a network namespace
([dataplane] netns): entering it takes CAP_SYS_ADMIN, so the agent has the
privileged helper start the mover there (privsep.netns.start_mover; the
helper's options are in [nova_fpga_agent_datapath_privileged]).  A board
has no namespace: the agent starts the mover itself.
"""
import collections
import hashlib
import os
import signal
import stat
import subprocess
import threading
import time

from oslo_config import cfg
from oslo_log import log as logging

from nova_fpga.contract import reports
from nova_fpga import optgroups
from nova_fpga_agent import datamover

LOG = logging.getLogger(__name__)

datapath_group = cfg.OptGroup(
    'dataplane', title='Data path (the C data mover)',
    help='The board\'s data path is nova-fpga-datamover, a daemon the '
         'agent starts (or adopts, after an agent restart) and programs '
         'with the regions\' VLANs; it keeps forwarding while the agent '
         'restarts.')
#: the mover's --rx-ring values ([dataplane] rx_ring), the default first
RX_RINGS = ('v3', 'v2')
DATAPATH_OPTS = [
    cfg.StrOpt('interface',
               help='The data interface frames arrive on and leave by (PS '
                    'Ethernet on a board, a veth in the emulator). Unset: no '
                    'data path.'),
    cfg.StrOpt('netns',
               help='Network namespace the interface lives in (the '
                    'emulator\'s boards; a board has none): the agent\'s '
                    'privileged helper for the data path (options in '
                    '[nova_fpga_agent_datapath_privileged], capabilities '
                    'CAP_SYS_ADMIN and CAP_NET_RAW) starts the mover in '
                    'it. The sudoers rule a board installs does not admit '
                    'that helper.'),
    cfg.StrOpt('mover_binary',
               help='The nova-fpga-datamover binary. Unset: '
                    '$NOVA_FPGA_DATAMOVER_DIR, the source tree\'s '
                    'agent/datamover/build, or PATH.'),
    cfg.StrOpt('runtime_dir',
               help='Directory of the mover\'s runtime files, its control '
                    'socket and shared-memory counters (not state: on a '
                    'board /run/nova-fpga, which the agent\'s unit makes '
                    'with RuntimeDirectory=). The agent makes it. Unset: '
                    '[agent] state_dir.'),
    cfg.StrOpt('control_socket',
               help='The mover\'s control socket (a Unix socket; the agent '
                    'pings it at start to adopt a running mover). Unset: '
                    'datamover.sock in runtime_dir, or a name in /tmp '
                    'derived from it where that path is too long for a '
                    'socket.'),
    cfg.StrOpt('counters_file',
               help='The mover\'s shared-memory counters file (per region '
                    'frames and bytes in and out, drops by reason). Unset: '
                    'datamover.counters in runtime_dir.'),
    cfg.StrOpt('state_file',
               help='Where the mover keeps its routes and decoupled regions '
                    'across its own restart. Unset: datamover.state in '
                    '[agent] state_dir.'),
    cfg.IntOpt('ring_full_wait_us', default=2000, min=0, max=60000000,
               help='When a region\'s DMA ring is full, how long (in '
                    'microseconds) its next frame waits in the data '
                    'interface\'s receive ring (holding the frames behind it, '
                    'of every region) before the region\'s frames are '
                    'dropped and counted (drop_ring_full) until its ring '
                    'drains. 0: drop at once. On a board the module takes a '
                    'beat a cycle, so a full ring is overload and a short '
                    'wait is right; the emulator\'s simulated modules are '
                    'thousands of times slower and wait longer.'),
    cfg.StrOpt('packet_io', default='af_packet',
               choices=[('af_packet', 'AF_PACKET memory-mapped rings '
                         '(TPACKET_V3 in, TPACKET_V2 out): any driver, frames '
                         'up to 9,018 bytes'),
                        ('af_xdp', 'an AF_XDP socket both ways, steered by '
                         'an XDP program of the mover\'s own (in the '
                         'driver where it has XDP, else in the stack): '
                         'frames up to 3,840 bytes, no block timer')],
               help='How the mover reads and writes the data interface. '
                    'Measured on the emulated board (benchmarks/rfc2544.py, '
                    '64-byte frames): af_packet forwards the most frames '
                    'but a frame may wait for its receive block\'s 1 ms '
                    'timer; af_xdp has the lower latency. af_xdp needs '
                    'CAP_NET_ADMIN, CAP_BPF and CAP_IPC_LOCK besides '
                    'CAP_NET_RAW (on a board: the agent unit\'s '
                    'AmbientCapabilities), no other XDP program on the '
                    'interface, and VLAN stripping off (ethtool -K IF '
                    'rxvlan off).'),
    cfg.StrOpt('rx_ring', default=RX_RINGS[0],
               choices=[(RX_RINGS[0], 'TPACKET_V3: 128 blocks of 32 KiB, each '
                         'handed over full or after 1 ms; the most frames '
                         'a second, but a slow sender fills a block with a '
                         'few frames, so a stalled ring holds about 128 ms '
                         'of its traffic'),
                        (RX_RINGS[1], 'TPACKET_V2: 2,048 slots of one '
                         'frame each (20 MiB): holds 2,048 frames at any '
                         'pace')],
               help='The af_packet receive ring. While a region\'s DMA ring '
                    'is full (see ring_full_wait_us) the data interface\'s '
                    'receive ring holds what arrives; once it is full the '
                    'kernel drops frames (the mover\'s kernel_drops '
                    'counter). v3 suits a board at line rate; v2 suits '
                    'bursts into slow (emulated) modules. Ignored with '
                    'packet_io = af_xdp.'),
    cfg.FloatOpt('start_timeout', default=10.0, min=0.1,
                 help='Seconds a newly started mover may take to answer on '
                      'its control socket.'),
]
#: the mover's drops a region counts as its own (reports.DROPPED)
REGION_DROPS = ('drop_ring_full', 'drop_dma_error', 'drop_oversize',
                'drop_decoupled', 'drop_no_egress')
#: sun_path is 108 bytes
MAX_SOCKET_PATH = 100

#: Where frames of one ingress VLAN go: a region, and the VLAN its output
#: leaves by (None: its egress port is gone, the output is dropped).
Route = collections.namedtuple('Route', 'region egress_vlan')


def register_opts(conf):
    optgroups.register(conf, datapath_group, DATAPATH_OPTS)


def list_opts():
    return [(datapath_group, DATAPATH_OPTS)]


def runtime_dir(conf):
    """Where the mover's control socket and counters are by default."""
    return conf.dataplane.runtime_dir or conf.agent.state_dir


def counters_path(conf):
    return conf.dataplane.counters_file or os.path.join(
        runtime_dir(conf), 'datamover.counters')


def state_path(conf):
    return conf.dataplane.state_file or os.path.join(
        conf.agent.state_dir, 'datamover.state')


def control_path(conf):
    if conf.dataplane.control_socket:
        return conf.dataplane.control_socket
    path = os.path.join(os.path.realpath(runtime_dir(conf)),
                        'datamover.sock')
    if len(path) > MAX_SOCKET_PATH:
        path = '/tmp/nfdm-%s.sock' % hashlib.sha1(
            path.encode()).hexdigest()[:12]
    return path


class DataPath:
    """One board's data mover, as the agent sees it."""

    def __init__(self, conf, backend):
        self.conf = conf
        self.backend = backend
        self.interface = conf.dataplane.interface
        self.netns = conf.dataplane.netns
        state_dir = conf.agent.state_dir
        self.binary = conf.dataplane.mover_binary or datamover.binary()
        self.control = datamover.Control(control_path(conf))
        self.counters_path = counters_path(conf)
        self.state_path = state_path(conf)
        self.log_path = os.path.join(state_dir, 'datamover.log')
        self.regions = []
        for region in backend.datapath_regions():
            if os.path.exists(region.regs) and stat.S_ISSOCK(
                    os.stat(region.regs).st_mode):
                # the fake kernel's socket UIO: no window to map
                LOG.warning('region %s: %s is no mappable register window: '
                            'the region has no data path', region.name,
                            region.regs)
                continue
            self.regions.append(region)
        self._lock = threading.Lock()
        #: ingress VLAN -> Route, as last programmed
        self._routes = {}
        #: the mover's pid (None: not known yet)
        self.pid = None

    # -- the daemon --------------------------------------------------------

    def answers(self):
        try:
            self.control.ping()
            return True
        except (OSError, datamover.DataMoverError):
            return False

    def start(self):
        """Adopt the running mover, or start one."""
        if self.answers():
            self.pid = self._read_pid()
            LOG.info('data mover (pid %s) on %s adopted', self.pid,
                     self.interface)
            return False
        self._spawn()
        return True

    def _read_pid(self):
        try:
            return datamover.Counters(self.counters_path).read()['pid']
        except (OSError, ValueError, datamover.DataMoverError):
            return None

    def arguments(self):
        """The mover's arguments (its command line after the binary)."""
        args = ['--interface', self.interface,
                '--counters', self.counters_path,
                '--control', self.control.path, '--state', self.state_path,
                '--stall-us', str(self.conf.dataplane.ring_full_wait_us)]
        if self.conf.dataplane.packet_io == 'af_xdp':
            args += ['--io', 'xdp']
        else:
            args += ['--rx-ring', self.conf.dataplane.rx_ring]
        for r in self.regions:
            args += ['--region', '%s,regs=%s,irq=%s,buf=%s,phys=0x%x,size=%d'
                     % (r.name, r.regs, r.irq, r.buf, r.phys, r.size)]
        return args

    def command_line(self):
        """The mover's command line where the agent starts it (no
        namespace: the privileged helper runs the binary it resolves).
        """
        return [self.binary] + self.arguments()

    def _spawn(self):
        for path in (self.log_path, self.counters_path, self.control.path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
        # a mover starting without one that answers: what it had is stale
        for path in (self.state_path, self.control.path):
            if os.path.exists(path):
                os.unlink(path)
        if self.netns:
            # imported here: a board (no netns) never needs it, and it
            # imports this module (the daemon reads these options)
            from nova_fpga_agent.privsep import netns as priv_netns
            mover = _Started(priv_netns.start_mover(
                self.netns, self.arguments(), self.log_path))
        else:
            with open(self.log_path, 'ab') as log:
                mover = subprocess.Popen(self.command_line(),
                                         stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=log, start_new_session=True)
        deadline = time.monotonic() + self.conf.dataplane.start_timeout
        while not self.answers():
            ended = mover.poll()
            if ended is not None or time.monotonic() > deadline:
                if ended is None:
                    mover.kill()
                    ended = 'killed: no answer within %ss' % (
                        self.conf.dataplane.start_timeout)
                elif not isinstance(ended, str):
                    ended = 'exit %s' % ended
                raise RuntimeError(
                    'nova-fpga-datamover did not start on %s (pid %d, %s): '
                    '%s' % (self.interface, mover.pid, ended,
                            self._log_tail()))
            time.sleep(0.02)
        # a fresh mover: no region takes frames until the agent couples it
        for r in self.regions:
            self.control.decouple(r.name)
        self.pid = mover.pid
        self._routes = {}
        LOG.info('data mover (pid %d) started on %s%s', mover.pid,
                 self.interface,
                 ' (netns %s)' % self.netns if self.netns else '')

    def _log_tail(self):
        try:
            with open(self.log_path, encoding='utf-8',
                      errors='replace') as f:
                return f.read()[-2000:]
        except OSError:
            return ''

    def _call(self, what, *args):
        """A control command; a mover that does not answer is started again
        (its routes and decoupled regions come back from its state file) and
        asked once more.
        """
        try:
            return getattr(self.control, what)(*args)
        except OSError as exc:
            LOG.warning('data mover does not answer (%s): starting it again',
                        exc)
            self.start()
            return getattr(self.control, what)(*args)

    def stop(self):
        """The agent stops; the mover goes on forwarding (nothing to do)."""

    def shutdown(self):
        """End the mover (the board's data path goes down)."""
        if self.answers():
            self.control.stop()

    # -- what the agent asks ---------------------------------------------

    def program(self, routes):
        """Steer by these routes ({ingress VLAN: Route}) from now on."""
        known = {r.name for r in self.regions}
        routes = {vlan: r for vlan, r in routes.items() if r.region in known}
        with self._lock:
            self._call('program', {vlan: (r.region, r.egress_vlan)
                                   for vlan, r in routes.items()})
            changed, self._routes = routes != self._routes, routes
        if changed:
            LOG.info('data path VLANs: %s', ', '.join(
                '%d->%s' % (vlan, route)
                for vlan, route in sorted(routes.items())) or 'none')

    def routes(self):
        with self._lock:
            return dict(self._routes)

    def decouple(self, region):
        with self._lock:
            self._call('decouple', region)

    def couple(self, region):
        with self._lock:
            self._call('couple', region)

    def is_decoupled(self, region):
        """Whether the mover drops the region's frames (an adopted mover
        keeps forwarding a running region's: coupling it again would
        drop what its rings hold).
        """
        found = self._read()['regions'].get(region)
        return found is None or bool(found['decoupled'])

    def reset(self, region):
        """Start the region's counters again at zero (a load)."""
        with self._lock:
            self._call('reset_counters', region)

    def _read(self):
        return datamover.Counters(self.counters_path).read()

    def counters(self, region):
        found = self._read()['regions'].get(region)
        if found is None:
            return dict.fromkeys(reports.DATAPLANE_COUNTERS, 0)
        return {reports.FRAMES_IN: found['frames_in'],
                reports.BYTES_IN: found['bytes_in'],
                reports.FRAMES_OUT: found['frames_out'],
                # the module's frames, as bytes_in counts them: the mover
                # counts what it sends, with the egress tag (4 bytes)
                reports.BYTES_OUT: found['bytes_out'] - 4 * found[
                    'frames_out'],
                reports.DROPPED: sum(found[k] for k in REGION_DROPS)}

    @property
    def unsteered(self):
        """Frames on a VLAN no region was given (or untagged): dropped."""
        return self._read()['global']['drop_no_route']

    def wrap(self, backend):
        """The backend, its region's frames decoupled in the mover before
        its DMA stops and coupled after it starts.
        """
        return _MoverBackend(backend, self)


class _Started:
    """A mover the privileged helper started (not the agent's child):
    poll() and kill() by its pid.
    """

    def __init__(self, pid):
        self.pid = pid

    def poll(self):
        """None while it runs, else 'ended' (its exit status is the
        helper's to collect).
        """
        return None if _running(self.pid) else 'ended'

    def kill(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _running(pid):
    """Whether process pid runs (a zombie, ended but not yet reaped by
    its parent, does not).
    """
    try:
        with open('/proc/%d/stat' % pid) as f:
            state = f.read().rpartition(')')[2].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ('Z', 'X', 'x')


class _MoverBackend:
    def __init__(self, backend, path):
        self._backend = backend
        self._path = path

    def __getattr__(self, name):
        return getattr(self._backend, name)

    def dma_stop(self, region):
        # first: from now on nothing reaches what the region holds
        self._path.decouple(region)
        self._backend.dma_stop(region)

    def dma_start(self, region):
        self._backend.dma_start(region)
        # last: the module runs, with its settings
        if self._path.is_decoupled(region):
            self._path.couple(region)
