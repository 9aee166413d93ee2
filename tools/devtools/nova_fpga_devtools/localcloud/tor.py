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

"""The demo cloud's emulated top-of-rack switch: an 802.1Q switch in a
network namespace of its own.

This machine kind's kernel has neither 802.1Q devices
(``CONFIG_VLAN_8021Q`` unset: ``ip link add ... type vlan`` fails) nor
VLAN filtering on Linux bridges (``CONFIG_BRIDGE_VLAN_FILTERING`` unset:
``vlan_filtering 1`` is refused), so the switch's forwarding plane is a
small process (:func:`serve`, ``python -m
nova_fpga_devtools.localcloud.tor``) on AF_PACKET sockets: per port a set
of VLANs, each tagged (a trunk) or untagged (the port's native VLAN, an
access port); MAC learning per VLAN; flooding to the VLAN's other ports;
tags pushed and popped at the edge.  The kernel hands a received frame's
tag as packet metadata (PACKET_AUXDATA), whatever its configuration.

Each port is a veth pair: the switch end (``p-<port>``) in the switch's
namespace, the far end in the root namespace or moved into another
namespace (a tenant's traffic source).  A new port carries no VLAN:
whoever binds it calls :meth:`Tor.allow_vlan` / :meth:`Tor.remove_vlan`
(the board binding on a board's port, per segment).

The VM host: nova's libvirt driver plugs a macvtap port of a VLAN segment
onto the host's VLAN device ``<phys>.<vid>`` (neutron's
macvtap_common.get_vlan_device_name), creating it unless it exists.  With
no 802.1Q in the kernel, :meth:`Tor.vm_host_link` cables the host as an
operator cables a trunk, one VLAN of the physical network per link: an
access port of VLAN vid whose far end is named as the host's VLAN device
would be, beside the trunk itself (``<phys>``, all VLANs tagged: the
macvtap agent's physical_interface_mappings).

The switch's configuration is ports.json in its directory (rewritten
atomically with a generation number, under an exclusive lock on
ports.lock: the cloud's set-up, the tests and the switch driver in
neutron-server's processes (localcloud.tor_switch) change it from
separate processes); the switch applies it within half a second and
writes the generation it applied, with per-port counters, to
status.json.  That directory is the switch's control interface, as a
real switch's management API is.  Needs root (ip netns, ip link,
AF_PACKET).
"""
import fcntl
import json
import os
import pathlib
import select
import socket
import struct
import subprocess
import sys
import time

from oslo_log import log as logging

LOG = logging.getLogger(__name__)

MTU = 9000
ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
PACKET_IGNORE_OUTGOING = 23
PACKET_OUTGOING = 4
TP_STATUS_VLAN_VALID = 0x10
TPID = 0x8100
SO_RCVBUFFORCE = 33
#: each port's receive buffer
RCVBUF = 8 << 20


class TorError(RuntimeError):
    pass


def _run(*argv, netns=None, check=True):
    if netns:
        argv = ('ip', 'netns', 'exec', netns) + argv
    result = subprocess.run(argv, capture_output=True, text=True)
    if check and result.returncode:
        raise TorError('%s: %s' % (' '.join(argv), result.stderr.strip()))
    return result


def _write_json(path, data):
    partial = path.with_suffix('.tmp')
    partial.write_text(json.dumps(data, indent=1, sort_keys=True))
    os.replace(partial, path)


