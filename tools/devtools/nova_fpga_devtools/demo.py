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

"""nova-fpga-demo: the demo cloud on this machine.

    nova-fpga-demo [--state-dir DIR] [--database-url URL] [--transport-url URL]
                   [--boards N] [--board-backend BOARD=BACKEND] [--vm-host]
                   [--signed-only-board BOARD|none]
                   up | status | down [--purge] |
                   logs [SERVICE] [-f] [-n N] | replay BOARD REGION PCAP... |
                   temperature BOARD CELSIUS | scenario [--pcaps DIR]

``up`` starts keystone, glance, placement, neutron, nova and the emulated
boards (and a private MariaDB/RabbitMQ when no configured one answers), or
resumes a stopped or half-started cloud; ``down`` stops what ``up`` started,
by pid.  ``scenario`` runs the demo on a cloud that is up; ``replay``
sends real captures into a board's data interface; ``temperature`` sets
an emulated board's die temperature (its XADC), the fault switch of its
watchdog (95 overheats it, 45 cools it).  Options also come from a
config file (``--config-file demo.conf``, section [DEFAULT]).
"""
import sys
import time
import warnings

from oslo_config import cfg

CLI_OPTS = [
    cfg.StrOpt('state-dir',
               help='Directory holding everything the cloud owns (configs, '
                    'databases of the SQLite services, logs, pid files, '
                    'images, board state, credentials). Default: '
                    '<checkout>/.state/demo.'),
    cfg.StrOpt('database-url',
               help='SQLAlchemy URL of a MariaDB/MySQL server to use when it '
                    'answers, e.g. mysql+pymysql://root@127.0.0.1/ (the '
                    'cloud creates databases of its own there). Unset or '
                    'not answering: a private MariaDB in the state '
                    'directory. Only read by the first up.'),
    cfg.StrOpt('transport-url', secret=True,
               help='RabbitMQ URL to use when it answers and rabbitmqctl can '
                    'administer it, e.g. rabbit://guest:guest@127.0.0.1:5672/ '
                    '(the cloud adds its own vhosts and users). Unset or not '
                    'answering: a private RabbitMQ node in the state '
                    'directory. Only read by the first up.'),
    cfg.IntOpt('boards', default=2, min=1, max=16,
               help='Number of emulated boards (agent processes) the first '
                    'up creates.'),
    cfg.BoolOpt('vm-host', default=False,
                help='Also run an ordinary compute host: nova-compute with '
                     'the libvirt driver (virt_type = qemu), neutron\'s '
                     'macvtap agent, the emulated top-of-rack switch, and a '
                     'tiny guest image and flavor (vm.tiny). Only read by '
                     'the first up.'),
    cfg.MultiStrOpt('board-backend', default=[],
                    help='BOARD=BACKEND: run that emulated board on a board '
                         'backend over a fake kernel (fpga_manager, '
                         'fpga_manager_flags, xdevcfg) instead of sim, e.g. '
                         'board1=fpga_manager. Only read by the first up.'),
    cfg.MultiStrOpt('signed-only-board', default=['board1'],
                    help='BOARD: that emulated board loads only signed '
                         'bitstreams (its agent\'s [agent] '
                         'require_signed_bitstreams; nova\'s scheduler keeps '
                         'unsigned images off it). Every board trusts the '
                         'demo cloud\'s bitstream-signing CA '
                         '(<state dir>/signing-ca/ca.pem). "none": no such '
                         'board. The default board1 applies when there is a '
                         'board1. Only read by the first up.'),
]


