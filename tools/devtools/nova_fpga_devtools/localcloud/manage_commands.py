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

"""Several keystone-manage or nova-manage commands for the price of one import.

Importing keystone takes about 2.5 s and nova about 5 s, and a new cloud
runs four set-up commands of each (keystone: db_sync, fernet_setup,
credential_setup, bootstrap; nova: api_db sync, cell_v2 map_cell0,
cell_v2 create_cell, db sync).  This imports the tool's module once and
forks a child per command, so every command still runs in a fresh process
and parses its own arguments into a fresh global config, as the real
command does.

    python -m nova_fpga_devtools.localcloud.manage_commands nova-manage \
        '[["--config-file", F, "db", "sync"], ...]'

Stops at the first command that fails, with its exit code.
"""
import importlib
import json
import os
import sys
import traceback

#: tool -> (its module, how to run its main() on sys.argv)
TOOLS = {
    'keystone-manage': ('keystone.cmd.cli',
                        lambda module: module.main(argv=sys.argv)),
    'nova-manage': ('nova.cmd.manage', lambda module: module.main()),
}


def _child(tool, module, argv):
    sys.argv = [tool] + argv
    try:
        code = TOOLS[tool][1](module)
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
    tool, commands = sys.argv[1], json.loads(sys.argv[2])
    module = importlib.import_module(TOOLS[tool][0])
    for argv in commands:
        print('$ %s %s' % (tool, ' '.join(argv)), flush=True)
        pid = os.fork()
        if pid == 0:
            _child(tool, module, argv)
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        if code:
            print('%s %s exited %s' % (tool, ' '.join(argv), code),
                  flush=True)
            sys.exit(code)


if __name__ == '__main__':
    main()
