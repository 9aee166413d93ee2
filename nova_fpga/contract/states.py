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

"""Region states, as the agent persists them and reports them to nova.

A region is FREE, being LOADED, ACTIVE (its module runs and frames flow),
STOPPED (decoupled and held in reset: a powered-off server), being
UNLOADED, or FAILED (decoupled, with the step and the cause recorded).
"""
FREE = 'FREE'
LOADING = 'LOADING'
ACTIVE = 'ACTIVE'
STOPPED = 'STOPPED'
UNLOADING = 'UNLOADING'
FAILED = 'FAILED'
STATES = (FREE, LOADING, ACTIVE, STOPPED, UNLOADING, FAILED)

#: states in which the region holds a configured module
HOLDING_MODULE = (ACTIVE, STOPPED)

#: the power argument of the agent's ``power`` call
POWER_ON = 'on'
POWER_OFF = 'off'
POWER_STATES = (POWER_ON, POWER_OFF)
