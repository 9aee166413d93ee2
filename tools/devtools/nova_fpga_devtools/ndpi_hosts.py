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

"""The vTC's application table, made from nDPI's own host list.

    python -m nova_fpga_devtools.ndpi_hosts NDPI_CHECKOUT

NDPI_CHECKOUT is a checkout of github.com/ntop/nDPI (a work tree, or any
directory holding ``src/lib/ndpi_content_match.c.inc``).  Every pattern of
its ``host_match[]`` whose nDPI application is one of APPLICATIONS becomes
an entry of ``nova_fpga/catalogue/vtc_applications.toml``, in nDPI's own
terms (ac_domain_match_handler in nDPI's ndpi_main.c):

- a pattern that ends in a letter or digit (``netflix.com``) is a
  **suffix**: it names a host that is the pattern or ends in ``.`` and the
  pattern, whole labels only;
- a pattern that ends in a dot (``youtube.``) is a **label**: it names a
  host with that label (or those labels) followed by more, at its start or
  after a dot.

Patterns the vTC cannot hold as whole labels (ending or starting in ``-``,
a label entry of more than two labels) are left out, each listed in the
file with its reason.  The patterns of applications not chosen that the
chosen ones would name (``maps.google.com``, GoogleMaps's, under Google's
``google.com``; a label entry followed by ``.com``, ``.net``, ``.org`` or
one more label) go in as ``others``: they name no application, as nDPI
would not name Google there.  Run again on the same checkout, it writes the
same file.
"""
import argparse
import pathlib
import re
import subprocess
import sys

# the application table and the name matcher's model: what is left out is
# what the table cannot load
from nova_fpga.catalogue import applications as app_table

TABLE = app_table.TABLE_FILE
SOURCE = pathlib.Path('src/lib/ndpi_content_match.c.inc')

#: nDPI's application names the table takes, in the order of the vTC's
#: application numbers (1..): the issue's list first, then the other
#: applications nDPI names in the project's captures.  The vTC's name of an
#: application is nDPI's, lower case.
APPLICATIONS = (
    'YouTube', 'NetFlix', 'Google', 'GoogleServices', 'Facebook',
    'Instagram', 'WhatsApp', 'FacebookMessenger', 'Twitter', 'Amazon',
    'AmazonAWS', 'AmazonVideo', 'Microsoft', 'Microsoft365', 'Teams',
    'Skype_Teams', 'Apple', 'AppleiCloud', 'AppleiTunes', 'ApplePush',
    'Zoom', 'Spotify', 'Twitch', 'Telegram', 'TikTok', 'DropBox', 'Steam',
    # named in the project's captures
    'Cloudflare', 'Snapchat', 'Pluralsight', 'Dazn', 'Wikipedia',
    'GoogleMeet', 'GoogleChat', 'Salesforce', 'Zattoo', 'ntop',
)
_ENTRY = re.compile(r'\{\s*"([^"]+)"\s*,\s*"([^"]+)"\s*,\s*NDPI_PROTOCOL_\w+')
_HOST_CHARS = re.compile(r'[a-z0-9_-]+(\.[a-z0-9_-]+)*')


def host_match(text):
    """[(pattern, nDPI application)] of host_match[] in nDPI's content
    match file, in its order.
    """
    start = text.index('static ndpi_protocol_match host_match[]')
    end = text.index('};', start)
    return _ENTRY.findall(text[start:end])


def entry(pattern):
    """('suffix' | 'label', whole labels) of one nDPI pattern, or (None,
    reason) when the vTC cannot hold it.
    """
    value = pattern.lower()
    kind = 'suffix'
    if value.endswith('.'):
        kind, value = 'label', value[:-1]
    if value.startswith('-') or value.endswith('-'):
        return None, 'a part of a label (%r), not whole labels' % pattern
    if value.startswith('.'):
        value = value[1:]
    if not _HOST_CHARS.fullmatch(value):
        return None, 'not a host name (%r)' % pattern
    if kind == app_table.LABEL and \
            value.count('.') >= app_table.LABEL_ENTRY_LABELS:
        return None, 'a label entry of more than %d labels (%r)' % (
            app_table.LABEL_ENTRY_LABELS, pattern)
    return kind, value


#: what follows a label entry in the host names tried for it (others)
LABEL_FOLLOWERS = ('com', 'net', 'org', 'x')


