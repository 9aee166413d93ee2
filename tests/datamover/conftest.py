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

"""The board's namespace and veth pair the data mover's tests run on."""
import secrets
import subprocess

import pytest


def ip(*args):
    subprocess.run(['ip', *args], check=True, capture_output=True)


@pytest.fixture
def link():
    """A board namespace holding the board end of a veth; the peer stays
    here, where the test plays the network.  Deleted by name afterwards.
    """
    tag = secrets.token_hex(3)
    netns, board_if, peer_if = 'nfdm-%s' % tag, 'nfdm%sb' % tag, \
        'nfdm%sp' % tag
    ip('netns', 'add', netns)
    try:
        ip('link', 'add', board_if, 'type', 'veth', 'peer', 'name', peer_if)
        ip('link', 'set', board_if, 'netns', netns)
        # no IPv6 chatter (router solicitations) counted as unrouted frames
        for prefix in ([], ['ip', 'netns', 'exec', netns]):
            iface = board_if if prefix else peer_if
            subprocess.run([*prefix, 'sysctl', '-qw',
                            'net.ipv6.conf.%s.disable_ipv6=1' % iface],
                           capture_output=True)
        ip('netns', 'exec', netns, 'ip', 'link', 'set', board_if, 'mtu',
           '9000', 'up')
        ip('link', 'set', peer_if, 'mtu', '9000', 'up')
        yield netns, board_if, peer_if
    finally:
        subprocess.run(['ip', 'link', 'del', peer_if], capture_output=True)
        subprocess.run(['ip', 'netns', 'del', netns], capture_output=True)
