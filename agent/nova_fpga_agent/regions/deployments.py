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

"""A load and an unload, on a region its task holds (as ironic's
deployments run a node's deploy steps): the region claimed for the
instance, its steps run, a failure at any step turned into the region
FAILED (decoupled, with the step and the cause) and the API's LoadFailed.
"""
import time

from nova_fpga.contract import agent_api as api
from nova_fpga.contract import reports
from nova_fpga.contract import states
from nova_fpga_agent.regions import report as rp
from nova_fpga_agent.regions import steps
from nova_fpga_agent.regions import task_manager


def load(manager, task, instance, image_id, sha256, data, network,
         settings):
    """The load's LoadReport (a dict); arguments checked by the caller."""
    region = task.region
    manager.check_fit('load a region')
    rs = task.rs
    if rs.state != states.FREE and rs.instance_uuid != instance:
        raise api.RegionBusy('region %s is held by instance %s (%s)'
                             % (region, rs.instance_uuid, rs.state))
    reload = rs.state in states.HOLDING_MODULE  # by its instance
    with manager.network.lock:
        manager.network.check_vlan_free(region, network)
        manager.records.claim(
            rs, state=states.LOADING, instance_uuid=instance,
            image_id=image_id, sha256=sha256, module_id=None,
            step='validate', error=None,
            network=network.to_dict() if network else None,
            settings=settings)
    if reload:
        steps.make_safe(manager.backend, region)
    manager.network.reset(region)
    started = time.monotonic()
    run = steps.Load(manager, task, data, sha256)
    try:
        run.run()
    except steps.StepFailed as exc:
        steps.make_safe(manager.backend, region)
        manager.records.set(rs, state=states.FAILED,
                            error='load failed at step %s' % exc)
        manager.report.record(region, instance, 'load of image %s failed '
                              'at step %s' % (image_id, exc))
        raise api.LoadFailed('board %s region %s: load failed at step %s'
                             % (manager.board_name, region, exc),
                             step=exc.step)
    total = time.monotonic() - started
    if manager.cache is not None:
        manager.cache.put(sha256, image_id, data)
    manager.report.record(
        region, instance, 'loaded image %s (module %s) for instance %s in '
        '%.3f s, %.3f s of it the configuration port' % (
            image_id, rp.module_text(rs.module_id), instance, total,
            run.port_seconds))
    return reports.LoadReport(
        **manager.report.region(task.spec).to_dict(),
        port_seconds=run.port_seconds,
        agent_seconds=total - run.port_seconds).to_dict()


def unload(manager, task, instance):
    """Free the instance's region (nothing to do when it is free)."""
    rs = task.rs
    if rs.state == states.FREE:
        return
    task_manager.held(rs, instance)
    manager.records.set(rs, state=states.UNLOADING)
    steps.Unload(manager, task).run()
    manager.report.record(task.region, instance, 'unloaded for instance %s; '
                          'region free and decoupled' % instance)
