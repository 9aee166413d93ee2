"""Database set-up commands that run once per state directory.

Migrations cost 3-30 s each; a resumed cloud keeps its databases, so a
marker file written after the last command succeeded says they are done.
"""
import pathlib

from nova_fpga_devtools.localcloud import process


def done(service_dir):
    return (pathlib.Path(service_dir) / 'migrated').exists()


def once(service_dir, name, commands, log, env=None):
    """Run commands (argv lists) unless service_dir was migrated before."""
    if done(service_dir):
        return False
    for argv in commands:
        process.run(name, argv, log, env=env, timeout=600)
    (pathlib.Path(service_dir) / 'migrated').write_text('')
    return True
