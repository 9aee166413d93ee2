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

"""nova-fpga-bitstream: inspect, verify, convert and build Xilinx bitstreams.

An operator's tool: it gives the same verdict Glance gives at upload and
the board agent gives before a load, because it is the same library.  And
a tenant's: wait-import waits for Glance's verdict on an import, which
``openstack image create --import`` does not (it returns before the import
runs, exit 0 whatever its outcome); sign makes the signature properties
of a signed image (doc/source/user/signing.rst).
"""
import argparse
import json
import os
import sys
import tempfile
import time

from nova_fpga.bitstream import builder
from nova_fpga.bitstream import container
from nova_fpga.bitstream import convert
from nova_fpga.bitstream import devices
from nova_fpga.bitstream import errors
from nova_fpga.bitstream import footprint as fp
from nova_fpga.bitstream import validator
from nova_fpga.contract import signature

EXIT_OK, EXIT_FAILED, EXIT_INVALID = 0, 1, 2


def _describe(path, info):
    b = info
    lines = [
        'file:       %s (%d bytes, %s)' % (path, b.size, b.container),
        'design:     %s' % ('%s (tool %s, %s %s)' % (
            b.design, b.tool_version, b.date, b.time)
            if b.container == container.BIT else '(no header)'),
        'device:     %s (%s), IDCODE 0x%08X%s' % (
            b.device.name, b.device.family, b.idcode,
            ', header part %s' % b.header_part if b.header_part else ''),
        'kind:       %s%s' % ('partial' if b.partial else 'full',
                              ' (header says PARTIAL=TRUE)'
                              if b.header_partial else ''),
        'module ID:  %s' % ('0x%08X' % b.module_id if b.module_declared
                            else 'not declared (UserID 0xFFFFFFFF)'),
        'frames:     %d in %d block(s)' % (b.frames,
                                           len(b.footprint.blocks)),
        'footprint:  %s' % b.footprint.signature,
    ]
    for block in b.footprint.blocks:
        lines.append('  %s FAR 0x%08X %8d words  %s' % (
            block.kind, block.far, block.words, block.describe_far()))
    lines += [
        'CRC:        verified (%d check words)' % b.crc_checks,
        'sha256:     %s' % b.sha256,
        'payload:    %d bytes at offset %d' % (b.payload_size,
                                               b.payload_offset),
    ]
    return '\n'.join(lines)


def cmd_inspect(args):
    info = validator.validate_file(args.file)
    if args.json:
        print(json.dumps(dict(info.to_dict(), file=args.file), indent=2))
    else:
        print(_describe(args.file, info))
    return EXIT_OK


def cmd_verify(args):
    info = validator.validate_file(args.file)
    failed = []
    if args.part:
        wanted = devices.by_part(args.part)
        if info.device != wanted:
            failed.append('part: bitstream is for %s, expected %s'
                          % (info.device.name, wanted.name))
    if args.partial and not info.partial:
        failed.append('kind: full bitstream, expected partial')
    if args.footprint and info.footprint.signature != args.footprint.upper():
        failed.append('footprint: %s, expected %s'
                      % (info.footprint.signature, args.footprint.upper()))
    if failed:
        print('FAILED %s: %s' % (args.file, '; '.join(failed)))
        return EXIT_FAILED
    print('OK %s: %s %s, footprint %s, CRC verified' % (
        args.file, info.device.name, 'partial' if info.partial else 'full',
        info.footprint.signature))
    return EXIT_OK


def _write_atomically(path, data):
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix='.tmp-')
    try:
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def cmd_to_bin(args):
    with open(args.file, 'rb') as f:
        data = f.read()
    out = convert.to_bin(data, pcap=not args.plain)
    _write_atomically(args.output, out)
    print('wrote %s: %d bytes, %s' % (
        args.output, len(out),
        'big-endian words' if args.plain else 'byte-swapped for the PCAP'))
    return EXIT_OK


