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

"""Board agents as separate processes, started and stopped by pid."""
import os
import signal
import subprocess
import sys
import time

from oslo_config import cfg
import oslo_messaging as messaging

from nova_fpga.contract import agent_api as api
from tests.agent.conftest import write_conf

AGENT = os.path.join(sys.prefix, 'bin', 'nova-fpga-agent')


class AgentProcess:
    def __init__(self, tmp_path, board, transport_url, options=None,
                 agent=AGENT):
        """agent: the nova-fpga-agent console script to run (another
        virtualenv's in the install tests).
        """
        self.board = board
        self.agent = agent
        self.log = tmp_path / ('%s.log' % board)
        opts = {('DEFAULT', 'transport_url'): transport_url,
                ('DEFAULT', 'log_file'): str(self.log),
                ('agent', 'report_interval'): 1}
        opts.update(options or {})
        self.conf = write_conf(tmp_path, board, opts)
        self.state_dir = tmp_path / board
        self.process = None

    def start(self, client, timeout=60):
        self.process = subprocess.Popen(
            [str(self.agent), '--config-file', str(self.conf)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError('agent %s exited %s: %s\n%s' % (
                    self.board, self.process.returncode,
                    self.process.stderr.read().decode(), self.log_text()))
            try:
                return client.health({}, self.board, timeout=2)
            except messaging.MessagingTimeout:
                continue
        self.kill()
        raise RuntimeError('agent %s did not answer:\n%s'
                           % (self.board, self.log_text()))

    def log_text(self):
        return self.log.read_text() if self.log.exists() else ''

    def datamover_log(self):
        """What the agent's data mover logged (it writes its own log in
        [agent] state_dir, DataPath.log_path).
        """
        path = self.state_dir / 'datamover.log'
        return path.read_text() if path.exists() else ''

    def wait_dead(self, timeout=30):
        return self.process.wait(timeout)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def end_datapath(self):
        """Stop what outlives the agent: its data mover and, on an emulated
        board, the regions' engines (their /dev/shm files go with them).
        """
        end_datapath(self.state_dir)

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def client_for(url, timeout=30):
    transport = messaging.get_rpc_transport(
        cfg.CONF,
        url=url,
        allowed_remote_exmods=['nova_fpga.contract.agent_api'],
    )
    return api.AgentAPI(transport, timeout=timeout), transport


def end_datapath(state_dir):
    """Stop a board's data mover and emulated engines (see AgentProcess)."""
    from nova_fpga_emulator import engine
    engine.power_off(state_dir)