class Tor:
    """The switch of the cloud tagged tag (a few hex digits: two clouds on
    one machine never share a switch; interface names fit 15 characters),
    configured in directory.
    """

    def __init__(self, tag, directory):
        self.tag = tag
        self.netns = 'nfpga-%s-tor' % tag
        self.dir = pathlib.Path(directory)
        self.config_file = self.dir / 'ports.json'
        self.lock_file = self.dir / 'ports.lock'
        self.status_file = self.dir / 'status.json'

    # -- names -------------------------------------------------------------

    def outer_if(self, port):
        """The far end of port's cable (root namespace unless moved)."""
        return ('nt%s%s' % (self.tag, port))[:15]

    @staticmethod
    def switch_if(port):
        return ('p-%s' % port)[:15]

    # -- configuration -----------------------------------------------------

    def config(self):
        if not self.config_file.exists():
            return {'generation': 0, 'ports': {}, 'outer': {}}
        return json.loads(self.config_file.read_text())

    def _update(self, change, wait=True):
        """Read, change and rewrite the configuration under the lock (its
        writers are several processes), then wait until the switch runs it.
        """
        self.dir.mkdir(parents=True, exist_ok=True)
        with open(self.lock_file, 'a') as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            config = self.config()
            change(config)
            config['generation'] += 1
            _write_json(self.config_file, config)
        if wait:
            self.wait_applied(config['generation'])

    def status(self):
        try:
            return json.loads(self.status_file.read_text())
        except (OSError, ValueError):
            return {}

    def wait_applied(self, generation, timeout=10):
        """Until the switch runs configuration generation (or newer)."""
        deadline = time.monotonic() + timeout
        while self.status().get('generation', -1) < generation:
            if time.monotonic() > deadline:
                raise TorError('the switch did not apply its configuration '
                               'within %ss (is it running? %s)' % (
                                   timeout, self.dir / 'tor.log'))
            time.sleep(0.1)

    # -- the switch --------------------------------------------------------

    def exists(self):
        return _run('ip', 'netns', 'pids', self.netns,
                    check=False).returncode == 0

    def create(self):
        """The namespace and an empty configuration (idempotent); the
        switch process is started by the caller (:meth:`command`).
        """
        self.dir.mkdir(parents=True, exist_ok=True)
        if not self.exists():
            # a new switch: no port of an older one survives
            self.delete()
            _run('ip', 'netns', 'add', self.netns)
            _run('ip', 'link', 'set', 'lo', 'up', netns=self.netns)
            # a switch's ports have no IP stack: without this the kernel
            # sends IPv6 neighbour discovery out of each new port, frames
            # no switch would emit
            for scope in ('all', 'default'):
                _run('sysctl', '-q', '-w',
                     'net.ipv6.conf.%s.disable_ipv6=1' % scope,
                     netns=self.netns)
            LOG.info('ToR switch: namespace %s', self.netns)
            _write_json(self.config_file,
                        {'generation': 0, 'ports': {}, 'outer': {}})
        return self

    def command(self):
        """The switch process's argv (run it in the background)."""
        return ['ip', 'netns', 'exec', self.netns, sys.executable, '-m',
                __name__, str(self.dir)]

    def delete(self):
        """Every cable (the far ends in the root namespace go with their
        peers; far ends moved into other namespaces too, the caller
        removes those namespaces) and the namespace.
        """
        for outer in self.config()['outer'].values():
            _run('ip', 'link', 'del', outer, check=False)
        _run('ip', 'netns', 'del', self.netns, check=False)
        for path in (self.config_file, self.status_file):
            if path.exists():
                path.unlink()

    # -- ports -------------------------------------------------------------

    def ports(self):
        """{port: {vid: 'tagged' or 'untagged'}}."""
        return {port: {int(vid): mode for vid, mode in vlans.items()}
                for port, vlans in self.config()['ports'].items()}

    def add_port(self, port, netns=None, outer=None):
        """A port (idempotent): returns its far end's interface name
        (outer, else outer_if(port)), in netns (created if missing) or the
        root namespace.
        """
        outer = outer or self.outer_if(port)
        if port in self.config()['ports']:
            return self.config()['outer'][port]
        _run('ip', 'link', 'add', outer, 'type', 'veth', 'peer', 'name',
             self.switch_if(port), 'netns', self.netns)
        _run('ip', 'link', 'set', self.switch_if(port), 'mtu', str(MTU), 'up',
             netns=self.netns)
        if netns:
            if not _run('ip', 'netns', 'pids', netns,
                        check=False).returncode == 0:
                _run('ip', 'netns', 'add', netns)
            _run('ip', 'link', 'set', outer, 'netns', netns)
        # the far end's own IPv6 stays off: a cable's end sends router
        # solicitations for ever (with backoff) otherwise, frames of no
        # tenant's on the port's VLANs (a board's region would count them)
        quiet = _run('sysctl', '-q', '-w',
                     'net/ipv6/conf/%s/disable_ipv6=1' % outer, netns=netns,
                     check=False)
        if quiet.returncode:
            LOG.warning('port %s: IPv6 left on at %s: %s', port, outer,
                        quiet.stderr.strip())
        _run('ip', 'link', 'set', outer, 'mtu', str(MTU), 'up', netns=netns)

        def change(config):
            config['ports'][port] = {}
            config['outer'][port] = outer
        self._update(change)
        return outer

    def remove_port(self, port):
        _run('ip', 'link', 'del', self.switch_if(port), netns=self.netns,
             check=False)

        def change(config):
            config['ports'].pop(port, None)
            config['outer'].pop(port, None)
        self._update(change)

    def allow_vlan(self, port, vlan, untagged=False):
        """Let VLAN vlan through port: tagged, or untagged as the port's
        native VLAN (an access port; one per port).
        """
        vlan = int(vlan)

        def change(config):
            if port not in config['ports']:
                raise TorError('the switch has no port %s' % port)
            vlans = config['ports'][port]
            if untagged:
                for vid, mode in list(vlans.items()):
                    if mode == 'untagged':
                        del vlans[vid]
            vlans[str(vlan)] = 'untagged' if untagged else 'tagged'
        self._update(change)

    def remove_vlan(self, port, vlan):
        def change(config):
            config['ports'].get(port, {}).pop(str(int(vlan)), None)
        self._update(change)

    def counters(self, port):
        """{'rx': frames in, 'tx': frames out} of port, as the switch
        counted them (of the VLANs it let through).
        """
        return self.status().get('counters', {}).get(
            port, {'rx': 0, 'tx': 0})

    def vm_host_link(self, physical_network_vlans, port='vm', name=None):
        """The VM host's cabling: the trunk port (every VLAN in
        physical_network_vlans tagged) whose far end, in the root
        namespace, is the host's physical interface (returned), and an
        access link per VLAN named as the host's VLAN device (see the
        module's doc).  name(phys, vid): that device's name.
        """
        phys = self.add_port(port)
        for vid in physical_network_vlans:
            self.allow_vlan(port, vid)
        for vid in physical_network_vlans:
            access = '%s.%d' % (port, vid)
            self.add_port(access, outer=name(phys, vid) if name else
                          '%s.%d' % (phys, vid))
            self.allow_vlan(access, vid, untagged=True)
        return phys


