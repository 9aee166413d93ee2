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

"""Persistence: the regions' states and the one writer of the state file.

Every state change is written (state.StateStore: atomically) before the
hardware is touched further, so an agent killed at any step restarts
knowing where it was.  The regions are what the hardware now does, so a
file that cannot be written does not undo them: the board reports it
(``unsaved``), takes no load (``claim``) and writes the file again at every
save and report (``save_pending``) until the directory takes it.
"""
import dataclasses
import threading
import time

from oslo_log import log as logging

from nova_fpga.contract import agent_api as api
from nova_fpga.contract import states
from nova_fpga_agent import state as st

LOG = logging.getLogger(__name__)


class RegionRecords:
    """Region name -> state.RegionState, kept in the state file.

    ``on_save`` is called after every save, under its lock, with the
    states just written (the data plane is programmed from them).
    """

    def __init__(self, store, region_names, board_name,
                 on_save=lambda: None):
        self.store = store
        self.names = list(region_names)
        self.board_name = board_name
        self.on_save = on_save
        self.states = {}
        #: why the state file is behind the regions (its directory full or
        #: read-only); None: it is current
        self.unsaved = None
        self._lock = threading.Lock()

    def load(self):
        """Read the saved states (a file that cannot be read leaves every
        region FAILED until it is unloaded).
        """
        try:
            self.states = self.store.load(self.names)
        except st.StateCorrupt as exc:
            LOG.error('%s; every region is decoupled and marked FAILED until '
                      'it is unloaded', exc)
            self.states = {n: st.RegionState(
                n, states.FAILED, error='state lost: %s' % exc)
                for n in self.names}
        return self.states

    def save(self):
        """Write the state file, then call on_save."""
        with self._lock:
            try:
                self.store.save(self.states)
            except OSError as exc:
                why = 'region state cannot be saved in %s: %s' % (
                    self.store.state_dir, exc)
                if why != self.unsaved:
                    LOG.error('%s; the board takes no load until it can',
                              why)
                self.unsaved = why
            else:
                if self.unsaved is not None:
                    LOG.info('region state saved again in %s',
                             self.store.state_dir)
                self.unsaved = None
            self.on_save()

    def save_pending(self):
        """Write the state file again if it is behind; whether it was."""
        if self.unsaved is None:
            return False
        self.save()
        return True

    def set(self, rs, **changes):
        for key, value in changes.items():
            setattr(rs, key, value)
        rs.updated_at = time.time()
        self.save()

    def claim(self, rs, **changes):
        """set() for a region taken for an instance: recorded before
        anything is done, or not taken at all.

        :raises api.StateNotSaved: the state file cannot be written.
        """
        before = dataclasses.replace(rs)
        self.set(rs, **changes)
        if self.unsaved is not None:
            vars(rs).update(vars(before))
            self.save()
            raise api.StateNotSaved('board %s cannot take region %s: %s'
                                    % (self.board_name, rs.region,
                                       self.unsaved))


def free(rs):
    """Forget what the region held (the caller saves)."""
    rs.state = states.FREE
    rs.instance_uuid = rs.image_id = rs.sha256 = None
    rs.module_id = rs.step = rs.error = rs.network = None
    rs.settings = None
