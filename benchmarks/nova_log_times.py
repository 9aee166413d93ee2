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

"""When nova's services did what, read from their logs (nova 34, debug).

Every service runs on this machine and logs its local time to the
millisecond, so one clock orders the client's requests and the services'
lines.  What each figure is read from:

- scheduling: nova-scheduler's "Starting to schedule for instances:
  ['<uuid>']" (select_destinations entered) to its "Selected host: ..."
  for that instance (placement's allocation candidates, filters, weighers
  and the claim in placement done);
- on a compute: "Claim successful on node" (the resource tracker's claim),
  "Took X seconds to spawn the instance" (the driver's spawn: its end, and
  its start X before), and the Zynq driver's "spawn timing" line (image
  transfer and agent load call);
- the periodic resource update of a compute: from "Running periodic task
  ComputeManager.update_available_resource" to the last "Compute_service
  record updated" of its nodes before the next run (nova logs one at the
  end of each node's update; the startup update is not a periodic run and
  is left out); only runs followed by another are counted, so each is
  complete;
  within a run, each node's update in three parts, from the resource
  tracker's lines: "Auditing locally available compute resources" to
  "Hypervisor/Node resource view" (the driver's get_available_resource),
  to "Final resource view" (waiting for the compute_resources lock, which
  claims hold too, and nova's usage accounting), to "Compute_service record
  updated" (the driver's update_provider_tree, nova's sync of the tree to
  placement and the compute node's save).
"""
import datetime
import re

INSTANCE = re.compile(r'\[instance: ([0-9a-f-]{36})\]')
SCHEDULE_START = re.compile(
    r"Starting to schedule for instances: \['([0-9a-f-]{36})'\]")
SELECTED = 'Selected host:'
CLAIMED = 'Claim successful on node'
SPAWN_TOOK = re.compile(r'Took ([\d.]+) seconds to spawn the instance')
SPAWN_TIMING = re.compile(
    r'spawn timing: image transfer (?P<transfer>[\d.]+) s, load call '
    r'(?P<load>[\d.]+) s')
PERIODIC = 'Running periodic task ComputeManager.update_available_resource'
FINAL_VIEW = 'Final resource view: name='
#: a node's update, in order: (marker, the part it ends)
NODE_STEPS = (
    ('Auditing locally available compute resources', None),
    ('Hypervisor/Node resource view: name=', 'driver resources'),
    (FINAL_VIEW, 'lock wait and usage'),
    ('Compute_service record updated for', 'provider tree, placement, DB'),
)


def when(line):
    """The line's timestamp (seconds since the epoch), or None."""
    try:
        return datetime.datetime.strptime(
            ' '.join(line.split()[:2]), '%Y-%m-%d %H:%M:%S.%f').timestamp()
    except ValueError:
        return None


def _lines(path):
    with open(path, errors='replace') as log:
        for line in log:
            stamp = when(line)
            if stamp is not None:
                yield stamp, line


def scheduling(path):
    """{instance uuid: (schedule start, host selected)} from
    nova-scheduler's log.
    """
    started, found = {}, {}
    for stamp, line in _lines(path):
        match = SCHEDULE_START.search(line)
        if match:
            started[match.group(1)] = stamp
            continue
        if SELECTED in line:
            match = INSTANCE.search(line)
            if match and match.group(1) in started:
                found[match.group(1)] = (started[match.group(1)], stamp)
    return found


def compute_times(path):
    """{instance uuid: {'claimed', 'spawn_start', 'spawn_end' and, from the
    Zynq driver, 'transfer', 'load'}} from a nova-compute's log.
    """
    found = {}
    for stamp, line in _lines(path):
        match = INSTANCE.search(line)
        if not match:
            continue
        fields = found.setdefault(match.group(1), {})
        took = SPAWN_TOOK.search(line)
        timing = SPAWN_TIMING.search(line)
        if CLAIMED in line:
            fields['claimed'] = stamp
        elif took:
            fields['spawn_end'] = stamp
            fields['spawn_start'] = stamp - float(took.group(1))
        elif timing:
            fields.update({k: float(v) for k, v in timing.groupdict().items()})
    return found


def periodic_runs(path, since=0.0):
    """[(seconds, nodes updated, {part: seconds summed over its nodes})] of
    the complete periodic resource updates a nova-compute logged, started
    after since.
    """
    runs, start, last, nodes, parts, prev = [], None, None, 0, {}, None
    for stamp, line in _lines(path):
        if PERIODIC in line:
            if start is not None and start >= since and last is not None:
                runs.append((last - start, nodes, parts))
            start, last, nodes, parts, prev = stamp, None, 0, {}, None
            continue
        if start is None:
            continue
        if NODE_STEPS[-1][0] in line:
            last, nodes = stamp, nodes + 1
        for marker, part in NODE_STEPS:
            if marker in line:
                if part is not None and prev is not None:
                    parts[part] = parts.get(part, 0.0) + stamp - prev
                prev = stamp
    return runs
