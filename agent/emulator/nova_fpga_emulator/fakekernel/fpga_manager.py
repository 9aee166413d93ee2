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

"""The FPGA manager of a Xilinx kernel (zynq-fpga) and its configfs
device-tree overlays.

``state`` walks the driver's strings (firmware request, write init,
write, write complete, operating) and stops at the error state where the
driver would: a firmware name not under the firmware path, a .bin that is
not byte-swapped (zynq-fpga finds no sync word: a .bit fails here) or not
a multiple of 4 bytes, a configuration the port refuses.  An overlay names
its .dtbo by ``path``; applying it turns the region's decoupler bridge
off, programs, turns it back on (off it stays when programming fails),
and whatever fails, the ``path`` write succeeds and ``status`` stays
``unapplied``, as on Xilinx kernels.
"""
import errno
import os
import struct

import mfusepy as fuse
from oslo_log import log as logging

from nova_fpga.contract import devicetree as dt
from nova_fpga_emulator import board as emulated
from nova_fpga_emulator.fakekernel import kernel as fk
from nova_fpga_emulator.fakekernel import tree as fs

LOG = logging.getLogger(__name__)

MANAGER = '/sys/class/fpga_manager/fpga0'
OVERLAYS = '/sys/kernel/config/device-tree/overlays'
#: the sync word as zynq-fpga looks for it in a byte-swapped .bin
SWAPPED_SYNC = bytes((0x66, 0x55, 0x99, 0xAA))
ERROR_STATES = ('firmware request error', 'write init error', 'write error',
                'write complete error')
HANG = 'hang'
PARTIAL_FLAG = 0x1


class LoadFailed(Exception):
    """The driver stopped in an error state."""


class FpgaManager(fk.Part):
    def __init__(self, flags=True, overlays=True):
        self.with_flags = flags
        self.with_overlays = overlays
        self.state = 'operating'      # the shell's full bitstream is loaded
        self.flags = 0

    def attach(self, kernel):
        self.kernel = kernel
        add = kernel.tree.add
        add(MANAGER + '/name',
            fs.Attribute(show=lambda: 'Xilinx Zynq FPGA Manager'))
        add(MANAGER + '/state', fs.Attribute(show=lambda: self.state))
        add(MANAGER + '/status', fs.Attribute(show=lambda: ''))
        if self.with_flags:
            add(MANAGER + '/flags', fs.Attribute(
                show=lambda: '%x' % self.flags, store=self._store_flags))
            add(MANAGER + '/firmware', fs.Attribute(store=self._firmware))
        if self.with_overlays:
            add(OVERLAYS, fs.Directory(make=self._make_overlay,
                                       remove=kernel.tree.remove))

    # -- flags and firmware ------------------------------------------------

    def _store_flags(self, value):
        try:
            self.flags = int(value, 16)
        except ValueError:
            raise fuse.FuseOSError(errno.EINVAL)

    def _firmware(self, name):
        with self.kernel.lock:
            try:
                self.load(name, self.flags & PARTIAL_FLAG)
            except LoadFailed as exc:
                LOG.warning('fpga_manager fpga0: %s', exc)
                raise fuse.FuseOSError(errno.EIO if self.state != 'firmware '
                                       'request error' else errno.ENOENT)

    def load(self, name, partial, region=None):
        """Program firmware ``name`` as the driver would; the decoupling
        around it is the caller's.
        """
        self.state = 'firmware request'
        path = os.path.join(self.kernel.firmware_dir, name)
        if os.path.realpath(path) != path or not os.path.isfile(path):
            self._fail('firmware request error', 'firmware %s not found '
                       'under %s' % (name, self.kernel.firmware_dir))
        with open(path, 'rb') as f:
            data = f.read()
        self.kernel.received(data)
        fault = self.kernel.fault('fail_state')
        self.state = 'write init'
        if fault == 'write init error' or len(data) % 4:
            self._fail('write init error', 'invalid bitstream size %d'
                       % len(data))
        if not any(data[i:i + 4] == SWAPPED_SYNC
                   for i in range(0, len(data), 4)):
            self._fail('write init error', 'invalid bitstream, could not '
                       'find a sync word; bitstream must be a byte swapped '
                       '.bin file')
        if not partial:
            self._fail('write init error', 'a full configuration would '
                       'reset the PL under the running shell')
        self.state = 'write'
        if fault == HANG:
            LOG.warning('fpga_manager fpga0: hangs in state write')
            return
        if fault in ('write error', 'firmware request error'):
            self._fail(fault, 'injected')
        try:
            self.kernel.board.pcap_write(data)
        except emulated.PcapError as exc:
            self._fail('write error', str(exc))
        self.state = 'write complete'
        if fault == 'write complete error':
            self._fail(fault, 'injected: DONE did not rise')
        self.state = 'operating'

    def _fail(self, state, why):
        self.state = state
        raise LoadFailed('%s: %s' % (state, why))

    # -- configfs overlays -------------------------------------------------

    def _make_overlay(self, path):
        item = {'path': '', 'status': 'unapplied'}
        add = self.kernel.tree.add
        add(path, fs.Directory())
        add(path + '/path', fs.Attribute(
            show=lambda: item['path'],
            store=lambda value: self._apply(item, value)))
        add(path + '/dtbo', fs.Attribute(show=lambda: ''))
        add(path + '/status', fs.Attribute(show=lambda: item['status']))

    def _apply(self, item, name):
        item['path'] = name
        with self.kernel.lock:
            try:
                if self.kernel.fault('overlay_fails'):
                    raise LoadFailed('injected: overlay refused')
                target, firmware, partial = _region_fragment(
                    os.path.join(self.kernel.firmware_dir, name))
                region = next((r.name for r in self.kernel.manifest.regions
                               if dt.region_path(r.name) == target), None)
                if region is None:
                    raise LoadFailed('no fpga-region at %s' % target)
                board = self.kernel.board
                board.set_decoupled(region, True)       # bridges off
                self.load(firmware, partial, region)
                if self.state != 'operating':
                    raise LoadFailed('state %s' % self.state)
                board.set_decoupled(region, False)      # bridges on
                board.reset(region)
                item['status'] = 'applied'
            except (LoadFailed, OSError, ValueError) as exc:
                # the configfs store logs and still returns success
                LOG.warning('overlay %s not applied: %s', name, exc)


def _region_fragment(path):
    """(target-path, firmware-name, partial) of an overlay's fragment."""
    with open(path, 'rb') as f:
        blob = f.read()
    magic, total, off_struct, off_strings = struct.unpack_from('>4I', blob)
    if magic != 0xD00DFEED:
        raise ValueError('%s is not a flattened device tree' % path)
    props = {}
    pos = off_struct
    while True:
        token, = struct.unpack_from('>I', blob, pos)
        pos += 4
        if token == 1:                          # FDT_BEGIN_NODE
            pos = (blob.index(b'\0', pos) + 4) & ~3
        elif token == 3:                        # FDT_PROP
            length, name_off = struct.unpack_from('>2I', blob, pos)
            pos += 8
            name = blob[off_strings + name_off:
                        blob.index(b'\0', off_strings + name_off)].decode()
            props[name] = blob[pos:pos + length].rstrip(b'\0').decode()
            pos = (pos + length + 3) & ~3
        elif token == 9:                        # FDT_END
            break
    if 'target-path' not in props or 'firmware-name' not in props:
        raise ValueError('overlay %s has no region fragment' % path)
    return (props['target-path'], props['firmware-name'],
            'partial-fpga-config' in props)
