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

"""The data mover started in a network namespace (the emulator's boards).

An emulated board's data interface lives in a namespace of its own
([dataplane] netns); entering it takes CAP_SYS_ADMIN, which the agent has
not, so the datapath_pctxt daemon starts the mover there (start_mover).
It takes the namespace's name, the mover's arguments and its log file,
and refuses anything but a plain name of an existing /run/netns/<name>,
the arguments DataPath gives (its files those the daemon derives from its
own [agent] and [dataplane] options, each region's files the emulated
engines' shared memory, never a device node)
and a log file below [agent] state_dir.  It runs only the mover binary the
daemon resolves itself ([dataplane] mover_binary, or datamover.binary()).

The mover's child enters the namespace with setns(2), keeps only
CAP_NET_RAW (its packet socket; with --io xdp also what its AF_XDP socket
and XDP program need, XDP_MOVER_CAPABILITIES) and sets no_new_privs before
the exec:
a child of a root daemon would otherwise get root's full capabilities
back at the exec.  It starts in a session of its own, so it outlives the
agent and this daemon; a thread of the daemon reaps it, so an ended mover
is no zombie here (once the daemon is gone, init reaps it).
"""
import ctypes
import os
import re
import shutil
import stat
import subprocess
import threading

from oslo_config import cfg
from oslo_privsep import capabilities

from nova_fpga_agent import conf as agent_conf
from nova_fpga_agent import datamover
from nova_fpga_agent import datapath
from nova_fpga_agent import privsep
from nova_fpga_agent.privsep import fpga

CONF = cfg.CONF

NETNS_DIR = '/run/netns'
#: what ip-netns(8) names a namespace: a plain file name in NETNS_DIR
_NETNS_NAME = re.compile(r'[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}')
_INTERFACE = re.compile(r'[^/\s]{1,15}')
#: the mover's options DataPath passes, each with one value
_FILE_ARGS = ('--counters', '--control', '--state')
_REQUIRED_ARGS = ('--interface',) + _FILE_ARGS
_ONCE_ARGS = _REQUIRED_ARGS + ('--stall-us', '--io', '--rx-ring')
#: the mover's packet I/O ([dataplane] packet_io)
_IO = ('packet', 'xdp')
_REGION_FILES = ('regs', 'buf', 'irq')
_REGION_KEYS = _REGION_FILES + ('phys', 'size')
#: where the emulated engines' register files, buffers and interrupt
#: sockets are (nova_fpga_emulator.engine.shm_prefix; a fake kernel's
#: /dev/uioN links to them)
ENGINE_FILES = '/dev/shm/nfe-'

CLONE_NEWNET = 0x40000000
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_RAISE = 2
#: what the mover keeps: its AF_PACKET socket
MOVER_CAPABILITIES = [capabilities.CAP_NET_RAW]
#: with --io xdp: its AF_XDP socket (CAP_NET_RAW), its XDP program and
#: XSKMAP (CAP_BPF), the program attached to the interface (CAP_NET_ADMIN),
#: and its UMEM pinned past RLIMIT_MEMLOCK (CAP_IPC_LOCK)
XDP_MOVER_CAPABILITIES = MOVER_CAPABILITIES + [
    capabilities.CAP_NET_ADMIN, capabilities.CAP_BPF,
    capabilities.CAP_IPC_LOCK]

_libc = ctypes.CDLL(None, use_errno=True)
_libc.setns.argtypes = [ctypes.c_int, ctypes.c_int]
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong,
                        ctypes.c_ulong, ctypes.c_ulong]


class Refused(fpga.PathRefused):
    """A namespace, argument or file the privileged helper refuses."""


def _options():
    """The daemon's own [agent] state_dir and [dataplane] options (from
    the agent's configuration file it was started with), registered when
    the daemon starts a mover: at import they would make state_dir
    required in every process that imports this module.
    """
    CONF.register_opts([opt for opt in agent_conf.AGENT_OPTS
                        if opt.name == 'state_dir'],
                       group=agent_conf.agent_group.name)
    datapath.register_opts(CONF)
    if not CONF.agent.state_dir:
        raise Refused('no [agent] state_dir in the privileged helper\'s '
                      'configuration: it starts no data mover')


def _binary():
    """The mover binary, as the daemon resolves it."""
    found = shutil.which(CONF.dataplane.mover_binary or datamover.binary())
    if not found:
        raise FileNotFoundError('no nova-fpga-datamover binary (%s)' % (
            CONF.dataplane.mover_binary or datamover.binary()))
    return os.path.realpath(found)


def _namespace(name):
    """An O_RDONLY descriptor of /run/netns/<name>."""
    if not isinstance(name, str) or not _NETNS_NAME.fullmatch(name):
        raise Refused('network namespace %r: a plain name (letters, digits, '
                      '_ . -) only' % (name,))
    path = os.path.join(NETNS_DIR, name)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        raise Refused('no network namespace %s (%s)' % (name, path)) \
            from None
    if os.fstat(fd).st_dev != os.stat('/proc/self/ns/net').st_dev:
        os.close(fd)
        raise Refused('%s is no network namespace' % path)
    return fd


