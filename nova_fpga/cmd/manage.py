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

"""nova-fpga-manage: create the FPGA flavor and import bitstream images.

An operator's (or a developer's) shortcut to the conventions in
nova_fpga/conventions.py, through openstacksdk with the usual credentials
(``OS_*`` variables or ``--os-cloud``):

    nova-fpga-manage flavor create [--name fpga.region] [--private]
    nova-fpga-manage image create NAME FILE --shell-id UUID [--public]

``flavor create`` is idempotent and never changes an existing flavor that
differs (servers may use it): it says what differs instead.  ``image
create`` checks the file with the same library Glance and the boards use
before it uploads, imports it with glance-direct (the only path that
derives the properties and traits the scheduler needs) and waits for the
inspection's verdict.
"""
import argparse
import sys
import time

import openstack
from openstack import exceptions as sdk_exceptions

from nova_fpga.bitstream import errors
from nova_fpga.bitstream import validator
from nova_fpga.contract import traits
from nova_fpga import conventions

EXIT_OK, EXIT_FAILED = 0, 1


class ConventionError(Exception):
    """The cloud holds something that contradicts the conventions."""


def create_flavor(conn, name=conventions.FLAVOR_NAME, public=True):
    """(flavor, 'created' | 'exists'); ConventionError if a flavor of that
    name exists with other amounts or extra specs.
    """
    flavor = conn.compute.find_flavor(name, ignore_missing=True)
    if flavor is None:
        flavor = conn.compute.create_flavor(
            name=name, vcpus=conventions.FLAVOR_VCPUS,
            ram=conventions.FLAVOR_RAM_MB, disk=conventions.FLAVOR_DISK_GB,
            is_public=public)
        conn.compute.create_flavor_extra_specs(
            flavor, dict(conventions.FLAVOR_EXTRA_SPECS))
        return flavor, 'created'
    specs = conn.compute.fetch_flavor_extra_specs(flavor).extra_specs or {}
    wrong = ['%s=%s (expected %s)' % (key, specs.get(key), value)
             for key, value in sorted(conventions.FLAVOR_EXTRA_SPECS.items())
             if specs.get(key) != value]
    for field, expected in (('vcpus', conventions.FLAVOR_VCPUS),
                            ('ram', conventions.FLAVOR_RAM_MB),
                            ('disk', conventions.FLAVOR_DISK_GB)):
        if getattr(flavor, field) != expected:
            wrong.append('%s=%s (expected %s)'
                         % (field, getattr(flavor, field), expected))
    if wrong:
        raise ConventionError(
            'flavor %s exists and differs from the FPGA region flavor: %s; '
            'servers may use it, so it is left alone (delete it or choose '
            'another --name)' % (name, ', '.join(wrong)))
    return flavor, 'exists'


def create_image(conn, name, path, shell_id, visibility='private',
                 timeout=300, poll=1.0):
    """Import a bitstream and wait for Glance's verdict: the active image,
    or ConventionError with the reason the inspection gave.
    """
    validator.validate_file(path)  # the same verdict Glance will give
    image = conn.image.create_image(
        name=name, filename=path,
        disk_format=conventions.IMAGE_DISK_FORMAT,
        container_format=conventions.IMAGE_CONTAINER_FORMAT,
        visibility=visibility, use_import=True, allow_duplicates=True,
        meta={conventions.IMAGE_SHELL_PROPERTY: shell_id})
    deadline = time.monotonic() + timeout
    while True:
        image = conn.image.get_image(image.id)
        props = image.properties or {}
        if image.status == 'active':
            return image
        refusal = props.get(traits.IMPORT_ERROR_PROPERTY)
        if refusal or image.status in ('killed', 'deleted'):
            raise ConventionError('Glance refused image %s (%s): %s' % (
                image.id, name, refusal or 'status %s' % image.status))
        if time.monotonic() > deadline:
            raise ConventionError('image %s (%s) is still %s after %d s'
                                  % (image.id, name, image.status, timeout))
        time.sleep(poll)


def _parser():
    parser = argparse.ArgumentParser(
        prog='nova-fpga-manage', description=__doc__.split('\n\n')[0])
    parser.add_argument('--os-cloud', help='clouds.yaml entry (default: '
                        'the OS_* environment variables)')
    sub = parser.add_subparsers(dest='what', required=True)
    flavor = sub.add_parser('flavor', help='the FPGA region flavor')
    flavor_sub = flavor.add_subparsers(dest='action', required=True)
    create = flavor_sub.add_parser('create', help='create it unless it '
                                   'exists as the conventions say')
    create.add_argument('--name', default=conventions.FLAVOR_NAME)
    create.add_argument('--private', action='store_true',
                        help='not visible to every project')
    image = sub.add_parser('image', help='bitstream images')
    image_sub = image.add_subparsers(dest='action', required=True)
    create = image_sub.add_parser('create', help='import a partial '
                                  'bitstream through Glance\'s import flow')
    create.add_argument('name')
    create.add_argument('file')
    create.add_argument('--shell-id', required=True,
                        help='UUID of the static shell it was built for')
    create.add_argument('--public', action='store_true')
    create.add_argument('--timeout', type=int, default=300)
    return parser


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        conn = openstack.connect(cloud=args.os_cloud)
        if args.what == 'flavor':
            flavor, outcome = create_flavor(conn, args.name,
                                            public=not args.private)
            print('flavor %s (%s) %s: vcpus=%d ram=%d disk=%d, %s'
                  % (flavor.name, flavor.id, outcome, flavor.vcpus,
                     flavor.ram, flavor.disk, ', '.join(
                         '%s=%s' % item for item in sorted(
                             conventions.FLAVOR_EXTRA_SPECS.items()))))
        else:
            image = create_image(
                conn, args.name, args.file, args.shell_id,
                visibility='public' if args.public else 'private',
                timeout=args.timeout)
            props = image.properties or {}
            print(
                'image %s (%s) active: %s'
                % (
                    image.name,
                    image.id,
                    ', '.join(
                        '%s=%s' % (k, props[k])
                        for k in sorted(props)
                        if k.startswith(('fpga_', 'trait:'))
                    ),
                )
            )
    except (ConventionError, errors.BitstreamError, OSError,
            sdk_exceptions.SDKException) as exc:
        print('nova-fpga-manage: %s' % exc, file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


if __name__ == '__main__':
    sys.exit(main())
