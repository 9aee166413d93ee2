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

"""Debian packages a local cloud starts its own servers from.

A private MariaDB or RabbitMQ is started from the Debian package's binaries;
when they are absent and we run as root the package is installed with apt
(as tools/setup-env does), otherwise the caller is told what to install.
"""
import os
import shutil

from nova_fpga_devtools.localcloud import process


def ensure(name, binary, package, log):
    """The path of binary, installing package with apt first if needed."""
    found = shutil.which(binary) or next(
        (path for path in ('/usr/sbin/' + binary, '/usr/bin/' + binary)
         if os.path.exists(path)), None)
    if found:
        return found
    if os.getuid() != 0:
        raise process.ServiceError(name, '%s not found: install the Debian '
                                   'package %s (or run as root)'
                                   % (binary, package))
    env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
    process.run(name, ['apt-get', 'update', '-qq'], log, env=env, timeout=600)
    process.run(name, ['apt-get', 'install', '-y', '-qq', package], log,
                env=env, timeout=900)
    found = shutil.which(binary) or '/usr/sbin/' + binary
    if not os.path.exists(found):
        raise process.ServiceError(name, 'apt installed %s but %s is still '
                                   'missing' % (package, binary), log)
    return found
