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

"""neutron-macvtap-agent's own main() on oslo.service's eventlet backend.

neutron 29's console script selects the threading backend, whose launcher
runs the agent in a forked child; the agent starts its privsep daemon in
the parent first (checking its interface mappings), so the child's privsep
replies reach the parent's reader thread and the child hangs at its first
privileged call ("msgid should be in oustanding_msgs").  The eventlet
backend's launcher runs the service in the same process (with eventlet's
monkey patching, as neutron's agents ran until 2025: else the agent's
blocking loop starves its state reports).  Nothing of neutron is changed:
this selects a backend oslo.service ships, then calls the agent's main().
"""
import sys


def main():
    import eventlet
    eventlet.monkey_patch()
    from oslo_service import backend
    backend.init_backend(backend.BackendType.EVENTLET)
    from neutron.plugins.ml2.drivers.macvtap.agent import \
        macvtap_neutron_agent
    return macvtap_neutron_agent.main()


if __name__ == '__main__':
    sys.exit(main())
