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

"""Fake Zynq kernels for the agent tests, and the agent's privileged
helper confined to them."""
import contextlib
import os
import sys
import tempfile

from oslo_config import cfg
from oslo_privsep import priv_context

from nova_fpga_agent import privsep
from nova_fpga_emulator.fakekernel import process
from tests.conftest import HDL

HELPER = os.path.join(sys.prefix, 'bin', 'privsep-helper')
VARIANTS = process.VARIANTS


def kernel(base, board, variant):
    """A fake kernel process for a board, below ``base``, running the
    modules' Verilog; the port modelled at 1000 MB/s as the sim agents'.
    """
    return process.FakeKernelProcess(
        tempfile.mkdtemp(prefix=board + '-', dir=base), variant, HDL,
        pcap_rate=1000.0)


@contextlib.contextmanager
def privileged_helper(base):
    """The agent's privsep daemon, as a board starts it, with its roots at
    ``base`` (every fake kernel of the tests lives below it).
    """
    conf = os.path.join(base, 'privileged.conf')
    with open(conf, 'w') as f:
        f.write('[agent]\n' + ''.join('%s = %s\n' % (opt, base) for opt in (
            'sysfs_root', 'configfs_root', 'firmware_dir', 'dev_root')))
    section = privsep.board_pctxt.cfg_section
    cfg.CONF.set_override('helper_command', '%s --config-file %s'
                          % (HELPER, conf), group=section)
    # not Method.FORK: forking a test process whose other threads may
    # hold locks (logging, messaging) can leave the child deadlocked
    privsep.board_pctxt.start(method=priv_context.Method.ROOTWRAP)
    try:
        yield base
    finally:
        privsep.board_pctxt.stop()
        cfg.CONF.clear_override('helper_command', group=section)
