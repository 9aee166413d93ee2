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

"""What the agent does to regions: load, unload, power, reset, report.

RegionManager (manager) is what the RPC endpoint and the service call;
the work is split as ironic's conductor splits its own:

* task_manager: a region's lock for one operation (a second is refused
  as busy, not queued) and the checks of who holds it;
* deployments and steps: a load and an unload, as named steps run in
  order, a failure at any step leaving the region decoupled and FAILED;
* persistence: the regions' states and the one writer of the state file;
* network: the regions' VLANs, the data plane steered by them, and the
  tenant's settings of a module's registers;
* report: the board's numbered reports and each region's history.
"""
from nova_fpga_agent.regions.manager import IMAGE_ID  # noqa: F401
from nova_fpga_agent.regions.manager import RegionManager  # noqa: F401
from nova_fpga_agent.regions.manager import SHA256  # noqa: F401
from nova_fpga_agent.regions.network import MAX_SETTINGS  # noqa: F401
