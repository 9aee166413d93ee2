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

"""The shell's device-tree overlay, written from its manifest.

The manifest is the one source of truth of a shell: this overlay (what the
board boots with, beside the full bitstream) gives each region an
``fpga-region`` under the base region, programmed by the Zynq's
configuration port (``fpga-mgr = <&devcfg>``) through its PR decoupler
bridge, and the UIO nodes and u-dma-buf the agent drives the region by.
Node names come from nova_fpga.contract.devicetree, the names the board
backends look for.  ``&devcfg`` and ``&clkc`` are the Zynq-7000 base
tree's labels, resolved when the overlay is applied (``dtc -@``).
"""
from nova_fpga.contract import devicetree as dt

#: the decoupler's AXI clock: FCLK_CLK0 of the Zynq-7000 clock controller
DECOUPLER_CLOCK = '<&clkc 15>'
#: the base tree's AXI bus, where the UIO windows go (the decoupler's
#: window is both a bridge in the base region and a UIO node, so the two
#: cannot share a parent)
BUS = '&amba'
#: the cells of the base region and the bus: the Zynq-7000 base tree's
CELLS = ['#address-cells = <1>;', '#size-cells = <1>;']


def label(node_name):
    """A DTS label (no dashes) for a node name."""
    return node_name.replace('-', '_')


def _node(name, lines, children=(), depth=1):
    pad = '\t' * depth
    out = ['%s%s {' % (pad, name)]
    out += ['%s\t%s' % (pad, line) for line in lines]
    for child in children:
        out += [''] + child
    out.append('%s};' % pad)
    return out


def _window(name, base, size, compatible, extra=()):
    return _node('%s@%x' % (name, base),
                 ['compatible = "%s";' % compatible,
                  'reg = <0x%x 0x%x>;' % (base, size)] + list(extra))


def _region(r):
    return _node(dt.region_node(r.name), [
        'compatible = "%s";' % dt.COMPATIBLE_REGION,
        'fpga-mgr = <&devcfg>;',
        'fpga-bridges = <&%s>;' % label(dt.decoupler_bridge(r.name)),
        'partial-fpga-config;'] + CELLS + ['ranges;'])


def _bridge(r):
    name = dt.decoupler_bridge(r.name)
    node = _window(name, r.decoupler_base, r.window_size,
                   dt.COMPATIBLE_DECOUPLER,
                   ['clocks = %s;' % DECOUPLER_CLOCK, 'clock-names = "aclk";'])
    node[0] = node[0].replace(name, '%s: %s' % (label(name), name), 1)
    return node


def _uio(r):
    nodes = [_window(dt.uio_module(r.name), r.module_base, r.window_size,
                     dt.COMPATIBLE_UIO),
             _window(dt.uio_decoupler(r.name), r.decoupler_base,
                     r.window_size, dt.COMPATIBLE_UIO)]
    if r.dma_base is not None:
        nodes.append(_window(dt.uio_dma(r.name), r.dma_base, r.window_size,
                             dt.COMPATIBLE_UIO))
    return nodes


def _dma_buffer(r):
    return _node(dt.dma_buffer(r.name), [
        'compatible = "%s";' % dt.COMPATIBLE_UDMABUF,
        'device-name = "%s";' % dt.dma_buffer(r.name),
        'size = <0x%x>;' % dt.DMA_BUFFER_BYTES])


def _fragment(target, lines, children):
    out = ['%s {' % target] + ['\t%s' % line for line in lines]
    for child in children:
        out += ([''] if len(out) > 1 else []) + child
    return out + ['};', '']


def render(manifest):
    """The overlay source (.dtso) of the manifest's shell."""
    regions = manifest.regions
    out = ['/*',
           ' * Device-tree overlay of shell %s' % manifest.shell_id,
           ' * version %s (%s), written by nova-fpga-dt from the shell'
           % (manifest.version or '-', manifest.part),
           ' * manifest; do not edit.',
           ' */',
           '/dts-v1/;', '/plugin/;', '']
    out += _fragment('&{%s}' % dt.BASE_REGION_PATH, CELLS,
                     [_region(r) for r in regions]
                     + [_bridge(r) for r in regions])
    out += _fragment(BUS, CELLS, [n for r in regions for n in _uio(r)])
    buffers = [_dma_buffer(r) for r in regions if r.dma_base is not None]
    if buffers:
        out += _fragment('&{/}', [], buffers)
    return '\n'.join(out[:-1]) + '\n'
