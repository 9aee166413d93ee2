"""The console log of a region server: the agent's log for that region and
the module's counters, as text (there is no serial console in a region)."""


def render(board, stats):
    lines = ['board %s region %s: %s, module %s'
             % (board, stats['region'], stats['state'], stats['module_id'])]
    lines += stats.get('log', [])
    for title, counters in (('module counters', stats.get('module')),
                            ('data plane counters', stats.get('dataplane'))):
        if counters:
            lines.append('%s:' % title)
            lines += ['  %s = %s' % (k, v) for k, v in sorted(counters.items())]
    return '\n'.join(lines) + '\n'
