"""What every test that drives real OpenStack services uses: the real
openstack CLI as one user, and a pid check that a zombie does not pass."""
import json
import os
import pathlib
import subprocess

from nova_fpga.localcloud import process

OPENSTACK = str(process.BIN / 'openstack')


class CLI:
    """The real openstack CLI with one user's openrc: a Keystone's,
    a Glance's or a demo cloud's openrc(user), or such a dict changed."""

    def __init__(self, openrc):
        self.env = dict(os.environ, **openrc)

    def run(self, *args, check=True):
        out = subprocess.run([OPENSTACK, *map(str, args)], env=self.env,
                             capture_output=True, text=True, timeout=300)
        if check and out.returncode:
            raise AssertionError('openstack %s exited %d: %s' % (
                ' '.join(map(str, args)), out.returncode, out.stderr))
        return out

    def json(self, *args):
        return json.loads(self.run(*args, '-f', 'json').stdout)


def alive(pid):
    """True while pid is a live process (a zombie counts as gone)."""
    try:
        text = pathlib.Path('/proc/%d/stat' % pid).read_text()
    except FileNotFoundError:
        return False
    return text[text.rindex(')') + 2] != 'Z'