def _load_footprint(path):
    if path.endswith(('.bit', '.bin')):
        return validator.validate_file(path).footprint
    with open(path, encoding='utf-8') as f:
        data = json.load(f)
    if isinstance(data, dict) and 'footprint' in data:
        data = data['footprint']  # the output of inspect --json
    return fp.Footprint.from_dict(data)


def cmd_build(args):
    footprint = _load_footprint(args.footprint)
    data = builder.build_partial(args.part, args.design, args.module_id,
                                 footprint, seed=args.seed,
                                 header=not args.output.endswith('.bin'))
    info = validator.validate(data)
    _write_atomically(args.output, data)
    print('wrote %s: partial for %s, module ID 0x%08X, footprint %s, %d bytes'
          % (args.output, info.device.name, args.module_id,
             info.footprint.signature, len(data)))
    return EXIT_OK


def cmd_wait_import(args):
    """Wait until the image's import has ended: 0 if active, 1 if Glance
    refused it (the reason printed) or it is still importing at the
    timeout.
    """
    try:
        import openstack
    except ImportError:
        print('FAILED: wait-import needs openstacksdk (the openstack CLI '
              'installs it)', file=sys.stderr)
        return EXIT_INVALID
    from nova_fpga.contract import traits
    conn = openstack.connect(cloud=args.os_cloud)
    try:
        image = conn.image.find_image(args.image, ignore_missing=False)
    except openstack.exceptions.SDKException as exc:
        print('FAILED: image %s: %s' % (args.image, exc), file=sys.stderr)
        return EXIT_INVALID
    deadline = time.monotonic() + args.timeout
    while True:
        image = conn.image.get_image(image.id)
        props = dict(image.properties or {})
        refusal = props.get(traits.IMPORT_ERROR_PROPERTY)
        failed = props.get('os_glance_failed_import')
        if image.status == 'active':
            derived = ', '.join('%s=%s' % (k, props[k]) for k in sorted(props)
                                if k.startswith('fpga_') and
                                k != traits.IMPORT_ERROR_PROPERTY)
            print('%s (%s): active%s' % (
                image.name, image.id, ': ' + derived if derived else ''))
            return EXIT_OK
        if image.status == 'queued' and (refusal or failed):
            print('%s (%s): import refused: %s' % (
                image.name, image.id,
                refusal or 'failed in store(s) %s' % failed))
            return EXIT_FAILED
        if image.status in ('killed', 'deleted', 'pending_delete'):
            print('%s (%s): %s' % (image.name, image.id, image.status))
            return EXIT_FAILED
        if time.monotonic() > deadline:
            print('%s (%s): still %s after %d s' % (
                image.name, image.id, image.status, args.timeout))
            return EXIT_FAILED
        time.sleep(args.interval)


def cmd_sign(args):
    from nova_fpga.bitstream import signing
    try:
        key = signing.load_key(_read(args.key), None if args.password_env
                               is None else os.environ.get(
                                   args.password_env, '').encode())
        if args.certificate:
            signing.check_pair(key, _read(args.certificate))
        props = signing.properties(_read(args.file), key,
                                   args.certificate_id, args.hash_method)
    except (OSError, signing.SigningError) as exc:
        print('nova-fpga-bitstream sign: %s' % exc, file=sys.stderr)
        return EXIT_INVALID
    if args.json:
        print(json.dumps(props, indent=1, sort_keys=True))
    else:
        print(' '.join('--property %s=%s' % item
                       for item in sorted(props.items())))
    return EXIT_OK


def _read(path):
    with open(path, 'rb') as f:
        return f.read()


def _hex32(text):
    value = int(text, 0)
    if not 0 <= value <= 0xFFFFFFFF:
        raise argparse.ArgumentTypeError('%s is not a 32-bit value' % text)
    return value