def _add_commands(subparsers):
    # up also takes the first up's options after its name
    # (``nova-fpga-demo up --vm-host``, as the guide writes it)
    up = subparsers.add_parser('up', help='start or resume the cloud')
    up.add_argument('--boards', type=int, default=None, dest='up_boards',
                    help='as nova-fpga-demo --boards')
    up.add_argument('--vm-host', action='store_true', default=None,
                    dest='up_vm_host', help='as nova-fpga-demo --vm-host')
    up.add_argument('--board-backend', action='append', default=None,
                    dest='up_board_backend', metavar='BOARD=BACKEND',
                    help='as nova-fpga-demo --board-backend')
    up.add_argument('--signed-only-board', action='append', default=None,
                    dest='up_signed_only_board', metavar='BOARD',
                    help='as nova-fpga-demo --signed-only-board')
    subparsers.add_parser('status', help='each service and board')
    down = subparsers.add_parser('down', help='stop what up started')
    down.add_argument('--purge', action='store_true',
                      help='also remove the state directory and the '
                           'cloud\'s databases, vhosts and users on '
                           'configured servers')
    logs = subparsers.add_parser('logs', help='tail of one or all logs')
    logs.add_argument('service', nargs='?',
                      help='e.g. nova-compute, board0, keystone')
    logs.add_argument('-n', type=int, default=20, dest='lines',
                      help='lines per log (default 20)')
    logs.add_argument('-f', action='store_true', dest='follow',
                      help='keep printing what is appended')
    replay = subparsers.add_parser(
        'replay', help='send captures into a board\'s data interface, '
        'tagged with a region\'s VLAN')
    replay.add_argument('board')
    replay.add_argument('region')
    replay.add_argument('captures', nargs='+', metavar='PCAP')
    replay.add_argument('--timeout', type=float, default=300,
                        help='seconds to wait for the frames to come back '
                             'on the region\'s VLAN (default 300)')
    temperature = subparsers.add_parser(
        'temperature', help='set an emulated board\'s die temperature: at '
        '[watchdog] trip_temperature (85) its agent holds every region and '
        'reports the board unfit')
    temperature.add_argument('board')
    temperature.add_argument('celsius', type=float)
    scenario = subparsers.add_parser(
        'scenario', help='the demo: deploy the vTC with the openstack CLI, '
        'send real traffic through it, show what it classified')
    scenario.add_argument('--pcaps', default=None,
                          help='directory of captures (*.pcap, *.pcapng) '
                               'to replay '
                               '(default: tests/data/realdata/pcaps/ndpi)')


def parse(argv):
    conf = cfg.ConfigOpts()
    conf.register_cli_opts(CLI_OPTS)
    conf.register_cli_opt(cfg.SubCommandOpt(
        'command', title='commands', handler=_add_commands))
    conf(argv, project='nova-fpga', prog='nova-fpga-demo')
    return conf


def _option(conf, name):
    """An option of the first up: given after up's name, or before it."""
    value = getattr(conf.command, 'up_' + name, None)
    return getattr(conf, name) if value is None else value


def _stack(conf):
    from nova_fpga_devtools.localcloud import stack
    boards = _option(conf, 'boards')
    if boards is not None and not 1 <= boards <= 16:
        raise SystemExit('nova-fpga-demo: --boards %d: 1 to 16 boards'
                         % boards)
    backends = dict(item.partition('=')[::2]
                    for item in _option(conf, 'board_backend'))
    signed_only = _option(conf, 'signed_only_board')
    if 'none' in signed_only or (signed_only == ['board1'] and boards == 1):
        # none asked, or the default on a cloud without a board1
        signed_only = []
    return stack.Stack(conf.state_dir or stack.DEFAULT_STATE_DIR,
                       database_url=conf.database_url,
                       transport_url=conf.transport_url, boards=boards,
                       board_backends=backends,
                       vm_host=_option(conf, 'vm_host'),
                       signed_only_boards=signed_only)


def warn_overriding_variables(cloud, out=None):
    """Say which OS_* variables of this environment the openstack CLI
    would take over --os-cloud (none: say nothing).  Returns their names.
    """
    from nova_fpga_devtools.localcloud import keystone
    names = keystone.overriding_variables()
    if names:
        one = len(names) == 1
        print('WARNING: %s set in this shell: the openstack CLI takes %s '
              'over --os-cloud (%s of its --os-* options), so '
              '`openstack --os-cloud nova-fpga-alice ...` would not run as '
              'alice. `. %s` (or openrc-alice, openrc-bob) unsets every '
              'OS_* variable first.' % (
                  ', '.join(names), 'it' if one else 'them',
                  'the default of one' if one else 'defaults',
                  cloud.credentials_file()), file=out or sys.stderr)
    return names


