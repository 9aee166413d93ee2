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

"""Copy nDPI's own test captures, with nDPI's verdicts, into the real data.

    python -m nova_fpga_devtools.ndpi_captures NDPI_CHECKOUT

NDPI_CHECKOUT is a checkout of github.com/ntop/nDPI (a work tree, or any
directory holding its ``tests/cfgs/default/pcap`` and ``result`` folders).
Every capture of the default configuration of SIZE_LIMIT bytes or less that
is not already in pcaps/ndpi or pcaps/ndpi-more, that the capture reader
turns into Ethernet frames and whose .out file reads, is copied with its
.out into one of two folders, chosen by a hash of its name (not by what it
holds):

- ``pcaps/ndpi-tuning``: what the vTC's signatures may be tuned on;
- ``pcaps/ndpi-heldout``: HELD_OUT_SHARE of them, which no rule may be
  tuned on (the accuracy benchmark prints both apart).

Captures looked at one by one while rules were chosen (TUNED_ON) are put in
the tuning folder whatever their hash says.  Each folder gets nDPI's licence
and a PROVENANCE.md with every file's size and sha256, and every capture
left out with the reason.  Run again on the same checkout, it writes the
same files.
"""
import argparse
import hashlib
import pathlib
import shutil
import subprocess
import sys

import nova_fpga_devtools
from nova_fpga_devtools import captures

# the accuracy harness's own list reader and folder names (hdl/tests holds
# the cocotb suites' helpers, not a package), so what is copied is what the
# harness reads
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]
                       / 'hdl' / 'tests'))
import vtc_captures  # noqa: E402

SIZE_LIMIT = 32 * 1024
#: the share of captures held out (by the first hex digit of the sha256 of
#: the capture's file name: 0..3 of 0..f)
HELD_OUT_DIGITS = '0123'
HELD_OUT_SHARE = len(HELD_OUT_DIGITS) / 16
TUNING, HELD_OUT = vtc_captures.TUNING_FOLDER, vtc_captures.HELD_OUT_FOLDER
EXISTING = tuple(folder for folder in vtc_captures.NDPI_FOLDERS
                 if folder not in (TUNING, HELD_OUT))
#: captures whose payloads were read while the signatures were narrowed
#: (2026-11-29): they belong to the tuning folder
TUNED_ON = frozenset((
    'hart_ip.pcap', 'heuristic_tcp_ack_payload.pcap', 'http-proxy.pcapng',
    'mysql.pcapng', 'nats.pcap',
    'pgsql2.pcapng', 'quic-mvfst-22_decryption_error.pcap', 'quic_sh.pcap',
    'radius_false_positive.pcapng', 'rdp.pcap', 'rdp_over_tls.pcap',
    'soap.pcap', 'socks.pcap', 'stomp.pcapng', 'tls_change_cipher.pcap',
    'tls_invalid_reads.pcap', 'wireguard.pcap', 'gquic_only_from_server.pcap',
))
LICENCE = 'COPYING'
#: in the name of nDPI's fuzzer seeds and fuzzed captures (made-up traffic)
SYNTHETIC = 'fuzz'


def folder_for(name):
    """The folder a capture goes to, by its name alone."""
    if name in TUNED_ON:
        return TUNING
    digest = hashlib.sha256(name.encode()).hexdigest()
    return HELD_OUT if digest[0] in HELD_OUT_DIGITS else TUNING


def _readable(capture, out):
    """None, or why the capture is left out."""
    try:
        captures.read_capture(capture)
    except captures.CaptureError as exc:
        return str(exc).replace(str(capture.parent) + '/', '')
    try:
        vtc_captures.ndpi_flows(out)
    except (ValueError, UnicodeDecodeError) as exc:
        return 'its .out does not read: %s' % exc
    return None