# -- the switch process ------------------------------------------------------


class _Switch:
    def __init__(self, directory):
        self.tor = Tor('', directory)
        self.sockets = {}       # port -> socket
        self.by_fd = {}         # fd -> port
        self.vlans = {}         # port -> {vid: mode}
        self.fdb = {}           # (vid, mac) -> port
        self.counters = {}
        self.generation = -1
        self.mtime = None
        self.last_status = 0

    def _open(self, port):
        sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                             socket.htons(ETH_P_ALL))
        sock.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
        # a replayed capture arrives as a burst faster than the switch
        # forwards: room for it rather than drops
        sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RCVBUF)
        try:
            sock.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, 1)
        except OSError:
            pass
        sock.bind((Tor.switch_if(port), 0))
        sock.setblocking(False)
        return sock

    def reload(self):
        try:
            mtime = self.tor.config_file.stat().st_mtime_ns
        except FileNotFoundError:
            return
        if mtime == self.mtime:
            return
        self.mtime = mtime
        config = self.tor.config()
        for port in set(self.sockets) - set(config['ports']):
            sock = self.sockets.pop(port)
            self.by_fd.pop(sock.fileno(), None)
            sock.close()
        for port in config['ports']:
            if port not in self.sockets:
                try:
                    sock = self._open(port)
                except OSError as exc:
                    LOG.warning('port %s: %s', port, exc)
                    continue
                self.sockets[port] = sock
                self.by_fd[sock.fileno()] = port
                self.counters.setdefault(port, {'rx': 0, 'tx': 0})
        vlans = {port: {int(vid): mode for vid, mode in port_vlans.items()}
                 for port, port_vlans in config['ports'].items()}
        for port in sorted(set(vlans) | set(self.vlans)):
            if vlans.get(port) != self.vlans.get(port):
                LOG.info('generation %d: port %s carries %s',
                         config['generation'], port, ', '.join(
                             '%d %s' % item for item in sorted(
                                 vlans.get(port, {}).items())) or 'no VLAN')
        self.vlans = vlans
        self.fdb = {key: port for key, port in self.fdb.items()
                    if key[0] in self.vlans.get(port, {})}
        self.generation = config['generation']
        self.write_status()

    def write_status(self):
        _write_json(self.tor.status_file, {
            'generation': self.generation, 'pid': os.getpid(),
            'counters': self.counters})
        self.last_status = time.monotonic()

    def receive(self, port):
        sock = self.sockets[port]
        while True:
            try:
                data, ancillary, _flags, address = sock.recvmsg(
                    65536, socket.CMSG_SPACE(20))
            except BlockingIOError:
                return
            except OSError:
                return
            if address[2] == PACKET_OUTGOING or len(data) < 14:
                continue
            vid = None
            for level, kind, aux in ancillary:
                if level == SOL_PACKET and kind == PACKET_AUXDATA:
                    status, _len, _snap, _mac, _net, tci = struct.unpack(
                        'IIIHHH', aux[:18])
                    if status & TP_STATUS_VLAN_VALID:
                        vid = tci & 0xfff
            vlans = self.vlans.get(port, {})
            if vid is None and data[12:14] == b'\x81\x00':
                vid = struct.unpack('!H', data[14:16])[0] & 0xfff
                data = data[:12] + data[16:]
            if vid is None:
                vid = next((v for v, mode in vlans.items()
                            if mode == 'untagged'), None)
                if vid is None:
                    continue
            elif vlans.get(vid) != 'tagged':
                continue
            self.counters[port]['rx'] += 1
            self.forward(port, vid, data)

    def forward(self, port, vid, data):
        dst, src = data[0:6], data[6:12]
        if not src[0] & 1:
            self.fdb[(vid, src)] = port
        out = self.fdb.get((vid, dst)) if not dst[0] & 1 else None
        targets = [out] if out is not None else [
            other for other, vlans in self.vlans.items()
            if vid in vlans and other != port]
        for other in targets:
            if other == port or other not in self.sockets:
                continue
            mode = self.vlans[other].get(vid)
            if mode is None:
                continue
            frame = data if mode == 'untagged' else (
                data[:12] + struct.pack('!HH', TPID, vid) + data[12:])
            try:
                self.sockets[other].send(frame)
                self.counters[other]['tx'] += 1
            except OSError:
                pass

    def run(self):
        LOG.info('ToR switch serving %s', self.tor.dir)
        while True:
            self.reload()
            readable, _, _ = select.select(list(self.by_fd), [], [], 0.5)
            for fd in readable:
                port = self.by_fd.get(fd)
                if port is not None:
                    self.receive(port)
            if time.monotonic() - self.last_status > 1:
                self.write_status()


def serve(directory):
    """Run the switch configured in directory (in the switch's
    namespace), until killed.
    """
    _Switch(directory).run()


if __name__ == '__main__':
    import logging as _logging
    _logging.basicConfig(level=_logging.INFO,
                         format='%(asctime)s %(levelname)s %(message)s')
    serve(sys.argv[1])
