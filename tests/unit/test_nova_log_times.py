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

"""The scale benchmark's reading of nova's logs, on lines as nova 34 writes
them (benchmarks/cloud_scale.py needs minutes of a whole cloud: not in CI;
this is the part that breaks silently when nova changes a message).
"""
import importlib.util
import pathlib

import pytest

PATH = pathlib.Path(__file__).parents[2] / 'benchmarks' / 'nova_log_times.py'
SPEC = importlib.util.spec_from_file_location('nova_log_times', PATH)
logs = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(logs)

UUID = '0b7c5e1a-3d0e-4f7e-9a55-2f3c1f0a9d11'
REQ = '[None req-8e8bd41e-6894-4bbe-ab30-9fe16c61e0bd - - - - - -]'


def _write(tmp_path, lines):
    path = tmp_path / 'service.log'
    path.write_text(''.join(line + '\n' for line in lines))
    return path


def test_scheduling_from_start_to_selected_host(tmp_path):
    path = _write(tmp_path, [
        "2026-11-26 07:55:01.100 1 DEBUG nova.scheduler.manager %s "
        "Starting to schedule for instances: ['%s'] select_destinations "
        "/nova/scheduler/manager.py:215" % (REQ, UUID),
        "2026-11-26 07:55:01.150 1 DEBUG nova.scheduler.manager %s "
        "Filtered [(proxy-a, board001) ram: 0MB] _get_sorted_hosts" % REQ,
        "2026-11-26 07:55:01.175 1 DEBUG nova.scheduler.manager %s "
        "[instance: %s] Selected host: (proxy-a, board001) ram: 0MB "
        "_consume_selected_host" % (REQ, UUID)])
    start, selected = logs.scheduling(path)[UUID]
    assert selected - start == pytest.approx(0.075, abs=1e-6)


def test_compute_claim_and_spawn(tmp_path):
    path = _write(tmp_path, [
        "2026-11-26 07:55:02.000 1 INFO nova.compute.claims %s [instance: "
        "%s] Claim successful on node board001" % (REQ, UUID),
        "2026-11-26 07:55:02.900 1 INFO nova_fpga.virt.driver %s [instance: "
        "%s] spawn timing: image transfer 0.120 s, load call 0.300 s "
        "(configuration port 0.001 s modelled, agent 0.050 s) on board "
        "board001" % (REQ, UUID),
        "2026-11-26 07:55:03.000 1 INFO nova.compute.manager %s [instance: "
        "%s] Took 0.50 seconds to spawn the instance on the hypervisor."
        % (REQ, UUID)])
    times = logs.compute_times(path)[UUID]
    assert times['spawn_end'] - times['claimed'] == pytest.approx(1.0)
    assert times['spawn_end'] - times['spawn_start'] == pytest.approx(0.5)
    assert (times['transfer'], times['load']) == (0.12, 0.3)


def test_periodic_runs_complete_only_with_their_parts(tmp_path):
    line = '%s 1 DEBUG nova.compute.resource_tracker ' + REQ + ' %s'
    start = ('%s 1 DEBUG oslo_service.periodic_task ' + REQ + ' Running '
             'periodic task ComputeManager.update_available_resource '
             'run_periodic_tasks')

    def node(second, name):
        return [
            line % ('2026-11-26 07:51:%06.3f' % second, 'Auditing locally '
                    'available compute resources for proxy-a (node: %s)'
                    % name),
            line % ('2026-11-26 07:51:%06.3f' % (second + 0.1),
                    'Hypervisor/Node resource view: name=%s free_ram=0MB'
                    % name),
            line % ('2026-11-26 07:51:%06.3f' % (second + 0.3),
                    'Final resource view: name=%s phys_ram=0MB' % name),
            line % ('2026-11-26 07:51:%06.3f' % (second + 1.0),
                    'Compute_service record updated for proxy-a:%s' % name)]
    path = _write(tmp_path, node(0, 'board000')        # start-up update
                  + [start % '2026-11-26 07:51:01.000']
                  + node(1, 'board000') + node(2, 'board001')
                  + [start % '2026-11-26 07:51:10.000']
                  + node(11, 'board000'))               # still running
    [(seconds, nodes, parts)] = logs.periodic_runs(path)
    assert (seconds, nodes) == (pytest.approx(2.0), 2)
    assert parts == {'driver resources': pytest.approx(0.2),
                     'lock wait and usage': pytest.approx(0.4),
                     'provider tree, placement, DB': pytest.approx(1.4)}
