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

"""Emulated Zynq boards: one nova-fpga-agent process per board.

Each runs the sim backend (the board emulator: modules as Verilator-compiled
HDL) with the reference shell, its state in state_dir/boards/<name>, on the
agents' own RabbitMQ vhost as a user of its own.  Its [agent] sysfs_root
is a fake kernel's tree beside it with an XADC, so its temperature
watchdog runs and a demo can make the board overheat.
"""
import json
import pathlib
import time

import oslo_messaging as messaging

from nova_fpga import deployment
import nova_fpga_devtools
from nova_fpga_devtools.localcloud import process
from nova_fpga_emulator.fakekernel import iio

AGENT = process.BIN / 'nova-fpga-agent'


class Board:
    def __init__(self, state_dir, name, transport_url, options=None,
                 die_with_parent=True):
        """options: {(section, option): value} over the agent's base config
        (a data plane interface and netns, the emulator's PCAP rate...).
        """
        self.name = name
        self.options = dict(options or {})
        self.dir = pathlib.Path(state_dir) / 'boards' / name
        self.conf_file = self.dir / 'agent.conf'
        #: the fake kernel's sysfs the agent reads its XADC from
        self.sysfs = self.dir / 'sys'
        self.xadc = iio.FakeXadc(str(self.sysfs))
        self.transport_url = transport_url
        self.process = process.Process(
            'agent', [AGENT, '--config-file', self.conf_file], self.dir,
            die_with_parent=die_with_parent)
        self.log = self.process.log

    @property
    def state_file(self):
        """The agent's region state (regions.json)."""
        return self.dir / 'state' / 'regions.json'

    def last_regions(self):
        """[{'name', 'state', 'instance_uuid'}] as the agent last wrote its
        state file (regions it never touched are FREE and absent), or None
        when there is no readable file: what status shows of a silent
        board.
        """
        try:
            records = json.loads(self.state_file.read_text())['regions']
            return [{'name': record['region'], 'state': record['state'],
                     'instance_uuid': record.get('instance_uuid')}
                    for record in records]
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def conf(self):
        # what every nova-fpga deployment sets (the DevStack plugin too)
        conf = process.options(deployment.agent(
            self.name, self.transport_url, self.dir / 'state',
            hdl_dir=nova_fpga_devtools.HDL))
        conf['agent', 'sysfs_root'] = str(self.sysfs)
        conf.update(self.options)
        return conf

    def start(self, client, timeout=120):
        """Start the agent and wait until it answers health over RPC."""
        process.write_conf(self.conf_file, self.conf())
        if not pathlib.Path(self.xadc.path).exists():
            self.xadc.install()
        self.process.start()
        deadline = time.monotonic() + timeout
        while True:
            if not self.process.running():
                self.process.stop()
                raise process.ServiceError(self.name, 'agent exited',
                                           self.log)
            try:
                return client.health({}, self.name, timeout=2)
            except messaging.MessagingTimeout:
                pass
            if time.monotonic() > deadline:
                self.process.stop()
                raise process.ServiceError(self.name, 'agent did not answer '
                                           'within %ss' % timeout, self.log)