def _same(given, derived, what):
    if os.path.realpath(given) != os.path.realpath(derived):
        raise Refused('%s %s is not the %s (%s) of the privileged helper\'s '
                      'configuration: it refuses it' % (what, given, what,
                                                        derived))


def _region(value):
    """A --region value whose files are emulated engines' (regular files
    or sockets, real paths in ENGINE_FILES): no device node, no file the
    mover, root, would write elsewhere.
    """
    fields = value.split(',')
    pairs = dict(field.split('=', 1) for field in fields[1:]
                 if '=' in field)
    if not fields[0] or len(pairs) != len(fields) - 1 or \
            set(pairs) - set(_REGION_KEYS):
        raise Refused('--region %s: name,regs=,buf=,irq=,phys=,size= only'
                      % value)
    for key in _REGION_FILES:
        if not pairs.get(key):
            continue
        real = os.path.realpath(pairs[key])
        with fpga._naming(pairs[key]):
            mode = os.stat(real).st_mode
        if not (real.startswith(ENGINE_FILES) and
                os.path.dirname(real) == os.path.dirname(ENGINE_FILES) and
                (stat.S_ISREG(mode) or stat.S_ISSOCK(mode))):
            raise Refused('--region %s: %s is no emulated engine\'s file '
                          '(%s*): the privileged helper refuses it'
                          % (fields[0], pairs[key], ENGINE_FILES))


def _arguments(args):
    """The mover's arguments, checked."""
    if not isinstance(args, (list, tuple)) or len(args) % 2 or not all(
            isinstance(arg, str) and '\0' not in arg for arg in args):
        raise Refused('the mover\'s arguments: option and value pairs')
    derived = {'--counters': datapath.counters_path(CONF),
               '--control': datapath.control_path(CONF),
               '--state': datapath.state_path(CONF)}
    seen = set()
    for flag, value in zip(args[::2], args[1::2]):
        if flag in _ONCE_ARGS:
            if flag in seen:
                raise Refused('mover option %s given twice' % flag)
            seen.add(flag)
        if flag in _FILE_ARGS:
            _same(value, derived[flag], flag)
        elif flag == '--interface':
            if not _INTERFACE.fullmatch(value) or value in ('.', '..'):
                raise Refused('--interface %r: not an interface name'
                              % value)
        elif flag == '--io':
            if value not in _IO:
                raise Refused('--io %r: one of %s' % (value, ', '.join(_IO)))
        elif flag == '--rx-ring':
            if value not in datapath.RX_RINGS:
                raise Refused('--rx-ring %r: one of %s'
                              % (value, ', '.join(datapath.RX_RINGS)))
        elif flag == '--stall-us':
            if not value.isdigit():
                raise Refused('--stall-us %r: microseconds' % value)
        elif flag == '--region':
            _region(value)
        else:
            raise Refused('mover option %s: the privileged helper passes '
                          'only %s' % (flag, ', '.join(
                              _ONCE_ARGS + ('--region',))))
    missing = set(_REQUIRED_ARGS) - seen
    if missing:
        raise Refused('the mover needs %s' % ', '.join(sorted(missing)))
    return list(args)


def _check(result):
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def _in_namespace(fd, caps):
    """The mover's child, before the exec: into the namespace, with the
    packet socket's capabilities alone.
    """
    def enter():
        _check(_libc.setns(fd, CLONE_NEWNET))
        capabilities.drop_all_caps_except(caps, caps, caps)
        if os.getuid() != 0:
            # a daemon of another user ([..._privileged] user): the
            # capability survives the exec as an ambient one
            for cap in caps:
                _check(_libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE,
                                   cap, 0, 0))
        # uid 0: the exec would give every capability of the bounding set
        # back; with no_new_privs it keeps what it has
        _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
    return enter


@privsep.datapath_pctxt.entrypoint
def start_mover(netns, args, log_path):
    """Start nova-fpga-datamover with ``args`` in network namespace
    ``netns``, its output appended to ``log_path``; its pid.
    """
    _options()
    args = _arguments(args)
    caps = (XDP_MOVER_CAPABILITIES
            if dict(zip(args[::2], args[1::2])).get('--io') == 'xdp'
            else MOVER_CAPABILITIES)
    log_path = fpga._confined(log_path, 'state_dir')
    binary = _binary()
    fd = _namespace(netns)
    try:
        log = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT
                      | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            proc = subprocess.Popen(
                [binary] + args, stdin=subprocess.DEVNULL, stdout=log,
                stderr=log, close_fds=True, start_new_session=True,
                # the daemon's umask is 0: the mover's files as the
                # agent's would be
                umask=0o022, preexec_fn=_in_namespace(fd, caps))
        except subprocess.SubprocessError as exc:
            raise OSError('nova-fpga-datamover not started in network '
                          'namespace %s: %s' % (netns, exc)) from None
        finally:
            os.close(log)
    finally:
        os.close(fd)
    threading.Thread(target=proc.wait, name='mover-%d' % proc.pid,
                     daemon=True).start()
    return proc.pid
