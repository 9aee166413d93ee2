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

"""What an agent answers: the payloads of the agent API, field by field.

The agent builds these and sends ``to_dict()``; nova-compute reads them back
with ``from_dict()``.  Fields a newer agent adds are ignored by an older
reader (the API version cap covers calls, not answers), fields an older
agent lacks take their defaults.
"""
import dataclasses
import typing

#: A region's data-plane counters (RegionStats.dataplane): frames and
#: bytes steered into the region and sent out of it, and frames it
#: refused (decoupled, or nothing running).
FRAMES_IN = 'frames_in'
BYTES_IN = 'bytes_in'
FRAMES_OUT = 'frames_out'
BYTES_OUT = 'bytes_out'
DROPPED = 'dropped'
DATAPLANE_COUNTERS = (FRAMES_IN, BYTES_IN, FRAMES_OUT, BYTES_OUT, DROPPED)


class _Report:
    def to_dict(self):
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data):
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclasses.dataclass
class RegionReport(_Report):
    """One region: what the shell gives it and what it holds now."""

    name: str
    #: one of nova_fpga.contract.states.STATES
    state: str
    footprint: dict = None
    traits: list = dataclasses.field(default_factory=list)
    vlan: int = None
    decoupled: bool = True
    instance_uuid: str = None
    image_id: str = None
    sha256: str = None
    #: '0x4E460002', 'opaque' (no module declared) or None
    module_id: str = None
    #: why the region is FAILED
    error: str = None
    #: network.RegionNetwork.to_dict() of the server's ports (the VLANs
    #: its frames enter and leave by); None: the manifest's ``vlan``
    network: dict = None
    #: {server property: number}: the tenant's settings of the module's
    #: registers (agent API 1.4); None: none
    settings: dict = None
    #: the agent boot and report sequence number it was described at (see
    #: BoardReport): orders an operation's answer against the reports
    boot_id: str = None
    sequence: int = None


@dataclasses.dataclass
class LoadReport(RegionReport):
    """A load's answer: the region, and where the time went."""

    #: seconds the configuration port took (modelled in the emulator)
    port_seconds: float = 0.0
    #: seconds the agent spent from receiving the call to ready, less those
    agent_seconds: float = 0.0


@dataclasses.dataclass
class CachedBitstream(_Report):
    sha256: str
    image_id: str


@dataclasses.dataclass
class BoardReport(_Report):
    """``describe``: the board, its shell, its regions and its cache.  The
    agents also publish it as their periodic state report.
    """

    board: str
    shell_id: str
    device: str = None
    idcode: str = None
    shell_version: str = None
    backend: str = None
    agent_version: str = None
    api_version: str = None
    #: a new value after every agent start
    boot_id: str = None
    #: when that start was (epoch seconds): orders reports across boots
    booted_at: float = None
    #: numbers every report of a boot (described or published) in the
    #: order it read the regions, so a reader keeps the newest
    sequence: int = None
    regions: typing.List[RegionReport] = dataclasses.field(
        default_factory=list)
    cached: typing.List[CachedBitstream] = dataclasses.field(
        default_factory=list)
    #: why the board takes no servers now and holds every region decoupled
    #: and in reset (its watchdog found it too hot); None: fit (what an
    #: agent older than the watchdog means)
    unfit: str = None
    #: why the board's region state file is behind its regions (the state
    #: directory full or read-only): it takes no load until it can write
    #: it, its running regions go on; None: the file is current
    state_unsaved: str = None
    #: the XADC's last die temperature in degrees Celsius (None: the board
    #: has no XADC the agent reads)
    temperature: float = None
    #: the board loads only signed bitstreams ([agent]
    #: require_signed_bitstreams; None: an agent before API 1.5, which
    #: checks no signature)
    signed_only: bool = None

    @classmethod
    def from_dict(cls, data):
        report = super().from_dict(data)
        report.regions = [RegionReport.from_dict(r) for r in report.regions]
        report.cached = [CachedBitstream.from_dict(c) for c in report.cached]
        return report

    def region(self, name):
        for region in self.regions:
            if region.name == name:
                return region
        return None


@dataclasses.dataclass
class HealthReport(_Report):
    board: str
    status: str
    boot_id: str = None
    uptime: float = 0.0
    #: region name -> state
    regions: dict = dataclasses.field(default_factory=dict)
    #: RPC calls served since the agent started, by method: {'request':
    #: {...}, 'background': {...}} (with a request ID or without one)
    calls: dict = dataclasses.field(default_factory=dict)
    #: frames the data plane dropped since the agent started because
    #: their VLAN was given to no region (None: no data interface)
    unsteered_frames: int = None


@dataclasses.dataclass
class RegionStats(_Report):
    """``stats``: what the instance holding a region may see of it, all
    since its load (its console log and diagnostics).
    """

    region: str
    state: str
    module_id: str = None
    #: counter name -> value, as the module catalogue names them
    module: dict = dataclasses.field(default_factory=dict)
    #: DATAPLANE_COUNTERS -> value ({}: the board has no data interface)
    dataplane: dict = dataclasses.field(default_factory=dict)
    #: the log lines about the instance
    log: list = dataclasses.field(default_factory=list)
    #: BoardReport.unfit: why the region is held off the shell now
    board_unfit: str = None