def parser():
    p = argparse.ArgumentParser(prog='nova-fpga-bitstream',
                                description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest='command', required=True)

    s = sub.add_parser('inspect', help='describe a bitstream')
    s.add_argument('file')
    s.add_argument('--json', action='store_true', help='machine-readable')
    s.set_defaults(func=cmd_inspect)

    s = sub.add_parser('verify', help='exit 0 only if every condition holds')
    s.add_argument('file')
    s.add_argument('--part', help="device, e.g. xc7z020 or 7z020clg400")
    s.add_argument('--partial', action='store_true',
                   help='must be a partial bitstream')
    s.add_argument('--footprint', metavar='SIG',
                   help='frame footprint signature it must have')
    s.set_defaults(func=cmd_verify)

    s = sub.add_parser('to-bin', help='header-less configuration data')
    s.add_argument('file')
    s.add_argument('-o', '--output', required=True)
    s.add_argument('--plain', action='store_true',
                   help='big-endian words instead of PCAP byte order')
    s.set_defaults(func=cmd_to_bin)

    s = sub.add_parser('build', help='write a partial bitstream for a '
                                     'footprint (no Vivado needed)')
    s.add_argument('--part', required=True, help='e.g. 7z020clg400')
    s.add_argument('--design', required=True)
    s.add_argument('--module-id', type=_hex32, required=True,
                   help='UserID, e.g. 0x4E460001 (0xFFFFFFFF: none)')
    s.add_argument('--footprint', required=True, metavar='FILE',
                   help='a bitstream whose footprint to copy, or JSON '
                        '(inspect --json output or a list of blocks)')
    s.add_argument('--seed', type=int, default=0,
                   help='seed of the pseudo-random frame data')
    s.add_argument('-o', '--output', required=True,
                   help='.bit, or .bin for header-less big-endian words')
    s.set_defaults(func=cmd_build)

    s = sub.add_parser('wait-import',
                       help='wait for Glance\'s verdict on an image\'s '
                            'import: exit 0 if active, 1 if refused (with '
                            'the reason)')
    s.add_argument('image', help='name or ID')
    s.add_argument('--timeout', type=int, default=300, help='seconds')
    s.add_argument('--interval', type=float, default=1.0,
                   help=argparse.SUPPRESS)
    s.add_argument('--os-cloud', default=os.environ.get('OS_CLOUD'),
                   help='the cloud in clouds.yaml (default: $OS_CLOUD; '
                        'else the OS_* variables, as the openstack CLI)')
    s.set_defaults(func=cmd_wait_import)

    s = sub.add_parser('sign',
                       help='the image properties of a signed bitstream '
                            'image (img_signature and the others), for '
                            'openstack image create --import')
    s.add_argument('file', help='the bitstream, exactly as uploaded')
    s.add_argument('--key', required=True,
                   help='the signer\'s private key (PEM)')
    s.add_argument('--certificate-id', required=True, metavar='UUID',
                   help='the signer\'s certificate in the key manager '
                        '(openstack secret store ... --secret-type '
                        'certificate)')
    s.add_argument('--certificate', metavar='PEM',
                   help='the signer\'s certificate: refuse a key that is '
                        'not its')
    s.add_argument('--hash-method', default='SHA-256',
                   choices=signature.HASH_METHODS)
    s.add_argument('--password-env', metavar='VARIABLE',
                   help='the environment variable holding the key\'s '
                        'password, if it has one')
    s.add_argument('--json', action='store_true',
                   help='the properties as JSON, not --property options')
    s.set_defaults(func=cmd_sign)
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except errors.BitstreamError as exc:
        print('FAILED %s: invalid bitstream: %s'
              % (getattr(args, 'file', args.command), exc))
        return EXIT_INVALID
    except (OSError, json.JSONDecodeError) as exc:
        print('FAILED: %s' % exc, file=sys.stderr)
        return EXIT_INVALID


if __name__ == '__main__':
    sys.exit(main())
