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

"""An OpenStack API service with a database of its own under gunicorn.

placement-api and neutron-server are set up alike: state in
state_dir/<name>, configuration in its etc/ (found by the service through
its OS_<NAME>_CONFIG_DIR variable), the WSGI application served by
gunicorn on host:port, tokens checked against the local keystone.
Subclasses name the service and write its configuration in start().
"""
import os
import pathlib

from nova_fpga_devtools.localcloud import process


class ApiService:
    #: the state directory's name and the config-dir variable's infix
    name = None
    #: what gunicorn logs and pid files are called
    process_name = None
    #: the WSGI application, module:callable
    application = None

    def __init__(self, keystone, state_dir, database_url, port,
                 host='127.0.0.1', die_with_parent=True):
        self.keystone = keystone
        self.dir = pathlib.Path(state_dir) / self.name
        self.conf_dir = self.dir / 'etc'
        self.database_url = database_url
        self.host, self.port = host, port
        self.process = process.gunicorn(
            self.process_name, self.application, self.dir, port,
            env=self._env(), threads=4, host=host,
            die_with_parent=die_with_parent)
        self.log = self.process.log

    @property
    def url(self):
        return 'http://%s:%d' % (self.host, self.port)

    def _env(self):
        return dict(os.environ, **{
            'OS_%s_CONFIG_DIR' % self.name.upper(): str(self.conf_dir)})
