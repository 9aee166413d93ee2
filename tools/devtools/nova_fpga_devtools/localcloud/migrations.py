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
