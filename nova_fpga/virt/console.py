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

"""The console log of a region server: the agent's log of that server in its
region and the module's counters, as text (there is no serial console in a
region).

How counters are shown comes from the module catalogue: the common block's
in the first line, a module's array counters as a table with a row per
label (the vTC's traffic classes; its applications, those counted only),
its other counters in a line.
"""


def _module_id(stats):
    try:
        return int(stats.module_id or '', 16)
    except ValueError:
        return None


def _cell(counters, counter, label):
    name = counter.name.format(label=label)
    if name in counters:
        return counters[name]
    pair = counter.derived.get(label)
    if pair and all(n in counters for n in pair):
        return counters[pair[0]] - counters[pair[1]]
    return '-'


def _counted(row):
    return any(isinstance(cell, int) and cell for cell in row[1:])


def _table(counters, labels, columns):
    """Lines of one array table and the counter names it shows (a label set
    whose rows are 'counted' shows the labels with a count only).
    """
    rows = [[label] + [_cell(counters, c, label) for c in columns]
            for label in labels.names]
    left_out = 0
    if labels.rows == 'counted':
        # rows with a counter (not all '-': the element no register holds)
        read = [row for row in rows
                if any(isinstance(cell, int) for cell in row[1:])]
        rows = [row for row in read if _counted(row)]
        left_out = len(read) - len(rows)
    head = [labels.heading] + [c.column for c in columns]
    widths = [max(len(str(row[i])) for row in rows + [head])
              for i in range(len(head))]
    widths[0] = max(widths[0], 10)

    def line(row):
        return '  ' + ' '.join(['%-*s' % (widths[0], row[0])] + [
            '%*s' % (max(w, 8), cell) for w, cell in zip(widths[1:],
                                                         row[1:])])
    shown = {c.name.format(label=label) for c in columns
             for label in labels.names}
    lines = ['%s:' % labels.title, line(head)] + [line(r) for r in rows]
    if left_out:
        lines.append('  (%d more: none counted)' % left_out)
    return lines, shown


def _module_lines(counters, module):
    lines, shown = [], set()
    tables = {}
    for counter in module.counters:
        labels = counter.register.labels
        if labels is not None:
            tables.setdefault(labels.key, (labels, []))[1].append(counter)
    for labels, columns in tables.values():
        table, names = _table(counters, labels, columns)
        if names & set(counters):
            lines += table
            shown |= names
    scalars = [c.name for c in module.counters
               if c.register.labels is None and c.name in counters]
    if scalars:
        lines.append('  ' + ', '.join('%s %d' % (name.replace('_', ' '),
                                                 counters[name])
                                      for name in scalars))
    return lines, shown | set(scalars)


def render(board, stats, module_catalogue):
    """The console text of a region from the agent's ``stats`` answer (a
    RegionStats: the server's own lines and counters).
    """
    lines = ['board %s region %s: %s, module %s'
             % (board, stats.region, stats.state, stats.module_id)]
    if stats.board_unfit:
        lines.append('held off the shell (decoupled, module in reset) '
                     'while the board is unfit: %s' % stats.board_unfit)
    lines += stats.log
    counters = stats.module or {}
    if counters:
        common = [c.name for c in module_catalogue.common.counters]
        lines.append('module counters: ' + ', '.join(
            '%s %s' % (name, counters.get(name)) for name in common))
        shown = set(common)
        module = module_catalogue.get(_module_id(stats))
        if module is not None:
            own, names = _module_lines(counters, module)
            lines += own
            shown |= names
        lines += ['  %s = %s' % (k, v) for k, v in sorted(counters.items())
                  if k not in shown]
    dataplane = stats.dataplane
    if dataplane:
        lines.append('data plane counters:')
        lines += ['  %s = %s' % (k, v) for k, v in sorted(dataplane.items())]
    return '\n'.join(lines) + '\n'
