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

"""The agent's privilege boundary (oslo.privsep, as nova and os-brick).

The agent runs as an unprivileged user; what a board backend must do as
root goes to a privsep daemon that keeps only the capabilities below.  Its
entrypoints (nova_fpga_agent.privsep.fpga) confine every path to the roots
configured in [agent], read by the daemon itself, so a compromised agent
cannot widen them.  On a board the daemon starts on first use with
``sudo privsep-helper`` (agent/etc/sudoers.d/nova-fpga-agent admits exactly
that command); options in [nova_fpga_agent_privileged].

The emulator's data mover runs in the network namespace of its board's
data interface ([dataplane] netns): a second daemon (datapath_pctxt,
options in [nova_fpga_agent_datapath_privileged]) enters the namespace and
starts the mover there (nova_fpga_agent.privsep.netns).  A board has no
namespace: its agent starts the mover itself, and never starts this
daemon (the sudoers rule admits board_pctxt alone).
"""
from oslo_privsep import capabilities
from oslo_privsep import priv_context

#: write root-owned sysfs/configfs attributes, /lib/firmware and
#: /dev/xdevcfg, and make overlay directories in root-owned configfs
CAPABILITIES = (capabilities.CAP_DAC_OVERRIDE,
                capabilities.CAP_DAC_READ_SEARCH)

board_pctxt = priv_context.PrivContext(
    'nova_fpga_agent',
    cfg_section='nova_fpga_agent_privileged',
    pypath=__name__ + '.board_pctxt',
    capabilities=CAPABILITIES,
)

#: enter a network namespace (setns(2)), and keep the packet socket's
#: capabilities for the mover started there (see privsep.netns: with
#: [dataplane] packet_io = af_xdp it keeps CAP_NET_ADMIN, CAP_BPF and
#: CAP_IPC_LOCK too, which a child can keep only if the daemon has them)
DATAPATH_CAPABILITIES = (capabilities.CAP_SYS_ADMIN,
                         capabilities.CAP_NET_RAW,
                         capabilities.CAP_NET_ADMIN,
                         capabilities.CAP_BPF,
                         capabilities.CAP_IPC_LOCK)

datapath_pctxt = priv_context.PrivContext(
    'nova_fpga_agent',
    cfg_section='nova_fpga_agent_datapath_privileged',
    pypath=__name__ + '.datapath_pctxt',
    capabilities=DATAPATH_CAPABILITIES,
)
