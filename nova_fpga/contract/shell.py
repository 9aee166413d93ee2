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

"""The shell manifest: what the static shell a board boots offers.

Shared by the board agent (what its fabric has), Glance (which footprints a
declared shell's regions have) and nova (the traits of region providers).
A shell build ships it beside the full bitstream: the device, the shell's
ID and version, and per reconfigurable region its frame footprint (the
FAR/FDRI blocks any partial for it writes), its decoupler and module
register windows, its AXI DMA channel (and, for the board backends, the
base of that AXI DMA's register block) and the VLAN its traffic uses.
"""
import dataclasses
import json
import pathlib
import re

from nova_fpga.bitstream import devices
from nova_fpga.bitstream import errors as bitstream_errors
from nova_fpga.bitstream import footprint as fp
from nova_fpga.contract import traits

REFERENCE = pathlib.Path(__file__).parent / 'shells' / 'reference_xc7z020.json'
REGION_NAME = re.compile(r'^[a-z][a-z0-9_-]{0,31}$')
#: How the shell's AXI DMAs (Xilinx PG021) run, the manifest's ``dma_mode``:
#: ``sg`` scatter-gather (descriptor rings, many frames in flight, one
#: interrupt line a region: what the C data mover drives, issue 31) or
#: ``simple`` (register direct mode, one transfer at a time): the mode of a
#: manifest that does not say.
DMA_MODES = ('simple', 'sg')
DEFAULT_DMA_MODE = 'simple'


class ManifestError(ValueError):
    """The manifest is unreadable or inconsistent."""


@dataclasses.dataclass(frozen=True)
class Region:
    name: str
    footprint: fp.Footprint
    decoupler_base: int
    module_base: int
    window_size: int
    dma_channel: int
    vlan: int
    #: the region's AXI DMA register block (``window_size`` bytes); None in
    #: a manifest without it, which only the emulator can run
    dma_base: int = None

    def to_dict(self):
        data = {'name': self.name, 'footprint': self.footprint.to_dict(),
                'decoupler': '0x%08X' % self.decoupler_base,
                'module': '0x%08X' % self.module_base,
                'window': '0x%X' % self.window_size,
                'dma_channel': self.dma_channel, 'vlan': self.vlan}
        if self.dma_base is not None:
            data['dma'] = '0x%08X' % self.dma_base
        return data


@dataclasses.dataclass(frozen=True)
class Manifest:
    shell_id: str
    version: str
    part: str
    device: devices.Device
    regions: tuple
    #: one of DMA_MODES
    dma_mode: str = DEFAULT_DMA_MODE

    def region(self, name):
        for region in self.regions:
            if region.name == name:
                return region
        raise KeyError(name)

    def region_for_vlan(self, vlan):
        for region in self.regions:
            if region.vlan == vlan:
                return region
        return None

    def region_traits(self, region):
        return traits.region_traits(self.device.name, self.shell_id,
                                    region.footprint.signature)


def _int(value, what):
    try:
        return int(value, 0) if isinstance(value, str) else int(value)
    except (TypeError, ValueError):
        raise ManifestError('%s: %r is not a number' % (what, value))


def parse(data):
    """A Manifest from its JSON form (a dict)."""
    try:
        shell_id = traits.normalize_shell_id(data['shell_id'])
        device = devices.by_part(data['part'])
        devices.supported(device)
        regions = []
        for raw in data['regions']:
            name = raw['name']
            if not isinstance(name, str) or not REGION_NAME.match(name):
                raise ManifestError('region name %r is not [a-z][a-z0-9_-]*'
                                    % (name,))
            region = Region(
                name=name,
                footprint=fp.Footprint.from_dict(raw['footprint']),
                decoupler_base=_int(raw['decoupler'], name + ' decoupler'),
                module_base=_int(raw['module'], name + ' module'),
                window_size=_int(raw['window'], name + ' window'),
                dma_channel=_int(raw['dma_channel'], name + ' dma_channel'),
                vlan=_int(raw['vlan'], name + ' vlan'),
                dma_base=(_int(raw['dma'], name + ' dma') if 'dma' in raw
                          else None))
            if not 1 <= region.vlan <= 4094:
                raise ManifestError('%s: VLAN %d is not 1-4094'
                                    % (name, region.vlan))
            regions.append(region)
    except KeyError as exc:
        raise ManifestError('missing field %s' % exc)
    except (TypeError, AttributeError) as exc:
        raise ManifestError('malformed manifest: %s' % exc)
    except bitstream_errors.BitstreamError as exc:
        raise ManifestError(str(exc))
    if not regions:
        raise ManifestError('a shell has at least one region')
    dma_mode = data.get('dma_mode', DEFAULT_DMA_MODE)
    if dma_mode not in DMA_MODES:
        raise ManifestError('dma_mode %r is not one of %s'
                            % (dma_mode, ', '.join(DMA_MODES)))
    for what, key in (('name', lambda r: r.name), ('VLAN', lambda r: r.vlan),
                      ('DMA channel', lambda r: r.dma_channel),
                      ('footprint', lambda r: r.footprint.signature)):
        values = [key(r) for r in regions]
        if len(set(values)) != len(values):
            raise ManifestError('two regions share a %s' % what)
    fars = [{b.far for b in r.footprint.blocks} for r in regions]
    for i, a in enumerate(fars):
        for j in range(i + 1, len(fars)):
            if a & fars[j]:
                raise ManifestError('regions %s and %s write the same frames'
                                    % (regions[i].name, regions[j].name))
    windows = sorted((base, base + r.window_size, r.name) for r in regions
                     for base in (r.decoupler_base, r.module_base,
                                  r.dma_base) if base is not None)
    for (a0, a1, an), (b0, b1, bn) in zip(windows, windows[1:]):
        if b0 < a1:
            raise ManifestError('register windows of %s and %s overlap'
                                % (an, bn))
    return Manifest(shell_id=shell_id, version=str(data.get('version', '')),
                    part=data['part'], device=device, regions=tuple(regions),
                    dma_mode=dma_mode)


def load(path):
    try:
        with open(path, encoding='utf-8') as f:
            data = json.load(f)
    except (OSError, ValueError) as exc:
        raise ManifestError('cannot read shell manifest %s: %s' % (path, exc))
    try:
        return parse(data)
    except ManifestError as exc:
        raise ManifestError('shell manifest %s: %s' % (path, exc))
