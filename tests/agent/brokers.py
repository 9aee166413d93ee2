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

"""A real RabbitMQ for the agent tests: the configured one when it answers
and can be administered, else a private node
(nova_fpga_devtools.localcloud.rabbitmq) started here and stopped by pid.  Each
test session gets the agents' own vhost and per-board users.
"""
import os
import secrets

import pytest

from nova_fpga_devtools.localcloud import process
from nova_fpga_devtools.localcloud import rabbitmq as localrabbit


class Broker:
    """The session's vhost on a node, with a user per name."""

    def __init__(self, node):
        self.node = node
        self.host, self.port, self.ctl = node.host, node.port, node.ctl
        self.vhost = 'nova_fpga_agents_%s' % secrets.token_hex(4)
        self.users = {}

    def rabbitmqctl(self, *args):
        return self.node.rabbitmqctl(*args)

    def user(self, name):
        """A user with rights on the agents' vhost only; its URL."""
        if name not in self.users:
            login = '%s-%s' % (name, self.vhost[-8:])
            self.users[name] = (login, self.node.add_user(
                login, secrets.token_hex(12), self.vhost))
        return self.users[name][1]

    def setup(self):
        self.node.add_vhost(self.vhost)

    def cleanup(self):
        for login, _ in self.users.values():
            self.node.delete_user(login)
        self.node.delete_vhost(self.vhost)


@pytest.fixture(scope='session')
def rabbitmq(tmp_path_factory):
    node = localrabbit.configured(os.environ.get(
        'NOVA_FPGA_TEST_RABBIT_URL', localrabbit.DEFAULT_URL))
    private = None
    if node is None:
        private = localrabbit.PrivateRabbitMQ(
            tmp_path_factory.mktemp('rabbitmq'), process.free_port(),
            process.free_port(), process.free_port())
        try:
            node = private.start().broker
        except process.ServiceError as exc:
            pytest.fail(str(exc), pytrace=False)
    broker = Broker(node)
    broker.setup()
    yield broker
    broker.cleanup()
    if private is not None:
        private.stop()
