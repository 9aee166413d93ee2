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

"""The agent's side of the C data mover (agent/datamover, issue 31).

The mover is a daemon of its own: the agent tells it routes and region
states over its control socket (a line a command, answered by ``ok`` or
``error ...``) and reads its counters from a shared-memory file while it
runs.  Nothing here is on the data path, and the mover keeps forwarding
when this side goes away: it holds its routes itself.
"""
import mmap
import os
import socket
import struct

#: agent/datamover/src/counters.h
MAGIC = 0x4D444E46
VERSION = 1
MAX_REGIONS = 16
NAME_LEN = 32
REGION_COUNTERS = ('frames_in', 'bytes_in', 'frames_out', 'bytes_out',
                   'drop_ring_full', 'drop_dma_error', 'drop_oversize',
                   'drop_decoupled', 'drop_no_egress', 'dma_resets', 'irqs',
                   'decoupled')
GLOBAL_COUNTERS = ('rx_frames', 'drop_no_route', 'rx_truncated',
                   'kernel_drops', 'tx_frames', 'poll_rounds', 'sleeps',
                   'heartbeat')
_HEADER = struct.Struct('<4I')
_GLOBAL = struct.Struct('<16Q')
_REGION = struct.Struct('<%ds16Q' % NAME_LEN)
FILE_SIZE = _HEADER.size + _GLOBAL.size + MAX_REGIONS * _REGION.size


class DataMoverError(Exception):
    pass


class Counters:
    """The mover's counters file, read without stopping it."""

    def __init__(self, path):
        self.path = path

    def read(self):
        """{'pid', 'global': {...}, 'regions': {name: {...}}}"""
        with open(self.path, 'rb') as f:
            data = mmap.mmap(f.fileno(), FILE_SIZE, mmap.MAP_SHARED,
                             mmap.PROT_READ)
        try:
            magic, version, nregions, pid = _HEADER.unpack_from(data, 0)
            if magic != MAGIC or version != VERSION:
                message = ('%s is not a data mover counters file (version %d)'
                           % (self.path, VERSION))
                raise DataMoverError(message)
            values = _GLOBAL.unpack_from(data, _HEADER.size)
            result = {'pid': pid,
                      'global': dict(zip(GLOBAL_COUNTERS, values)),
                      'regions': {}}
            for i in range(min(nregions, MAX_REGIONS)):
                fields = _REGION.unpack_from(
                    data, _HEADER.size + _GLOBAL.size + i * _REGION.size)
                name = fields[0].split(b'\0', 1)[0].decode()
                result['regions'][name] = dict(zip(REGION_COUNTERS,
                                                   fields[1:]))
            return result
        finally:
            data.close()


class Control:
    """A connection to the mover's control socket (one command at a time)."""

    def __init__(self, path, timeout=5.0):
        self.path = path
        self.timeout = timeout

    def command(self, line):
        """Send one command; the data lines of its answer (raises on error)."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(self.timeout)
            sock.connect(self.path)
            sock.sendall(line.encode() + b'\n')
            answer = b''
            while not (answer.endswith(b'\n') and
                       (answer.startswith((b'ok', b'error')) or
                        b'\nok\n' in answer or b'\nerror' in answer)):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                answer += chunk
        lines = answer.decode().splitlines()
        if not lines or not lines[-1].startswith(('ok', 'error')):
            message = 'no answer to %r' % line
            raise DataMoverError(message)
        if lines[-1].startswith('error'):
            message = '%s: %s' % (line, lines[-1][6:])
            raise DataMoverError(message)
        return lines[:-1]

    def ping(self):
        self.command('ping')

    def route_add(self, vlan, region, egress_vlan=None):
        self.command('route add %d %s %s' % (
            vlan, region, '-' if egress_vlan is None else egress_vlan))

    def route_del(self, vlan):
        self.command('route del %d' % vlan)

    def routes(self):
        """{ingress VLAN: (region, egress VLAN or None)}"""
        result = {}
        for line in self.command('routes'):
            _, vlan, region, egress = line.split()
            result[int(vlan)] = (region,
                                 None if egress == '-' else int(egress))
        return result

    def program(self, routes):
        """Make the mover's routes exactly ``routes`` ({vlan: (region,
        egress)}): removed ones first, so a VLAN never reaches two holders.
        """
        current = self.routes()
        for vlan in sorted(set(current) - set(routes)):
            self.route_del(vlan)
        for vlan, (region, egress) in sorted(routes.items()):
            if current.get(vlan) != (region, egress):
                self.route_add(vlan, region, egress)

    def decouple(self, region):
        self.command('decouple %s' % region)

    def couple(self, region):
        self.command('couple %s' % region)

    def reset_counters(self, region):
        self.command('reset-counters %s' % region)

    def stop(self):
        self.command('stop')


def binary(name='nova-fpga-datamover'):
    """The built binary.

    From $NOVA_FPGA_DATAMOVER_DIR, the source tree's build directory, or PATH.
    """
    here = os.path.dirname(os.path.abspath(__file__))
    for directory in (os.environ.get('NOVA_FPGA_DATAMOVER_DIR'),
                      os.path.join(here, '..', 'datamover', 'build')):
        if directory and os.path.exists(os.path.join(directory, name)):
            return os.path.join(directory, name)
    return name
