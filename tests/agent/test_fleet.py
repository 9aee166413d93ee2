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

"""One process serves many boards, each answering for itself alone, and
leaves other agents' configurations alone."""
import hashlib
import uuid

from oslo_config import cfg
import oslo_messaging as messaging

from nova_fpga.contract import states
from nova_fpga_emulator import fleet
from tests.agent import conftest


def test_one_process_serves_many_boards(tmp_path):
    cloud = conftest.InProcessCloud(tmp_path)
    path = conftest.write_conf(tmp_path, 'fleet', {
        ('agent', 'backend'): 'behavioural',
        ('emulator', 'hdl_dir'): None,
        ('agent', 'state_dir'): str(tmp_path / 'boards'),
        ('fleet', 'boards'): 5,
        ('fleet', 'name_format'): 'zynq-%02d'})
    args = ['--config-file', str(path)]
    names = fleet.board_names(fleet.board_conf(args, 'x', str(tmp_path)))
    assert names == ['zynq-%02d' % i for i in range(5)]
    # the fake bus is the process's: the boards' reports go to an exchange
    # other tests do not read (nova's default), not the agents'
    reports = messaging.get_notification_transport(cfg.CONF, url='fake:/')
    boards = fleet.Fleet(args, names, str(tmp_path / 'boards'),
                         cloud.transport, reports)
    boards.start()
    try:
        assert [cloud.client.describe({}, n)['board'] for n in names] == names
        data = conftest.module_for('rp0')
        instance = str(uuid.uuid4())
        cloud.client.load({}, 'zynq-03', 'rp0', instance, 'img',
                          hashlib.sha256(data).hexdigest(), data)
        held = {n: [r['instance_uuid'] for r in
                    cloud.client.describe({}, n)['regions']
                    if r['state'] == states.ACTIVE] for n in names}
        assert held == {n: [instance] if n == 'zynq-03' else []
                        for n in names}
        assert (tmp_path / 'boards' / 'zynq-03').is_dir()
    finally:
        boards.stop()
    # the boards' names stay theirs: an agent made afterwards has its own
    cloud.start('b0')
    try:
        assert cloud.client.describe({}, 'b0')['board'] == 'b0'
    finally:
        cloud.close()


def test_the_connection_pools_hold_a_connection_a_board():
    """One transport of each kind carries every board's reports and
    answers: its pool is as large as the fleet (oslo.messaging's default
    of 30 made a 200-board fleet log "Connection pool limit exceeded"),
    never smaller than that default, and a transport made after keeps it.
    """
    for boards, expected in ((200, 200), (5, 30)):
        conf = cfg.ConfigOpts()
        fleet.size_connection_pool(conf, boards)
        conf([], default_config_files=[], default_config_dirs=[])
        transport = messaging.get_rpc_transport(conf, url='fake:/')
        try:
            assert conf.oslo_messaging_rabbit.rpc_conn_pool_size == expected
        finally:
            transport.cleanup()