def _commit(checkout):
    try:
        return subprocess.run(
            ['git', '-C', str(checkout), 'rev-parse', 'HEAD'], check=True,
            capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return 'unknown'


def select(checkout):
    """{folder: [capture names]}, and [(name, reason)] left out."""
    default = checkout / 'tests' / 'cfgs' / 'default'
    have = {p.name for folder in EXISTING
            for p in (nova_fpga_devtools.REALDATA / 'pcaps' / folder)
            .iterdir()}
    chosen = {TUNING: [], HELD_OUT: []}
    left_out = []
    for capture in sorted((default / 'pcap').iterdir(), key=lambda p: p.name):
        name = capture.name
        if (capture.suffix not in vtc_captures.CAPTURE_SUFFIXES
                or capture.stat().st_size > SIZE_LIMIT or name in have):
            continue
        out = default / 'result' / (name + '.out')
        if SYNTHETIC in name:
            why = 'a fuzzer\'s input, not captured traffic'
        elif not out.is_file():
            why = 'nDPI has no result for it'
        else:
            why = _readable(capture, out)
        if why:
            left_out.append((name, why))
        else:
            chosen[folder_for(name)].append(name)
    return chosen, left_out


def _provenance(folder, names, left_out, commit):
    held = folder == HELD_OUT
    lines = [
        '# Provenance: pcaps/%s (test data, LGPL-3.0)' % folder, '',
        ('Held out: no vTC signature may be tuned on these captures; the '
         'accuracy benchmark prints them apart.' if held else
         'The captures the vTC\'s signatures may be tuned on.'),
        '',
        '- Source: public GitHub repository `ntop/nDPI`, commit `%s`, '
        '`tests/cfgs/default/pcap/<f>` and `tests/cfgs/default/result/'
        '<f>.out` (nDPI\'s verdicts with its default configuration).'
        % commit,
        '- Chosen by `python -m nova_fpga_devtools.ndpi_captures`: every '
        'capture of %d bytes or less not in pcaps/ndpi or pcaps/ndpi-more '
        'that reads; held out when the sha256 of its file name starts with '
        '%s (%d %%), except the %d captures read one by one while rules were '
        'chosen (TUNED_ON), which are all in ndpi-tuning.'
        % (SIZE_LIMIT, ', '.join(HELD_OUT_DIGITS), HELD_OUT_SHARE * 100,
           len(TUNED_ON)),
        '- Licence: LGPL-3.0, `%s.nDPI` beside them. Test data, not linked '
        'into nova-fpga\'s code.' % LICENCE,
        '', '## Files', '', '| file | bytes | sha256 |', '|---|---|---|',
    ]
    return lines


def write(checkout, realdata):
    checkout = pathlib.Path(checkout)
    commit = _commit(checkout)
    chosen, left_out = select(checkout)
    default = checkout / 'tests' / 'cfgs' / 'default'
    for folder, names in chosen.items():
        target = realdata / 'pcaps' / folder
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        shutil.copyfile(checkout / LICENCE, target / (LICENCE + '.nDPI'))
        lines = _provenance(folder, names, left_out, commit)
        files = [target / (LICENCE + '.nDPI')]
        for name in names:
            shutil.copyfile(default / 'pcap' / name, target / name)
            shutil.copyfile(default / 'result' / (name + '.out'),
                            target / (name + '.out'))
            files += [target / name, target / (name + '.out')]
        for path in sorted(files, key=lambda p: p.name):
            data = path.read_bytes()
            lines.append('| %s | %d | %s |' % (
                path.name, len(data), hashlib.sha256(data).hexdigest()))
        if folder == TUNING:
            lines += ['', '## Left out (of both folders)', '']
            lines += ['- `%s`: %s' % (name, why) for name, why in left_out]
        (target / 'PROVENANCE.md').write_text('\n'.join(lines) + '\n')
        print('%s: %d captures' % (target, len(names)))
    print('left out: %d' % len(left_out))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('checkout', help='a checkout of ntop/nDPI')
    args = parser.parse_args(argv)
    write(args.checkout, pathlib.Path(nova_fpga_devtools.REALDATA))


if __name__ == '__main__':
    main()
