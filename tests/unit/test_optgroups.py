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

"""Each conf keeps its own settings: every group of nova-fpga's options,
registered on two ConfigOpts, takes an override on one without it showing
on the other (oslo.config shares a registered OptGroup's option table
between the confs it was registered on).
"""
from oslo_config import cfg
import pytest

from nova_fpga import conf as nova_conf
from nova_fpga.ml2 import conf as ml2_conf
from nova_fpga_agent.backends import fpga_manager
from nova_fpga_agent.backends import zynq
from nova_fpga_agent import conf as agent_conf
from nova_fpga_devtools.localcloud import tor_switch
from nova_fpga_emulator import conf as emulator_conf
from nova_fpga_emulator import fleet

REGISTERED = [
    (nova_conf.register_opts, nova_conf.list_opts()),
    (ml2_conf.register_opts, ml2_conf.list_opts()),
    (agent_conf.register_opts, agent_conf.list_opts()),
    (agent_conf.register_root_opts, [(agent_conf.agent_group,
                                      agent_conf.ROOT_OPTS)]),
    (zynq.register_opts, [(zynq.board_group, zynq.BOARD_OPTS)]),
    (fpga_manager.register_opts, [(fpga_manager.fpga_manager_group,
                                   fpga_manager.FPGA_MANAGER_OPTS)]),
    (emulator_conf.register_opts, [(emulator_conf.emulator_group,
                                    emulator_conf.EMULATOR_OPTS)]),
    (fleet.register_opts, [(fleet.fleet_group, fleet.FLEET_OPTS)]),
    (tor_switch.register_opts, tor_switch.list_opts()),
]


def group_name(group):
    return group if isinstance(group, str) else group.name


def conf_with(register, listed):
    conf = cfg.ConfigOpts()
    register(conf)
    for group, opts in listed:
        for opt in opts:
            if opt.required:
                conf.set_default(opt.dest, 'given', group=group_name(group))
    conf([], default_config_files=[], default_config_dirs=[])
    return conf


@pytest.mark.parametrize('register, listed', REGISTERED,
                         ids=[r.__module__ + '.' + r.__name__
                              for r, _ in REGISTERED])
def test_an_override_stays_on_its_conf(register, listed):
    # what a service registers itself (oslo.privsep's groups) is listed
    # for the sample, not registered here
    privileged = {agent_conf.privsep.board_pctxt.cfg_section,
                  agent_conf.privsep.datapath_pctxt.cfg_section}
    listed = [(group, opts) for group, opts in listed
              if group_name(group) not in privileged]
    first, second = conf_with(register, listed), conf_with(register, listed)
    for group, opts in listed:
        name = group_name(group)
        for opt in opts:
            if isinstance(opt, cfg.BoolOpt):
                value = not first[name][opt.dest]
            elif isinstance(opt, cfg.StrOpt) and not opt.type.choices:
                value = 'set-on-the-first-conf'
            elif isinstance(opt, cfg.IntOpt) and opt.type.max is None:
                value = first[name][opt.dest] + 1
            else:
                continue
            first.set_override(opt.dest, value, group=name)
            assert first[name][opt.dest] == value
            assert second[name][opt.dest] != value, (name, opt.dest)
            break
        else:
            pytest.fail('no boolean, free string or unbounded integer '
                        'option in [%s]' % name)
