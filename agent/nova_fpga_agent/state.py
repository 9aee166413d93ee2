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

"""Region state on the board, kept across agent restarts.

One JSON file in the state directory, rewritten atomically (write a
temporary file, fsync, rename, fsync the directory): a crash leaves the old
file or the new one, never half of either.  A file that cannot be read is
moved aside (never deleted: it is evidence) and reported, so a corrupted
file cannot make the agent crash at every start.
"""
import dataclasses
import json
import os
import time

from oslo_log import log as logging

from nova_fpga.contract import network as net
from nova_fpga.contract import states

LOG = logging.getLogger(__name__)

FILE_NAME = 'regions.json'
#: 2 added each region's network (the VLANs of its ports), 3 its module's
#: tenant settings
FORMAT_VERSION = 3
#: versions this agent reads (a region of a version 1 file has no network,
#: one of a version 1 or 2 file no settings)
READS_VERSIONS = (1, 2, FORMAT_VERSION)


class StateCorrupt(Exception):
    """The state file could not be read; it was moved to ``quarantined``."""

    def __init__(self, message, quarantined):
        super().__init__(message)
        self.quarantined = quarantined


@dataclasses.dataclass
class RegionState:
    region: str
    state: str = states.FREE
    instance_uuid: str = None
    image_id: str = None
    sha256: str = None
    module_id: int = None
    step: str = None        # the load step reached, while LOADING
    error: str = None       # why the region is FAILED
    updated_at: float = 0.0
    #: network.RegionNetwork.to_dict() of the region's ports; None: the
    #: manifest's VLAN (a server without ports)
    network: dict = None
    #: {server property: number} of the module's tenant settings (checked
    #: against the catalogue where they are written); None: none
    settings: dict = None

    def to_dict(self):
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data):
        fields = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - fields
        if unknown or data.get('state') not in states.STATES:
            raise ValueError('bad region record %r' % (data,))
        if data.get('network') is not None:
            net.RegionNetwork.from_dict(data['network'])
        if not isinstance(data.get('settings') or {}, dict):
            raise ValueError('bad settings in region record %r' % (data,))
        return cls(**data)


class StateStore:
    def __init__(self, state_dir):
        self.state_dir = state_dir
        self.path = os.path.join(state_dir, FILE_NAME)
        os.makedirs(state_dir, mode=0o700, exist_ok=True)

    def load(self, region_names):
        """Each region's state; regions absent from the file are FREE.

        :raises StateCorrupt: the file was unreadable and is quarantined.
        """
        states = {name: RegionState(name) for name in region_names}
        try:
            with open(self.path, encoding='utf-8') as f:
                data = json.load(f)
            if data.get('version') not in READS_VERSIONS:
                raise ValueError('unknown format version %r'
                                 % data.get('version'))
            for record in data['regions']:
                state = RegionState.from_dict(record)
                if state.region in states:
                    states[state.region] = state
                else:
                    LOG.warning('state file names region %s, which the '
                                'shell does not have; ignored', state.region)
        except FileNotFoundError:
            return states
        except (OSError, ValueError, KeyError, TypeError,
                AttributeError) as exc:
            quarantined = '%s.corrupt-%d' % (self.path, int(time.time()))
            os.replace(self.path, quarantined)
            raise StateCorrupt('region state file %s is unreadable (%s); '
                               'moved to %s' % (self.path, exc, quarantined),
                               quarantined)
        return states

    def save(self, states):
        data = {'version': FORMAT_VERSION,
                'regions': [s.to_dict() for s in states.values()]}
        tmp = self.path + '.tmp'
        try:
            with open(tmp, 'w', encoding='utf-8') as f:
                json.dump(data, f, indent=1, sort_keys=True)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except OSError:
            # a full filesystem keeps no half-written copy
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        fd = os.open(self.state_dir, os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
