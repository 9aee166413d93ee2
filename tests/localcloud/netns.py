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

"""Tenant endpoints in network namespaces (a traffic source, a sink),
each a namespace whose interface is a port of the emulated switch
(Tor.add_port(port, netns=...) makes both, the interface's IPv6 off).

A socket belongs to the network namespace of the thread that opens it, so
each endpoint opens its AF_PACKET socket in a thread of its own that first
enters the namespace (setns(2); Python 3.11 has no os.setns): the test
process stays in the root namespace.
"""
import ctypes
import os
import socket
import subprocess
import threading
import time

CLONE_NEWNET = 0x40000000
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SO_RCVBUFFORCE = 33
_libc = ctypes.CDLL('libc.so.6', use_errno=True)


def delete(name):
    subprocess.run(['ip', 'netns', 'del', name], check=False)


def _enter(name):
    fd = os.open('/run/netns/%s' % name, os.O_RDONLY)
    try:
        if _libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), 'setns %s' % name)
    finally:
        os.close(fd)


def _packet_socket(interface):
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                         socket.htons(ETH_P_ALL))
    sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
    sock.bind((interface, 0))
    return sock


def send(name, interface, frames):
    """Send frames (bytes, as they go on the wire) out of interface in
    namespace name.
    """
    failed = []

    def run():
        try:
            _enter(name)
            with _packet_socket(interface) as sock:
                for frame in frames:
                    sock.send(frame)
        except OSError as exc:
            failed.append(exc)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]


class Sink:
    """Every frame arriving on interface in namespace name, from the moment
    the sink is made until stop().
    """

    def __init__(self, name, interface):
        self.frames = []
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._error = []
        self._thread = threading.Thread(target=self._run,
                                        args=(name, interface), daemon=True)
        self._thread.start()
        self._ready.wait(10)
        if self._error:
            raise self._error[0]

    def _run(self, name, interface):
        try:
            _enter(name)
            sock = _packet_socket(interface)
        except OSError as exc:
            self._error.append(exc)
            self._ready.set()
            return
        sock.settimeout(0.2)
        self._ready.set()
        with sock:
            while not self._stop.is_set():
                try:
                    data, address = sock.recvfrom(65536)
                except socket.timeout:
                    continue
                if address[2] != PACKET_OUTGOING:
                    self.frames.append(data)

    def wait_for(self, count, accept=lambda frame: True, timeout=60):
        """The accepted frames once count of them arrived (or time ran
        out), waiting a second more for any surplus.
        """
        deadline = time.monotonic() + timeout
        while (len([f for f in self.frames if accept(f)]) < count
               and time.monotonic() < deadline):
            time.sleep(0.1)
        time.sleep(1)
        return [f for f in self.frames if accept(f)]

    def stop(self):
        self._stop.set()
        self._thread.join()
