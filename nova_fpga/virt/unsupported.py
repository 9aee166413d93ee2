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

"""Server actions a region cannot do, refused so the server keeps running.

nova has capability flags for some of these (its defaults already say
False for them); for the rest, nova calls the driver.  The refusal must
leave the server as it was and tell the user why: nova puts a
``NovaException``'s message in the instance action event's ``details``
(microversion 2.84) and the instance fault, and keeps the vm_state when the
refusal is wrapped in ``InstanceFaultRollback`` (resize, migrate, suspend).
A bare NotImplementedError would show only its class name.
"""
from nova import exception

#: action -> why a region cannot do it
WHY = {
    'snapshot': 'a region holds logic, not a disk: there is nothing to '
                'snapshot; the bitstream it runs is already an image',
    'migrate or resize': 'its logic is placed and routed for one region of '
                         'one board and cannot move while running; delete '
                         'it and create a new server',
    'suspend': 'the state of a region\'s logic cannot be saved and '
               'restored; stop the server instead',
    'rescue': 'a region has no disk to repair and no rescue image to boot; '
              'reboot --hard reloads its bitstream',
    'attach volumes to': 'a region has no block devices',
    'pause': 'a region\'s logic cannot be frozen and resumed; stop the '
             'server instead',
    'shelve': 'a region holds logic, not a disk that could be kept as an '
              'image; delete the server to free its region and create it '
              'again from the same image later',
}


class RegionActionUnsupported(exception.NovaException):
    msg_fmt = 'Cannot %(action)s a server in an FPGA region: %(why)s.'
    code = 409


def error(action):
    return RegionActionUnsupported(action=action, why=WHY[action])


def rollback(action):
    """The refusal for actions nova rolls back to the previous vm_state."""
    return exception.InstanceFaultRollback(inner_exception=error(action))
