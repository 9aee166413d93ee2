"""Several keystone-manage commands for the price of one import.

Each keystone-manage run spends about 2.5 s importing keystone; set-up needs
four (db_sync, fernet_setup, credential_setup, bootstrap).  This imports
keystone once and forks a child per command, so every command still gets a
fresh process (keystone's global config is parsed once per command).

    python -m nova_fpga.localcloud.keystone_manage '[["db_sync", ...], ...]'

Stops at the first command that fails, with its exit code.
"""
import json
import os
import sys
import traceback


def _child(cli, argv):
    try:
        cli.main(argv=['keystone-manage'] + argv)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main():
    from keystone.cmd import cli
    for argv in json.loads(sys.argv[1]):
        print('$ keystone-manage %s' % ' '.join(argv), flush=True)
        pid = os.fork()
        if pid == 0:
            _child(cli, argv)
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        if code:
            print('keystone-manage %s exited %s' % (argv[0], code), flush=True)
            sys.exit(code)


if __name__ == '__main__':
    main()
