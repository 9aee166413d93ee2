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

"""Write the shell manifest of a Vivado build from the partial bitstreams it
produced.

    python hdl/vivado/write_manifest.py BUILD/out \\
        -o BUILD/out/shell_manifest.json

Each region's frame footprint is what `nova-fpga-bitstream inspect --json`
reads from the region's partials (<region>_<module>.bit in BUILD/out): the
footprint a region has is whatever Vivado wrote, never a modelled one.  Every
partial of a region must be a valid partial for the shell's device with the
same footprint; anything else is refused.  The register windows, DMA
channels and VLANs come from a template manifest (the reference shell's by
default), which shell_bd.tcl's address map follows.  The result is checked
with nova_fpga.shell before it is written.

Every run of the static shell's implementation is a different shell (a
partial routed against one does not fit another), so the manifest gets a new
shell ID unless one is given.
"""

import argparse
import copy
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import uuid

from nova_fpga.contract import shell

ROOT = pathlib.Path(__file__).resolve().parents[2]
REFERENCE = (
    ROOT / 'nova_fpga' / 'contract' / 'shells' / 'reference_xc7z020.json'
)
CLI = 'nova-fpga-bitstream'


class ManifestBuildError(Exception):
    """The partials do not make a consistent shell."""


def find_cli():
    """Our CLI: beside this Python (the project's virtualenv), else on PATH."""
    beside = pathlib.Path(sys.executable).parent / CLI
    if beside.exists():
        return str(beside)
    found = shutil.which(CLI)
    if not found:
        raise ManifestBuildError(
            '%s not found: install nova-fpga (make setup)' % CLI
        )
    return found


def inspect(cli, path):
    """`nova-fpga-bitstream inspect --json` of one bitstream, as a dict."""
    result = subprocess.run(
        [cli, 'inspect', '--json', str(path)], capture_output=True, text=True
    )
    if result.returncode != 0:
        raise ManifestBuildError(
            '%s is not a valid bitstream: %s'
            % (path, (result.stdout + result.stderr).strip())
        )
    return json.loads(result.stdout)


def region_footprint(cli, region, partials, part):
    """The one footprint all of a region's partials write."""
    if not partials:
        raise ManifestBuildError('no partial bitstream for region %s' % region)
    footprint, first = None, None
    for path in partials:
        info = inspect(cli, path)
        if info['kind'] != 'partial':
            raise ManifestBuildError(
                '%s is a %s bitstream, not a partial for region %s'
                % (path, info['kind'], region)
            )
        if not part.startswith(info['device']):
            raise ManifestBuildError('%s is for %s, the shell is %s'
                                     % (path, info['device'], part))
        if footprint is None:
            footprint, first = info['footprint'], path
        elif info['footprint'] != footprint:
            raise ManifestBuildError(
                'partials of region %s have different footprints: '
                '%s writes %s, %s writes %s'
                % (
                    region,
                    first.name,
                    footprint['signature'],
                    path.name,
                    info['footprint']['signature'],
                )
            )
    return footprint


def build_manifest(out_dir, template, shell_id, version, cli):
    """The manifest (a dict) for the partials in out_dir."""
    out_dir = pathlib.Path(out_dir)
    manifest = copy.deepcopy(template)
    manifest['shell_id'] = shell_id
    manifest['version'] = version
    for region in manifest['regions']:
        name = region['name']
        partials = sorted(out_dir.glob('%s_*.bit' % name))
        region['footprint'] = region_footprint(
            cli, name, partials, manifest['part']
        )
        region['footprint_source'] = '%s inspect of the Vivado partials %s' % (
            CLI, ', '.join(p.name for p in partials))
    # the same checks every reader of a manifest makes
    try:
        shell.parse(manifest)
    except shell.ManifestError as exc:
        raise ManifestBuildError(
            'the partials do not make a valid shell: %s' % exc
        )
    return manifest


def write_atomically(path, text):
    path = pathlib.Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix='.tmp-')
    try:
        with os.fdopen(fd, 'w', encoding='utf-8') as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument(
        'out_dir', help="build.tcl's output directory (<region>_<module>.bit)"
    )
    p.add_argument(
        '-o', '--output', required=True, help='manifest JSON to write'
    )
    p.add_argument(
        '--template',
        default=str(REFERENCE),
        help='manifest giving register windows, DMA channels and VLANs',
    )
    p.add_argument(
        '--shell-id', default=None, help='shell UUID (default: a new one)'
    )
    p.add_argument('--version', default='1.0.0', help='shell version')
    args = p.parse_args(argv)
    try:
        with open(args.template, encoding='utf-8') as f:
            template = json.load(f)
        manifest = build_manifest(
            args.out_dir,
            template,
            args.shell_id or str(uuid.uuid4()),
            args.version,
            find_cli(),
        )
    except (OSError, ValueError, ManifestBuildError) as exc:
        print('write_manifest: %s' % exc, file=sys.stderr)
        return 1
    write_atomically(args.output, json.dumps(manifest, indent=2) + '\n')
    for region in manifest['regions']:
        print(
            '%s: footprint %s (%s)'
            % (
                region['name'],
                region['footprint']['signature'],
                region['footprint_source'],
            )
        )
    print('wrote %s: shell %s' % (args.output, manifest['shell_id']))
    return 0


if __name__ == '__main__':
    sys.exit(main())
