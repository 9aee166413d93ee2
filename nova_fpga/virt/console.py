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

"""The console log of a region server: the agent's log for that region and
the module's counters, as text (there is no serial console in a region).
A traffic classifier's counters are shown as a table per class."""

#: counters of the vTC that are not per class, in the order shown
VTC_FLOW_COUNTERS = ('flows_seen', 'flows_classified', 'flow_table_occupancy',
                     'flow_insertions', 'flow_evictions',
                     'flow_failed_insertions', 'unparsed_frames',
                     'oversize_frames')


def _classes(counters):
    return [name[:-len('_packets')] for name in counters
            if name.endswith('_packets')]


def _flows(counters, klass):
    # the vTC has no counter for unknown's flows: those seen but never
    # classified
    if klass == 'unknown':
        return counters['flows_seen'] - counters['flows_classified']
    return counters['%s_flows' % klass]


def _class_table(counters):
    classes = _classes(counters)
    with_flows = all('%s_flows' % c in counters for c in classes
                     if c != 'unknown')
    head = '  %-11s' % 'class' + (' %8s' % 'flows' if with_flows else '') + \
        ' %10s %14s' % ('packets', 'bytes')
    lines = ['traffic classes:', head]
    for c in classes:
        lines.append('  %-11s' % c
                     + (' %8d' % _flows(counters, c) if with_flows
                        else '')
                     + ' %10d %14d' % (counters['%s_packets' % c],
                                       counters['%s_bytes' % c]))
    shown = {'frames', 'bytes'} | {'%s_%s' % (c, kind) for c in classes
                                   for kind in ('packets', 'bytes', 'flows')}
    lines.append('  ' + ', '.join('%s %d' % (name.replace('_', ' '),
                                             counters[name])
                                  for name in VTC_FLOW_COUNTERS
                                  if name in counters))
    shown.update(VTC_FLOW_COUNTERS)
    return lines, shown


def render(board, stats):
    lines = ['board %s region %s: %s, module %s'
             % (board, stats['region'], stats['state'], stats['module_id'])]
    lines += stats.get('log', [])
    module = stats.get('module') or {}
    if module:
        lines.append('module counters: frames %s, bytes %s'
                     % (module.get('frames'), module.get('bytes')))
        shown = {'frames', 'bytes'}
        if _classes(module):
            table, shown = _class_table(module)
            lines += table
        lines += ['  %s = %s' % (k, v) for k, v in sorted(module.items())
                  if k not in shown]
    dataplane = stats.get('dataplane')
    if dataplane:
        lines.append('data plane counters:')
        lines += ['  %s = %s' % (k, v) for k, v in sorted(dataplane.items())]
    return '\n'.join(lines) + '\n'