def _examples(kind, value):
    """Host names the entry names (a label entry: followed by one more
    label, LABEL_FOLLOWERS).
    """
    if kind == app_table.LABEL:
        return [value + '.' + after for after in LABEL_FOLLOWERS]
    return [value]


def table(text, applications=APPLICATIONS):
    """{'applications': [{name, ndpi, suffixes, labels}], 'others':
    {suffixes, labels}, 'left_out': [{pattern, ndpi, reason}], 'missing':
    [applications host_match[] has no pattern of]}, the applications in
    their order.
    """
    chosen = {name: {'name': name.lower(), 'ndpi': name, 'suffixes': [],
                     'labels': []} for name in applications}
    left_out = []
    seen = {}
    for pattern, ndpi in host_match(text):
        if ndpi not in chosen:
            continue
        kind, value = entry(pattern)
        if kind is None:
            left_out.append({'pattern': pattern, 'ndpi': ndpi,
                             'reason': value})
            continue
        if (kind, value) in seen:
            if seen[kind, value] != ndpi:
                left_out.append({'pattern': pattern, 'ndpi': ndpi,
                                 'reason': 'also %s\'s; nDPI takes the '
                                           'first' % seen[kind, value]})
            continue
        seen[kind, value] = ndpi
        chosen[ndpi]['suffixes' if kind == 'suffix' else 'labels'].append(
            value)
    missing = [name for name, app in chosen.items()
               if not app['suffixes'] and not app['labels']]
    ordered = [chosen[name] for name in applications]
    named = app_table.Table().load(ordered)
    others = {'suffixes': [], 'labels': []}
    for pattern, ndpi in host_match(text):
        if ndpi in chosen:
            continue
        kind, value = entry(pattern)
        if kind is None or (kind, value) in seen:
            continue
        if any(named.lookup(host.encode())
               for host in _examples(kind, value)):
            seen[kind, value] = ndpi
            others['suffixes' if kind == 'suffix' else 'labels'].append(
                value)
    return {'applications': ordered, 'others': others,
            'left_out': left_out, 'missing': missing}


def _list(values):
    return '[%s]' % ', '.join('"%s"' % value for value in values)


def toml(made, source):
    """The table as the catalogue's TOML text."""
    lines = [
        '# The vTC\'s application table (hdl/README.md, "Applications"):',
        '# application number i + 1 is applications[i]; a host name',
        '# ending in one of its suffixes (whole labels) or holding one of',
        '# its labels followed by more names it.  Generated by',
        '# `python -m nova_fpga_devtools.ndpi_hosts NDPI_CHECKOUT` from',
        '# %s; do not edit.' % source,
        'source = "%s"' % source,
    ]
    for app in made['applications']:
        lines += ['', '[[applications]]', 'name = "%s"' % app['name'],
                  'ndpi = "%s"' % app['ndpi'],
                  'suffixes = %s' % _list(app['suffixes']),
                  'labels = %s' % _list(app['labels'])]
    lines += ['', '# names of applications not in the table that an entry',
              '# above would take: they name none', '[others]',
              'suffixes = %s' % _list(made['others']['suffixes']),
              'labels = %s' % _list(made['others']['labels'])]
    for left in made['left_out']:
        lines += ['', '[[left_out]]', 'pattern = "%s"' % left['pattern'],
                  'ndpi = "%s"' % left['ndpi'],
                  'reason = "%s"' % left['reason'].replace('"', "'")]
    return '\n'.join(lines) + '\n'


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('checkout', type=pathlib.Path,
                        help='a checkout of github.com/ntop/nDPI')
    parser.add_argument('--output', type=pathlib.Path, default=TABLE)
    args = parser.parse_args(argv)
    path = args.checkout / SOURCE
    commit = subprocess.run(
        ['git', '-C', str(args.checkout), 'rev-parse', 'HEAD'],
        capture_output=True, text=True).stdout.strip()
    source = 'nDPI %s %s host_match[]' % (commit[:7] or '(no git)', SOURCE)
    made = table(path.read_text(encoding='utf-8', errors='replace'))
    if made['missing']:
        parser.error('no host pattern of %s in %s host_match[]' % (
            ', '.join(made['missing']), path))
    args.output.write_text(toml(made, source))
    print('%s: %d applications, %d names, %d patterns left out' % (
        args.output, len(made['applications']),
        sum(len(a['suffixes']) + len(a['labels'])
            for a in made['applications']), len(made['left_out'])))
    return 0


if __name__ == '__main__':
    sys.exit(main())
