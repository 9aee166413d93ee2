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

"""Region locking, as ironic's conductor takes a node for a task.

Every operation on a region holds that region's lock: a second one is
refused as busy, not queued behind a load that may take seconds
(``acquire``); only the watchdog's hold waits for the operation in
progress (``wait``).  The task names the region and its state, checked
to exist and, for an instance's operation, to be held by it.
"""
import contextlib
import threading
import uuid

from nova_fpga.contract import agent_api as api
from nova_fpga.contract import states


class RegionLocks:
    """One lock per region of the shell."""

    def __init__(self, manifest):
        self.by_region = {r.name: threading.Lock() for r in manifest.regions}

    def __getitem__(self, region):
        return self.by_region[region]


class Task:
    """One operation's hold on a region."""

    def __init__(self, manager, region):
        self.manager = manager
        self.region = region
        self.spec = manager.manifest.region(region)

    @property
    def rs(self):
        """The region's state (state.RegionState)."""
        return self.manager.states[self.region]


@contextlib.contextmanager
def acquire(manager, region):
    """The region's Task, its lock held; once released, the manager's
    ``changed`` is called (the region may have changed).

    :raises api.RegionBusy: another operation holds the region.
    """
    lock = manager.locks[region]
    if not lock.acquire(blocking=False):
        raise api.RegionBusy('region %s is busy: another operation is in '
                             'progress' % region)
    try:
        yield Task(manager, region)
    finally:
        lock.release()
        manager.changed()


@contextlib.contextmanager
def wait(manager, region):
    """The region's Task once the operation in progress is over."""
    with manager.locks[region]:
        yield Task(manager, region)


def region_spec(manifest, board_name, name):
    """The manifest's region by name (a request names it)."""
    if not isinstance(name, str):
        raise api.InvalidRequest('region must be a name')
    try:
        return manifest.region(name)
    except KeyError:
        raise api.InvalidRequest('board %s has no region %r (it has %s)'
                                 % (board_name, name, ', '.join(
                                     r.name for r in manifest.regions)))


def canonical_uuid(value):
    """value when it is a UUID in its canonical text form; ValueError
    otherwise.
    """
    if not isinstance(value, str) or str(uuid.UUID(value)) != value:
        raise ValueError(value)
    return value


def instance(instance_uuid):
    """An instance UUID as nova writes it (lower-case, hyphenated):
    uuid.UUID alone takes braces, 'urn:uuid:', blanks, underscores and,
    through str(), a 32-digit integer.
    """
    try:
        return canonical_uuid(instance_uuid)
    except ValueError:
        raise api.InvalidRequest('instance %r is not a UUID'
                                 % (instance_uuid,))


def held(rs, instance, lost_ok=True):
    """Refuse an instance that does not hold the region.

    lost_ok: a FAILED region whose state was lost is anyone's to clear
    (not anyone's to read).
    """
    if lost_ok and rs.state == states.FAILED and rs.instance_uuid is None:
        return
    if rs.instance_uuid != instance:
        raise api.RegionNotHeld('region %s is not held by instance %s'
                                % (rs.region, instance))
