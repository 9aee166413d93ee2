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

"""nova-fpga-config: what a deployment writes into nova.conf,
glance-api.conf and a board agent's configuration (nova_fpga.deployment),
for shell scripts such as the DevStack plugin:

    nova-fpga-config nova --boards B0,B1 --agents-transport-url URL \\
        --policy-dir DIR [--shared-vhost] [TLS]        (one nova.conf)
    nova-fpga-config nova-compute --boards B0,B1 --agents-transport-url URL \\
        [--shared-vhost] [TLS]       (the Zynq nova-compute's own file)
    nova-fpga-config nova-scheduler --policy-dir DIR  (scheduler and API)
    nova-fpga-config glance --store-dir DIR --property-protections FILE \\
        [--shell-manifest FILE ...]
    nova-fpga-config agent --board NAME --transport-url URL \\
        --state-dir DIR [--manifest FILE] [--backend sim] [--hdl-dir DIR] \\
        [TLS]

(TLS: --ssl-ca-file CA --ssl-cert-file CERT --ssl-key-file KEY, that side's
files on the agents' bus) print ``section<TAB>option<TAB>value`` lines (a
multi-valued option once per value);

    nova-fpga-config rabbitmq-tls [--listener [ADDRESS:]PORT] TLS
    nova-fpga-config rabbitmq-tls-port

print rabbitmq.conf's TLS listener for the agents' bus (TLS: the broker's
files; clients must present a certificate of the CA; the listener defaults
to the port the second prints);

    nova-fpga-config board-vhost --vhost AGENTS_VHOST --board NAME
    nova-fpga-config board-permissions --board NAME [--topic TOPIC]

print the board's own vhost on the agents' bus, and the three regexes
(configure, write, read; tab-separated) its RabbitMQ user gets there
(``rabbitmqctl set_permissions -p VHOST USER CONFIGURE WRITE READ``);

and

    nova-fpga-config glance-backends [EXISTING]   enabled_backends with ours
    nova-fpga-config glance-policy [--creator-project ID ...]
    nova-fpga-config glance-paste FILE            add the paste filters
    nova-fpga-config file nova-policy|property-protections|reference-shell
    nova-fpga-config samples --out DIR [--manifest FILE]

print a value, a policy line or a shipped file's path, or edit a paste file
in place (once: a file that has the filters is left as it is); ``samples``
builds the sample partial bitstreams (each catalogued module for the first
region of the shell it fits) and prints ``image name<TAB>file`` lines.
"""
import argparse
import pathlib
import sys

from nova_fpga.contract import agent_api
from nova_fpga.contract import placement
from nova_fpga import deployment

FILES = {'nova-policy': deployment.NOVA_POLICY,
         'property-protections': deployment.PROPERTY_PROTECTIONS,
         'reference-shell': deployment.REFERENCE_SHELL}


def _parser():
    parser = argparse.ArgumentParser(
        prog='nova-fpga-config', description=__doc__.split('\n\n')[0])
    sub = parser.add_subparsers(dest='what', required=True)
    nova = sub.add_parser('nova', help='nova.conf options (all services)')
    compute = sub.add_parser('nova-compute',
                             help="the Zynq nova-compute's options")
    scheduler = sub.add_parser('nova-scheduler',
                               help="nova's scheduler and API options")
    for each in (nova, compute):
        each.add_argument('--boards', required=True,
                          help='comma-separated board names')
        each.add_argument('--agents-transport-url', required=True)
        each.add_argument('--shared-vhost', action='store_true',
                          help='all boards on the agents\' vhost (no '
                               'per-board vhosts)')
        _tls_arguments(each)
    for each in (nova, scheduler):
        each.add_argument('--policy-dir', required=True,
                          help="a directory of nova's [oslo_policy] "
                               'policy_dirs')
    sub.add_parser('placement', help='placement.conf options')
    sub.add_parser('region-limit',
                   help="the regions' resource name in keystone's unified "
                        'limits')
    glance = sub.add_parser('glance', help='glance-api.conf options')
    glance.add_argument('--store-dir', required=True)
    glance.add_argument('--property-protections', required=True)
    glance.add_argument('--shell-manifest', action='append',
                        default=None, help='default: the reference shell')
    ml2 = sub.add_parser('neutron-ml2',
                         help="neutron-server's ML2 options for boards")
    ml2.add_argument('--boards', required=True,
                     help='comma-separated board names')
    ml2.add_argument('--switch-driver',
                     help='the top-of-rack switch driver ([ml2_zynq] '
                          'switch_driver; default: the option\'s own, noop)')
    agent = sub.add_parser('agent', help="a board agent's options")
    agent.add_argument('--board', required=True)
    agent.add_argument('--transport-url', required=True)
    agent.add_argument('--state-dir', required=True)
    agent.add_argument('--manifest', default=deployment.REFERENCE_SHELL)
    agent.add_argument('--backend', default='sim')
    agent.add_argument('--hdl-dir', help='the emulator\'s HDL (sim)')
    _tls_arguments(agent)
    vhost = sub.add_parser('board-vhost')
    vhost.add_argument('--vhost', required=True,
                       help='the agents\' vhost')
    vhost.add_argument('--board', required=True)
    permissions = sub.add_parser('board-permissions')
    permissions.add_argument('--board', required=True)
    permissions.add_argument('--topic', default=agent_api.DEFAULT_TOPIC)
    rabbit_tls = sub.add_parser(
        'rabbitmq-tls', help="rabbitmq.conf's TLS listener for the agents")
    rabbit_tls.add_argument('--listener',
                            default=str(deployment.RABBITMQ_TLS_PORT),
                            help='port, or address:port')
    _tls_arguments(rabbit_tls, 'the broker')
    sub.add_parser('rabbitmq-tls-port')
    backends = sub.add_parser('glance-backends')
    backends.add_argument('existing', nargs='?', default='')
    policy = sub.add_parser('glance-policy')
    policy.add_argument('--creator-project', action='append', default=[])
    paste = sub.add_parser('glance-paste')
    paste.add_argument('file', type=pathlib.Path)
    files = sub.add_parser('file')
    files.add_argument('name', choices=sorted(FILES))
    samples = sub.add_parser('samples')
    samples.add_argument('--out', required=True, type=pathlib.Path)
    samples.add_argument('--manifest', default=deployment.REFERENCE_SHELL)
    return parser