def up(conf):
    from nova_fpga import conventions
    from nova_fpga_devtools.localcloud import scenario as demo_scenario
    cloud = _stack(conf)
    print('Demo cloud in %s' % cloud.dir)
    cloud.up()
    print('Up in %.0f s; its processes use %.0f MB of memory.' % (
        cloud.timings['total'], cloud.memory_kib() / 1024))
    # what a tenant needs to create a server: the flavor and the images
    if demo_scenario.samples(cloud):
        return 1
    print('\nThe flavor %s and the images %s are there: e.g.\n'
          '    openstack server create --image vtc-bitstream --flavor %s '
          '--nic none vtc1 --wait' % (
              conventions.FLAVOR_NAME, ', '.join(
                  name for name, _, _ in demo_scenario.SAMPLES),
              conventions.FLAVOR_NAME))
    print('Credentials in %s: clouds.yaml (clouds nova-fpga-admin, '
          'nova-fpga-alice, nova-fpga-bob) and openrc-admin (also as '
          'openrc), openrc-alice, openrc-bob; each openrc unsets every '
          'OS_* variable, then selects its user\'s cloud, so --os-cloud '
          'works from any directory.' % cloud.dir)
    print('Use it:\n    . %s\n    openstack compute service list\n'
          '    openstack hypervisor list\n'
          '    openstack resource provider list\n'
          '    openstack --os-cloud nova-fpga-alice server list' %
          cloud.credentials_file())
    warn_overriding_variables(cloud)
    return 0


def _server_names(cloud):
    try:
        servers = cloud.compute(cloud.keystone,
                                '/servers?all_tenants=1')['servers']
    except Exception:  # nova not answering: show UUIDs only
        return {}
    return {server['id']: server['name'] for server in servers}


def status(conf):
    cloud = _stack(conf)
    rows, boards = cloud.status()
    warn_overriding_variables(cloud)
    width = max(len(name) for name, _, _ in rows)
    for name, state, detail in rows:
        print('%-*s  %-13s  %s' % (width, name, state, detail))
    for line in cloud.bus_summary():
        print(line)
    names = _server_names(cloud) if any(boards.values()) else {}
    for board, described in boards.items():
        if described is None:
            regions = cloud.board(board).last_regions()
            print('%s: agent does not answer%s' % (
                board, '; its state file says' if regions else ''))
        else:
            regions = described['regions']
            print('%s: agent answers (%s backend, shell %s)' % (
                board, described['backend'], described['shell_id']))
        for region in regions or ():
            uuid = region.get('instance_uuid')
            held = ' server %s (%s)' % (names.get(uuid, '?'), uuid) \
                if uuid else ''
            print('  %-4s %s%s' % (region['name'], region['state'], held))
    return 0


def down(conf):
    cloud = _stack(conf)
    stopped = cloud.down(purge=conf.command.purge)
    for name in stopped:
        print('stopped %s' % name)
    if not stopped:
        print('nothing was running in %s' % cloud.dir)
    if conf.command.purge:
        print('removed %s' % cloud.dir)
    return 0


def _tail(path, lines):
    with open(path, errors='replace') as log:
        return log.read().splitlines()[-lines:]


