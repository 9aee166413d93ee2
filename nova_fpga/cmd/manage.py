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

"""nova-fpga-manage: create the FPGA flavor, import bitstream images and
look after boards.

An operator's (or a developer's) shortcut to the conventions in
nova_fpga/conventions.py, through openstacksdk with the usual credentials
(``OS_*`` variables or ``--os-cloud``):

    nova-fpga-manage flavor create [--name fpga.region] [--private]
    nova-fpga-manage image create NAME FILE --shell-id UUID [--public]
    nova-fpga-manage board list|show BOARD [--config-file nova.conf] [--json]
    nova-fpga-manage board drain|undrain BOARD

``flavor create`` is idempotent and never changes an existing flavor that
differs (servers may use it): it says what differs instead.  ``image
create`` checks the file with the same library Glance and the boards use
before it uploads, imports it with glance-direct (the only path that
derives the properties and traits the scheduler needs) and waits for the
inspection's verdict.  ``board list`` and ``show`` ask the boards'
agents with nova-compute's client and nova.conf's [zynq] options, and
placement; ``drain`` and ``undrain`` change placement only
(nova_fpga/boardops/).
"""
import argparse
import json
import os
import sys
import time
import warnings

from keystoneauth1 import exceptions as ks_exceptions
import openstack
from openstack import exceptions as sdk_exceptions
from oslo_config import cfg

from nova_fpga.bitstream import errors
from nova_fpga.bitstream import validator
from nova_fpga.boardops import drain
from nova_fpga.contract import traits
from nova_fpga import conventions

EXIT_OK, EXIT_FAILED = 0, 1
NOVA_CONF = '/etc/nova/nova.conf'
#: where board list/show look for nova-compute's nova.conf when no
#: --config-file is given (before NOVA_CONF); the demo cloud's openrc
#: exports it
NOVA_CONF_VARIABLE = 'NOVA_FPGA_NOVA_CONF'


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
    _board_parser(sub)
    return parser


def _board_parser(sub):
    board = sub.add_parser('board', help='boards: state, drain, undrain')
    board_sub = board.add_subparsers(dest='action', required=True)
    for action, text in (('list', 'every board of nova.conf\'s [zynq] '
                          'boards, from its agent and placement'),
                         ('show', 'one board in detail')):
        command = board_sub.add_parser(action, help=text)
        if action == 'show':
            command.add_argument('board')
        command.add_argument('--config-file',
                             help='nova-compute\'s nova.conf ([zynq]: the '
                             'boards and their bus; default $%s, else %s)'
                             % (NOVA_CONF_VARIABLE, NOVA_CONF))
        command.add_argument('--timeout', type=int,
                             help='seconds to wait for each agent '
                             '(default [zynq] rpc_timeout)')
        command.add_argument('--json', action='store_true')
    for action, text in (
            ('drain', 'reserve the board\'s regions in placement; running '
             'servers finish'),
            ('undrain', 'let nova-compute give the board\'s regions out '
             'again')):
        board_sub.add_parser(action, help=text).add_argument('board')


def _quietly_import_bus():
    """The modules that reach the agents' bus.  oslo.messaging imports
    oslo.service's eventlet backend, which warns of eventlet's deprecation
    on import: noise to an operator, and only list and show need the bus.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings('ignore', module='oslo_service')
        from nova_fpga.boardops import status
        from nova_fpga import conf as zynq_conf
        from nova_fpga.virt import agents
    return status, zynq_conf, agents


def nova_conf_path(args):
    """--config-file, else $NOVA_FPGA_NOVA_CONF, else /etc/nova/nova.conf."""
    return (args.config_file or os.environ.get(NOVA_CONF_VARIABLE)
            or NOVA_CONF)


def _zynq_conf(path, timeout):
    """nova.conf's [zynq] options (the rest of the file is ignored), on a
    conf that also has what oslo.messaging reads at each call.
    """
    _status, zynq_conf, agents = _quietly_import_bus()
    conf = cfg.ConfigOpts()
    zynq_conf.register_opts(conf)
    agents.register_bus_opts(conf)
    conf(['--config-file', path], project='nova', default_config_files=[],
         default_config_dirs=[])
    if timeout:
        conf.set_override('rpc_timeout', timeout, group='zynq')
    return conf


def board_status(conn, conf, names):
    """[status.BoardStatus] of the named boards."""
    status, _zynq_conf, agents = _quietly_import_bus()
    clients = agents.make_client(conf)
    try:
        return status.collect(names, clients,
                              drain.Placement(conn.placement))
    finally:
        clients.cleanup()


def board_command(conn, args):
    """Run a board action; the exit status."""
    api = drain.Placement(conn.placement)
    if args.action == 'drain':
        already, reserved = drain.drain(api, args.board)
        print('board %s %s: %d region and slot units reserved now; running '
              'servers keep running, and regions they leave stay reserved'
              % (args.board, 'was drained already' if already else
                 'drained', reserved))
        return EXIT_OK
    if args.action == 'undrain':
        was = drain.undrain(api, args.board)
        print('board %s %s' % (args.board, (
            'undrained: nova-compute gives its free regions out again at '
            'its first resource update after it re-reads the board\'s '
            'traits ([compute] resource_provider_association_refresh)')
            if was else 'was not drained'))
        return EXIT_OK
    conf = _zynq_conf(nova_conf_path(args), args.timeout)
    names = [args.board] if args.action == 'show' else conf.zynq.boards
    found = [b.to_dict() for b in board_status(conn, conf, names)]
    status = _quietly_import_bus()[0]
    if args.json:
        print(json.dumps(found if args.action == 'list' else found[0],
                         indent=2, sort_keys=True))
    else:
        lines = (status.list_text(found) if args.action == 'list'
                 else status.show_text(found[0]))
        print('\n'.join(lines))
    failed = [b['board'] for b in found
              if b['agent'] != 'up' or b['placement'] != 'ok']
    if failed:
        print('nova-fpga-manage: no full answer for %s' % ', '.join(failed),
              file=sys.stderr)
    return EXIT_FAILED if failed else EXIT_OK


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        conn = openstack.connect(cloud=args.os_cloud)
        if args.what == 'board':
            return board_command(conn, args)
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
            sdk_exceptions.SDKException, ks_exceptions.ClientException,
            drain.PlacementError, cfg.Error) as exc:
        print('nova-fpga-manage: %s' % exc, file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


if __name__ == '__main__':
    sys.exit(main())
