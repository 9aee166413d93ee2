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

"""An emulated board's data interface: a veth pair whose board end lives in
the board's own network namespace (where its agent's data plane opens it)
and whose peer end stays on the host, where the demo and the tests play
the network (replay captures into it, capture what comes back).

Needs root (ip netns / ip link), as a real board's wiring needs a cable.
"""
import subprocess

MTU = 9000


class DataLinkError(RuntimeError):
    pass


def _ip(*args, check=True):
    result = subprocess.run(['ip', *args], capture_output=True, text=True)
    if check and result.returncode:
        raise DataLinkError('ip %s: %s' % (' '.join(args),
                                           result.stderr.strip()))
    return result


class DataLink:
    """The veth pair of board number index of the cloud tagged tag (a few
    hex digits, so two clouds on one machine never share a link; the names
    fit the kernel's 15 characters).
    """

    def __init__(self, index, tag):
        self.netns = 'nfpga-%s-board%d' % (tag, index)
        self.board_if = 'nf%s%db' % (tag, index)
        self.peer_if = 'nf%s%dp' % (tag, index)

    def exists(self):
        return (_ip('netns', 'exec', self.netns, 'ip', 'link', 'show',
                    self.board_if, check=False).returncode == 0
                and _ip('link', 'show', self.peer_if,
                        check=False).returncode == 0)

    def create(self):
        """Make the pair (replacing half-made leftovers); idempotent."""
        if self.exists():
            return self
        self.delete()
        _ip('netns', 'add', self.netns)
        _ip('link', 'add', self.board_if, 'type', 'veth', 'peer', 'name',
            self.peer_if)
        _ip('link', 'set', self.board_if, 'netns', self.netns)
        _ip('netns', 'exec', self.netns, 'ip', 'link', 'set', self.board_if,
            'mtu', str(MTU), 'up')
        _ip('link', 'set', self.peer_if, 'mtu', str(MTU), 'up')
        return self

    def delete(self):
        _ip('link', 'del', self.peer_if, check=False)
        _ip('netns', 'del', self.netns, check=False)
