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

"""The fake Zynq kernel (see kernel.py) as a process.

    python -m nova_fpga_emulator.fakekernel ROOT --device fpga_manager \
        [--manifest SHELL.json] [--hdl-dir HDL]

serves ROOT/kernel until SIGTERM; point an agent at it with the options
kernel.options(ROOT) gives (printed with --print-options).
"""
import argparse
import sys

from oslo_config import cfg
from oslo_log import log as logging

from nova_fpga import catalogue
from nova_fpga.contract import shell as mf
from nova_fpga_emulator.fakekernel import fpga_manager
from nova_fpga_emulator.fakekernel import iio
from nova_fpga_emulator.fakekernel import kernel as fk
from nova_fpga_emulator.fakekernel import uio
from nova_fpga_emulator.fakekernel import xdevcfg

#: --device: the configuration port's driver
DEVICES = {
    'fpga_manager': lambda: fpga_manager.FpgaManager(),
    'fpga_manager_flags': lambda: fpga_manager.FpgaManager(overlays=False),
    'fpga_manager_overlays': lambda: fpga_manager.FpgaManager(flags=False),
    'xdevcfg': lambda: xdevcfg.Xdevcfg(),
}
#: the parts every fake kernel has besides its configuration port: the
#: shell's UIO windows and DMA buffers, and the XADC (a new device part
#: goes here)
COMMON_PARTS = [uio.Uio, iio.Xadc]


def main(argv=None):
    parser = argparse.ArgumentParser(prog='python -m '
                                     'nova_fpga_emulator.fakekernel',
                                     description=__doc__.split('\n')[0])
    parser.add_argument('root')
    parser.add_argument('--manifest', default=str(mf.REFERENCE))
    parser.add_argument('--device', choices=sorted(DEVICES),
                        default='fpga_manager')
    parser.add_argument('--part', default='xc7z020clg400-1')
    parser.add_argument('--pcap-rate', type=float, default=128.0,
                        help='modelled configuration-port rate, MB/s')
    parser.add_argument('--hdl-dir', help="a source tree's hdl/ folder")
    parser.add_argument('--module-catalogue-dir', action='append',
                        default=[])
    parser.add_argument('--log-file')
    parser.add_argument('--engines', action='store_true',
                        help='the regions\' AXI DMA and modules as the C '
                             'emulated engine (nova-fpga-sgemu), for the '
                             'data mover: /dev/uioN of a DMA is its register '
                             'file, /dev/uioN-irq its interrupt socket')
    parser.add_argument('--print-options', action='store_true',
                        help='print the agent options for ROOT and exit')
    args = parser.parse_args(argv)
    if args.print_options:
        for (group, name), value in sorted(fk.options(args.root).items()):
            print('[%s] %s = %s' % (group, name, value))
        return 0
    conf = cfg.ConfigOpts()
    logging.register_options(conf)
    conf([] if not args.log_file else ['--log-file', args.log_file],
         project='nova-fpga')
    logging.setup(conf, 'nova-fpga-fakekernel')
    kernel = fk.FakeKernel(
        args.root, mf.load(args.manifest), args.part,
        [DEVICES[args.device]()] + [part() for part in COMMON_PARTS],
        pcap_rate=args.pcap_rate,
        module_catalogue=catalogue.load(args.module_catalogue_dir),
        hdl_dir=args.hdl_dir, engines=args.engines)
    kernel.serve()
    return 0


if __name__ == '__main__':
    sys.exit(main())
