"""Several nova-manage commands for the price of one import.

Each nova-manage run spends about 5 s importing nova; a new cloud needs
four (api_db sync, cell_v2 map_cell0, cell_v2 create_cell, db sync).  This
imports nova's command once and forks a child per command, so every command
still parses its own arguments into a fresh global config, as nova-manage
does.

    python -m nova_fpga.localcloud.nova_manage '[["--config-file", F, "db", "sync"], ...]'

Stops at the first command that fails, with its exit code.
"""
import json
import os
import sys
import traceback


def _child(manage, argv):
    sys.argv = ['nova-manage'] + argv
    try:
        code = manage.main()
        code = code if isinstance(code, int) else 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main():
    from nova.cmd import manage
    for argv in json.loads(sys.argv[1]):
        print('$ nova-manage %s' % ' '.join(argv), flush=True)
        pid = os.fork()
        if pid == 0:
            _child(manage, argv)
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        if code:
            print('nova-manage %s exited %s' % (' '.join(argv[2:4]), code),
                  flush=True)
            sys.exit(code)


if __name__ == '__main__':
    main()