def _tls_arguments(parser, side="this side"):
    for name in ('ca', 'cert', 'key'):
        parser.add_argument('--ssl-%s-file' % name,
                            help='TLS on the agents\' bus: %s\'s %s file'
                                 % (side, name))


def _tls(args):
    files = (args.ssl_ca_file, args.ssl_cert_file, args.ssl_key_file)
    if not any(files):
        return None
    if not all(files):
        raise SystemExit('TLS needs --ssl-ca-file, --ssl-cert-file and '
                         '--ssl-key-file')
    return deployment.Tls(*files)


def _print_lines(options):
    print('\n'.join(deployment.lines(options)))


def main(argv=None):
    args = _parser().parse_args(argv)
    if args.what == 'nova':
        _print_lines(deployment.nova(args.boards.split(','),
                                     args.agents_transport_url,
                                     args.policy_dir,
                                     vhost_per_board=not args.shared_vhost,
                                     tls=_tls(args)))
    elif args.what == 'nova-compute':
        _print_lines(deployment.nova_compute(
            args.boards.split(','), args.agents_transport_url,
            vhost_per_board=not args.shared_vhost, tls=_tls(args)))
    elif args.what == 'nova-scheduler':
        _print_lines(deployment.nova_scheduler(args.policy_dir))
    elif args.what == 'placement':
        _print_lines(deployment.placement())
    elif args.what == 'region-limit':
        print(placement.REGION_LIMIT)
    elif args.what == 'glance':
        _print_lines(deployment.glance(
            args.store_dir, args.shell_manifest or [
                deployment.REFERENCE_SHELL], args.property_protections))
    elif args.what == 'neutron-ml2':
        _print_lines(deployment.neutron_ml2(
            args.boards.split(','), switch_driver=args.switch_driver))
    elif args.what == 'agent':
        _print_lines(deployment.agent(
            args.board, args.transport_url, args.state_dir, args.manifest,
            args.backend, args.hdl_dir, tls=_tls(args)))
    elif args.what == 'board-vhost':
        print(deployment.board_vhost(args.vhost, args.board))
    elif args.what == 'board-permissions':
        print('\t'.join(deployment.board_permissions(args.board,
                                                     args.topic)))
    elif args.what == 'rabbitmq-tls':
        tls = _tls(args)
        if tls is None:
            raise SystemExit('rabbitmq-tls needs the broker\'s TLS files')
        sys.stdout.write(deployment.rabbitmq_tls(args.listener, tls))
    elif args.what == 'rabbitmq-tls-port':
        print(deployment.RABBITMQ_TLS_PORT)
    elif args.what == 'glance-backends':
        print(deployment.glance_backends(args.existing))
    elif args.what == 'glance-policy':
        sys.stdout.write(deployment.glance_policy(args.creator_project))
    elif args.what == 'glance-paste':
        from glance_store_bitstream import paste
        text = args.file.read_text()
        if not paste.has_filters(text):
            args.file.write_text(paste.add_to_paste(text))
    elif args.what == 'samples':
        args.out.mkdir(parents=True, exist_ok=True)
        for name, data in deployment.samples(args.manifest):
            path = args.out / ('%s.bit' % name)
            path.write_bytes(data)
            print('%s\t%s' % (name, path))
    else:
        print(FILES[args.name])
    return 0


if __name__ == '__main__':
    sys.exit(main())