def logs(conf):
    cloud = _stack(conf)
    found = cloud.logs()
    wanted = conf.command.service
    if wanted:
        found = {name: path for name, path in found.items()
                 if wanted == name or wanted in name.split('/')}
        if not found:
            print('no log for %s; logs: %s' % (
                wanted, ', '.join(sorted(cloud.logs()))), file=sys.stderr)
            return 1
    for name, path in found.items():
        if len(found) > 1:
            print('==> %s <==' % path)
        print('\n'.join(_tail(path, conf.command.lines)))
    if conf.command.follow:
        offsets = {path: path.stat().st_size for path in found.values()}
        try:
            while True:
                for path, offset in offsets.items():
                    with open(path, errors='replace') as log:
                        log.seek(offset)
                        text = log.read()
                        offsets[path] = log.tell()
                    if text:
                        sys.stdout.write(text)
                        sys.stdout.flush()
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
    return 0


def _has_board(cloud, name):
    """Whether the cloud has the board; if not, say which it has."""
    if name in cloud.boards:
        return True
    print('no board %s; boards: %s' % (name, ', '.join(cloud.boards)),
          file=sys.stderr)
    return False


def replay(conf):
    from nova_fpga.contract import shell
    from nova_fpga_devtools.localcloud import traffic
    cloud = _stack(conf)
    cloud.require_state()
    if not _has_board(cloud, conf.command.board):
        return 1
    vlan = shell.load(shell.REFERENCE).region(conf.command.region).vlan
    link = cloud.data_link(conf.command.board)
    # what the region sends back, on its VLAN: listened for from before the
    # first frame goes out
    back = traffic.Capture(link.peer_if, vlan)
    try:
        replayed = traffic.replay(conf.command.captures, link.peer_if, vlan)
    except BaseException:
        back.wait_for(0, timeout=0)
        raise
    for cut_short in replayed.cut_short:
        print(cut_short, file=sys.stderr)
    print('sent %d frames (%d bytes) of %d capture(s) into %s\'s data '
          'interface (host end %s), VLAN %d = region %s: %s' % (
              replayed.frames, replayed.bytes, len(conf.command.captures),
              conf.command.board, link.peer_if, vlan, conf.command.region,
              traffic.dscp_text(replayed.dscps)))
    started = time.monotonic()
    frames = back.wait_for(replayed.frames, timeout=conf.command.timeout)
    print('%d of them came back on VLAN %d in %.1f s: %s' % (
        len(frames), vlan, time.monotonic() - started,
        traffic.dscp_text(traffic.dscp_counts(frames))))
    return 0


def temperature(conf):
    cloud = _stack(conf)
    cloud.require_state()
    if not _has_board(cloud, conf.command.board):
        return 1
    board = cloud.board(conf.command.board)
    board.xadc.set_temperature(conf.command.celsius)
    print('%s\'s XADC reads %.1f degC; its agent acts at its next reading '
          '([watchdog] poll_interval) and says so in its log (nova-fpga-demo '
          'logs %s)' % (board.name, conf.command.celsius, board.name))
    return 0


def scenario(conf):
    from nova_fpga_devtools.localcloud import scenario as demo_scenario
    cloud = _stack(conf)
    cloud.require_state()
    return demo_scenario.main(cloud, conf.command.pcaps
                              or demo_scenario.DEFAULT_PCAPS)


COMMANDS = {'up': up, 'status': status, 'down': down, 'logs': logs,
            'replay': replay, 'temperature': temperature,
            'scenario': scenario}


def main(argv=None):
    # The services' libraries warn about eventlet on import; not our news.
    warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')
    from nova_fpga_devtools.localcloud import process
    conf = parse(sys.argv[1:] if argv is None else argv)
    try:
        return COMMANDS[conf.command.name](conf)
    except ValueError as exc:
        if conf.command.name != 'up':
            raise
        # a first up's choice that cannot be (a board it does not have)
        print('nova-fpga-demo: %s' % exc, file=sys.stderr)
        return 2
    except process.ServiceError as exc:
        print('\nFAILED: %s' % exc, file=sys.stderr)
        if conf.command.name == 'up':
            print('\nWhat did start keeps running; `nova-fpga-demo down` '
                  'stops it.', file=sys.stderr)
        return 1


if __name__ == '__main__':
    sys.exit(main())
