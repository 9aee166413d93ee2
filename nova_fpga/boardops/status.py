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

"""What nova-fpga-manage board list/show print: each board as its agent
describes it (backend, shell, temperature, cached bitstreams, regions) and
as placement holds it (drained, each region reserved and used).

The agents are asked with the driver's own client and nova.conf's [zynq]
options, so the command sees exactly the boards nova-compute sees, over
the same bus, vhosts and TLS settings.  A board that does not answer is
shown as such, with placement's side still there: an operator draining a
dead board needs both.
"""
import dataclasses

from nova_fpga.boardops import drain
from nova_fpga.contract import placement
from nova_fpga.contract import reports
from nova_fpga.virt import boards as zboards


@dataclasses.dataclass
class BoardStatus:
    name: str
    #: the agent's describe answer (a BoardReport), None when it did not
    #: answer
    report: reports.BoardReport = None
    #: why there is no report
    agent_error: str = None
    #: placement's drained mark (None: placement has no such board)
    drained: bool = None
    #: region name -> {'reserved': n, 'used': n} from placement
    placement: dict = dataclasses.field(default_factory=dict)
    placement_error: str = None

    def to_dict(self):
        report = self.report
        regions = {r.name: r for r in (report.regions if report else [])}
        names = sorted(set(regions) | set(self.placement))
        return {
            'board': self.name,
            'agent': 'up' if report else self.agent_error,
            'backend': report and report.backend,
            'shell_id': report and report.shell_id,
            'shell_version': report and report.shell_version,
            'device': report and report.device,
            'temperature': report and report.temperature,
            'unfit': report and report.unfit,
            # [agent] require_signed_bitstreams (None: an agent older
            # than API 1.5, or silent)
            'signed_only': report and report.signed_only,
            'cached': [{'image_id': c.image_id, 'sha256': c.sha256}
                       for c in (report.cached if report else [])],
            'drained': self.drained,
            'placement': self.placement_error or 'ok',
            'regions': [dict(
                name=name,
                state=getattr(regions.get(name), 'state', None),
                instance_uuid=getattr(regions.get(name), 'instance_uuid',
                                      None),
                image_id=getattr(regions.get(name), 'image_id', None),
                error=getattr(regions.get(name), 'error', None),
                **self.placement.get(name, {})) for name in names],
        }


def ask_agent(clients, status):
    try:
        status.report = reports.BoardReport.from_dict(
            clients.describe({}, status.name))
    except zboards.UNREACHABLE as exc:
        status.agent_error = 'no answer (%s)' % type(exc).__name__
    except Exception as exc:  # an agent's refusal, whatever its class
        status.agent_error = 'error: %s' % zboards.agent_error_text(exc)


def ask_placement(api, status):
    try:
        root = api.root(status.name)
        status.drained = api.is_drained(root)
        for rp in api.tree(root):
            if rp['uuid'] == root['uuid']:
                continue
            region = rp['name'][len(placement.region_provider_name(
                status.name, '')):]
            inventory = api.inventories(rp['uuid'])['inventories'].get(
                placement.REGION_RESOURCE_CLASS, {})
            status.placement[region] = {
                'reserved': inventory.get('reserved'),
                'used': api.usages(rp['uuid']).get(
                    placement.REGION_RESOURCE_CLASS, 0)}
    except drain.PlacementError as exc:
        status.placement_error = str(exc)


def collect(names, clients, api):
    """[BoardStatus] of the named boards, agents and placement asked."""
    found = []
    for name in names:
        status = BoardStatus(name)
        ask_agent(clients, status)
        ask_placement(api, status)
        found.append(status)
    return found


def _region_line(region):
    held = region['instance_uuid']
    parts = ['%-6s %-9s' % (region['name'], region['state'] or '?')]
    if held:
        parts.append('server %s image %s' % (held, region['image_id']))
    if region['error']:
        parts.append('error: %s' % region['error'])
    if 'reserved' in region:
        parts.append('placement: reserved %s, used %s'
                     % (region['reserved'], region['used']))
    return '    ' + '  '.join(parts)


def show_text(board):
    """Lines describing one board (a to_dict()), for board show."""
    temperature = board['temperature']
    lines = [
        'board %s' % board['board'],
        '  agent:       %s' % board['agent'],
        '  backend:     %s' % (board['backend'] or '-'),
        '  shell:       %s (version %s, device %s)' % (
            board['shell_id'], board['shell_version'], board['device'])
        if board['shell_id'] else '  shell:       -',
        '  temperature: %s' % ('%.1f C' % temperature
                               if temperature is not None else '-'),
        '  fit:         %s' % ('no: %s' % board['unfit']
                               if board['unfit'] else 'yes'),
        '  drained:     %s' % {True: 'yes', False: 'no',
                               None: 'unknown'}[board['drained']],
        '  bitstreams:  %s' % {
            True: 'signed only (unsigned ones refused)',
            False: 'signed and unsigned (signatures verified)',
            None: '-'}[board.get('signed_only')],
        '  placement:   %s' % board['placement'],
        '  cached bitstreams:',
    ]
    lines += ['    image %s sha256 %s' % (c['image_id'], c['sha256'])
              for c in board['cached']] or ['    none']
    lines.append('  regions:')
    lines += [_region_line(r) for r in board['regions']]
    return lines


def list_text(found):
    """A table of boards (to_dict()s), for board list."""
    rows = [('BOARD', 'AGENT', 'BACKEND', 'SHELL', 'TEMP', 'CACHED', 'DRAINED',
             'REGIONS')]
    for board in found:
        rows.append((
            board['board'], board['agent'], board['backend'] or '-',
            board['shell_id'] or '-',
            '%.1f' % board['temperature']
            if board['temperature'] is not None else '-',
            str(len(board['cached'])),
            {True: 'yes', False: 'no', None: '?'}[board['drained']],
            ' '.join('%s=%s' % (r['name'], r['state'] or '?')
                     for r in board['regions'])))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ['  '.join(cell.ljust(width) for cell, width in
                      zip(row, widths)).rstrip() for row in rows]
