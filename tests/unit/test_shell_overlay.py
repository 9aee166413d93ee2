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

"""The shell's device-tree overlay from its manifest: dtc compiles it with
no warning, and the compiled overlay, read back node by node, has each
region's fpga-region, decoupler bridge, UIO windows and DMA buffer with the
manifest's addresses and sizes and the contract's names."""
import json
import subprocess

import fdt
import pytest

from nova_fpga.cmd import dt as dt_cmd
from nova_fpga.contract import devicetree as names
from nova_fpga.contract import shell
from nova_fpga import shell_overlay

REFERENCE = shell.load(shell.REFERENCE)


def compile_overlay(tmp_path, source):
    """dtc's blob of the overlay source; dtc must say nothing."""
    dtso, dtbo = tmp_path / 'shell.dtso', tmp_path / 'shell.dtbo'
    dtso.write_text(source)
    done = subprocess.run(['dtc', '-@', '-I', 'dts', '-O', 'dtb', '-o',
                           str(dtbo), str(dtso)], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0 and done.stderr == '', done.stderr
    return fdt.parse_dtb(dtbo.read_bytes())


def fragments(tree):
    """Target (a path, or &label for a base-tree label) -> __overlay__."""
    fixups = tree.get_node('/__fixups__')
    by_label = {value.split(':')[0]: '&' + prop.name for prop in fixups.props
                for value in prop.data if value.endswith(':target:0')}
    found = {}
    for fragment in tree.root.nodes:
        if not fragment.name.startswith('fragment@'):
            continue
        path = '/' + fragment.name
        target = (fragment.get_property('target-path').value
                  if fragment.exist_property('target-path')
                  else by_label[path])
        found[target] = fragment.get_subnode('__overlay__')
    return found


def words(node, name):
    return list(node.get_property(name).data)


def string(node, name):
    return node.get_property(name).value


def phandle_of(node):
    return words(node, 'phandle')[0]


def fixed_up(tree, label):
    """The 'node:property' places the overlay refers to label at."""
    return {value.rsplit(':', 1)[0] for value in
            tree.get_node('/__fixups__').get_property(label).data}


def window(node, base, size, compatible):
    assert string(node, 'compatible') == compatible
    assert words(node, 'reg') == [base, size]


def test_overlay_matches_the_manifest_node_by_node(tmp_path):
    assert_matches_manifest(
        compile_overlay(tmp_path, shell_overlay.render(REFERENCE)),
        REFERENCE)


def assert_matches_manifest(tree, manifest):
    """The compiled overlay has, for each region of the manifest, its
    fpga-region, decoupler bridge, UIO windows and DMA buffer at the
    manifest's addresses, and nothing else (also tests/yocto's check of
    the layer's overlay source).
    """
    frags = fragments(tree)
    assert set(frags) == {names.BASE_REGION_PATH, shell_overlay.BUS, '/'}

    base = frags[names.BASE_REGION_PATH]
    bus = frags[shell_overlay.BUS]
    buffers = frags['/']
    for overlay in (base, bus):
        assert words(overlay, '#address-cells') == [1]
        assert words(overlay, '#size-cells') == [1]
    expected_base, expected_bus, expected_buffers = set(), set(), set()
    for r in manifest.regions:
        region = base.get_subnode(names.region_node(r.name))
        assert string(region, 'compatible') == names.COMPATIBLE_REGION
        assert region.exist_property('partial-fpga-config')
        assert region.exist_property('ranges')
        assert words(region, '#address-cells') == [1]
        assert words(region, '#size-cells') == [1]
        bridge_name = '%s@%x' % (names.decoupler_bridge(r.name),
                                 r.decoupler_base)
        bridge = base.get_subnode(bridge_name)
        window(bridge, r.decoupler_base, r.window_size,
               names.COMPATIBLE_DECOUPLER)
        assert string(bridge, 'clock-names') == 'aclk'
        assert words(region, 'fpga-bridges') == [phandle_of(bridge)]
        at = '/%s/__overlay__/' % region.parent.parent.name
        assert at + region.name + ':fpga-mgr' in fixed_up(tree, 'devcfg')
        assert at + bridge.name + ':clocks' in fixed_up(tree, 'clkc')
        expected_base |= {region.name, bridge.name}

        uio = {names.uio_module(r.name): r.module_base,
               names.uio_decoupler(r.name): r.decoupler_base,
               names.uio_dma(r.name): r.dma_base}
        for name, address in uio.items():
            node = bus.get_subnode('%s@%x' % (name, address))
            window(node, address, r.window_size, names.COMPATIBLE_UIO)
            expected_bus.add(node.name)

        buffer = buffers.get_subnode(names.dma_buffer(r.name))
        assert string(buffer, 'compatible') == names.COMPATIBLE_UDMABUF
        assert string(buffer, 'device-name') == names.dma_buffer(r.name)
        assert words(buffer, 'size') == [names.DMA_BUFFER_BYTES]
        expected_buffers.add(buffer.name)
    # nothing the manifest does not ask for
    assert {n.name for n in base.nodes} == expected_base
    assert {n.name for n in bus.nodes} == expected_bus
    assert {n.name for n in buffers.nodes} == expected_buffers


def test_a_manifest_without_dma_blocks_gets_no_dma_nodes(tmp_path):
    data = json.loads(shell.REFERENCE.read_text())
    for region in data['regions']:
        del region['dma']
    tree = compile_overlay(tmp_path,
                           shell_overlay.render(shell.parse(data)))
    frags = fragments(tree)
    assert '/' not in frags
    assert not [n.name for n in frags[shell_overlay.BUS].nodes
                if '-dma@' in n.name]


def test_command_writes_the_overlay(tmp_path, capsys):
    out = tmp_path / 'shell.dtso'
    assert dt_cmd.main([str(shell.REFERENCE), '-o', str(out)]) == 0
    assert out.read_text() == shell_overlay.render(REFERENCE)
    assert dt_cmd.main([str(shell.REFERENCE)]) == 0
    assert capsys.readouterr().out == shell_overlay.render(REFERENCE)


@pytest.mark.parametrize('content', ['{', '{"regions": []}'])
def test_command_refuses_a_bad_manifest(tmp_path, capsys, content):
    bad = tmp_path / 'bad.json'
    bad.write_text(content)
    assert dt_cmd.main([str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith('nova-fpga-dt: ') and str(bad) in err
