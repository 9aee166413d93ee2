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

"""Configuration options of the board emulator: the [emulator] group of
the agent's configuration, registered when the sim backend is made."""
from oslo_config import cfg

from nova_fpga import optgroups

emulator_group = cfg.OptGroup('emulator', title='Board emulator (sim backend)')

EMULATOR_OPTS = [
    cfg.StrOpt('part', default='xc7z020clg400-1',
               help='Part of the emulated board (its IDCODE is what the '
                    'emulated PCAP accepts).'),
    cfg.FloatOpt('pcap_rate', default=128.0, min=0.001,
                 help='Modelled configuration-port rate in MB/s: a load '
                      'takes size / rate, reported as modelled time.'),
    cfg.StrOpt('hdl_dir',
               help='The hdl/ folder of a nova-fpga source tree, with the '
                    "modules' Verilog (rtl/) and the Verilator bridge "
                    '(bridge/). Unset: modules with HDL cannot run; an '
                    'opaque (undeclared) module still loads, a declared '
                    'module fails the load with an error naming this '
                    'option.'),
    cfg.StrOpt('crash_at',
               help='Fault injection: the emulated board dies (SIGKILL to '
                    'this process) when the agent performs this hardware '
                    'operation: decouple, pcap_write, couple, reset, read_id '
                    'or dma_start.'),
]


def register_opts(conf):
    optgroups.register(conf, emulator_group, EMULATOR_OPTS)


def list_opts():
    """For oslo-config-generator (entry point oslo.config.opts)."""
    return [(emulator_group, EMULATOR_OPTS)]
