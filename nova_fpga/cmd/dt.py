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

"""nova-fpga-dt: the shell's device-tree overlay source from its manifest.

    nova-fpga-dt MANIFEST [-o shell.dtso]

writes the overlay (nova_fpga.shell_overlay) to the file or stdout; compile
it with ``dtc -@ -I dts -O dtb -o shell.dtbo shell.dtso``.
"""
import argparse
import sys

from nova_fpga.contract import shell
from nova_fpga import shell_overlay


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='nova-fpga-dt', description=__doc__.split('\n')[0])
    parser.add_argument('manifest', help='shell manifest (JSON)')
    parser.add_argument('-o', '--output',
                        help='.dtso file to write (default: stdout)')
    args = parser.parse_args(argv)
    try:
        text = shell_overlay.render(shell.load(args.manifest))
    except shell.ManifestError as exc:
        print('nova-fpga-dt: %s' % exc, file=sys.stderr)
        return 1
    if args.output:
        with open(args.output, 'w', encoding='utf-8') as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
