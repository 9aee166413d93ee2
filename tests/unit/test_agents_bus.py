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

"""The agents' bus configuration with [zynq] ssl (nova_fpga.virt.agents):
a conf of its own holding every option oslo.messaging reads, made through
oslo.messaging's and oslo.config's public calls only.
"""
import ast

from oslo_config import cfg
import oslo_messaging  # noqa: F401 (registers its global-only groups)
from oslo_messaging import opts as messaging_opts
import pytest

from nova_fpga import conf as nova_conf
from nova_fpga.virt import agents
from tests.conftest import ROOT


def nova(**zynq):
    conf = cfg.ConfigOpts()
    nova_conf.register_opts(conf)
    conf([], default_config_files=[], default_config_dirs=[])
    for name, value in zynq.items():
        conf.set_override(name, value, group='zynq')
    return conf


def test_without_ssl_the_agents_bus_reads_novas_conf():
    conf = nova()
    assert agents.bus_conf(conf) is conf


def test_with_ssl_a_conf_of_its_own_with_every_messaging_option():
    conf = nova(ssl=True, ssl_ca_file='/etc/nova/fpga-ca.pem',
                ssl_cert_file='/etc/nova/fpga.pem',
                ssl_key_file='/etc/nova/fpga-key.pem')
    bus = agents.bus_conf(conf)
    assert bus is not conf
    rabbit = getattr(bus, agents.RABBIT)
    assert rabbit.ssl is True
    assert (rabbit.ssl_ca_file, rabbit.ssl_cert_file, rabbit.ssl_key_file) \
        == ('/etc/nova/fpga-ca.pem', '/etc/nova/fpga.pem',
            '/etc/nova/fpga-key.pem')
    # what oslo.messaging registers on the global CONF only (metrics,
    # tracing) and reads from a transport's conf: there too, option by
    # option, at its defaults
    # (other tests of this process may have made transports on the global
    # CONF, registering list_opts()' groups there too)
    listed = {group for group, _ in messaging_opts.list_opts()}
    global_only = [group for group in cfg.CONF
                   if group.startswith('oslo_messaging_')
                   and group not in listed]
    assert {'oslo_messaging_metrics', 'oslo_messaging_tracing'} <= \
        set(global_only)
    for group in global_only:
        ours, known = getattr(bus, group), getattr(cfg.CONF, group)
        assert set(ours) == set(known), group
        for name in known:
            assert ours[name] == known[name], (group, name)
    assert bus.oslo_messaging_metrics.metrics_enabled is False
    assert bus.oslo_messaging_tracing.tracing_enabled is False


def test_no_private_oslo_config_attribute_is_read():
    """What oslo.config keeps to itself (a ConfigOpts' and an OptGroup's
    private attributes and methods, such as _groups and _opts) is not
    what the bus conf is made from: it changes without notice.
    """
    private = {name for thing in (cfg.CONF, cfg.OptGroup('g'))
               for name in set(dir(thing)) | set(vars(thing))
               if name.startswith('_') and not name.startswith('__')}
    assert {'_groups', '_opts'} <= private
    tree = ast.parse((ROOT / 'nova_fpga' / 'virt' / 'agents.py')
                     .read_text())
    read = {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)}
    assert read & private == set()


def test_manage_reaches_an_agent_with_its_own_conf(tmp_path):
    """nova-fpga-manage board list/show/drain read nova-compute's file into
    a conf of their own: a call to an agent goes out (on oslo.messaging's
    fake driver, and times out, no agent being there) instead of failing
    on an option oslo.messaging reads but registers on the global CONF
    only (found by devstack-check: every board listed as "error: no such
    option oslo_messaging_tracing in group [DEFAULT]").
    """
    from nova_fpga.cmd import manage
    path = tmp_path / 'nova-fpga-compute.conf'
    path.write_text('[zynq]\nboards = b0\ntransport_url = fake://\n'
                    'vhost_per_board = False\n')
    conf = manage._zynq_conf(str(path), 1)
    clients = agents.make_client(conf)
    try:
        with pytest.raises(oslo_messaging.MessagingTimeout):
            clients.describe({}, 'b0')
    finally:
        clients.cleanup()
