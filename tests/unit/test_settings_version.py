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

"""The agent API's version cap for a module's settings: a caller capped
below them never sends them (an older agent would run the module with its
reset values) and says so."""
import uuid

from oslo_config import cfg
import oslo_messaging as messaging
import pytest

from nova_fpga.contract import agent_api as api


def test_settings_are_an_optional_argument_of_load_since_their_version():
    since, arguments = api.METHODS['load']
    assert arguments['settings'] == api.SETTINGS_VERSION != since
    assert api.version_at_least(api.API_VERSION, api.SETTINGS_VERSION)


def test_version_cap_below_settings_refuses_loads_with_settings():
    transport = messaging.get_rpc_transport(cfg.CONF, url='fake:/')
    try:
        old = api.AgentAPI(transport, version_cap='1.3')
        assert not old.can_set()
        with pytest.raises(api.InvalidRequest,
                           match='needs agent API 1.4.*without the '
                                 'properties vtc:dscp:sip'):
            old.load({}, 'board0', 'rp1', str(uuid.uuid4()), 'img',
                     '0' * 64, b'bits', settings={'vtc:dscp:sip': 46})
        assert api.AgentAPI(transport).can_set()
    finally:
        transport.cleanup()
