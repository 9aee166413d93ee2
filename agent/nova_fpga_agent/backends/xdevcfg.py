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

"""The xdevcfg backend: older Xilinx kernels' devcfg driver (before the
FPGA manager, around 2018).

A partial load: 1 to ``is_partial_bitstream``, the byte-swapped .bin to
/dev/xdevcfg, then ``prog_done`` must read 1.  The agent's load sequence
decouples the region around it (xdevcfg knows no bridges).  Root writes go
through the privileged helper.
"""
import os
import time

from nova_fpga_agent.backends import base
from nova_fpga_agent.backends import zynq
from nova_fpga_agent.privsep import fpga as priv

DEVICE = os.path.join('class', 'xdevcfg', 'xdevcfg', 'device')


class XdevcfgBackend(zynq.ZynqBackend):
    name = 'xdevcfg'

    @classmethod
    def detect(cls, conf):
        return os.path.exists(os.path.join(
            conf.agent.sysfs_root, DEVICE, 'is_partial_bitstream')) and \
            os.path.exists(os.path.join(conf.agent.dev_root, 'xdevcfg'))

    def program(self, region, data, pcap_bin):
        device = os.path.join(self.conf.agent.sysfs_root, DEVICE)
        priv.write_attribute(os.path.join(device, 'is_partial_bitstream'),
                             '1')
        started = time.monotonic()
        try:
            priv.write_device(os.path.join(self.conf.agent.dev_root,
                                           'xdevcfg'), pcap_bin)
        except OSError as exc:
            raise base.PortError('xdevcfg refused the partial for region '
                                 '%s: %s' % (region, exc))
        done = zynq.read_attribute(os.path.join(device, 'prog_done'))
        if done != '1':
            raise base.PortError('xdevcfg: prog_done reads %s after the '
                                 'partial for region %s' % (done, region))
        return time.monotonic() - started
