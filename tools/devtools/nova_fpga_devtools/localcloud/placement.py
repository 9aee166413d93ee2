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

"""Real placement on 127.0.0.1 under gunicorn, its database on MariaDB.

State in state_dir/placement; the catalog's 'placement' endpoint points
here and tokens are checked against the local keystone as user placement.
"""
from nova_fpga import deployment
from nova_fpga_devtools.localcloud import api_service
from nova_fpga_devtools.localcloud import catalog
from nova_fpga_devtools.localcloud import migrations
from nova_fpga_devtools.localcloud import process


class Placement(api_service.ApiService):
    name = 'placement'
    process_name = 'placement-api'
    application = 'placement.wsgi.api:application'

    def conf(self):
        # what every nova-fpga deployment sets (the DevStack plugin too):
        # no double booking of a region on MariaDB
        options = process.options(deployment.placement())
        options.update({
            ('placement_database', 'connection'): self.database_url,
            ('api', 'auth_strategy'): 'keystone',
            ('oslo_concurrency', 'lock_path'): self.dir / 'locks',
        })
        options.update(catalog.authtoken_options(self.keystone, 'placement'))
        return options

    def start(self, timeout=60):
        """Write config, migrate once, register user and endpoints, serve."""
        conf = process.write_conf(self.conf_dir / 'placement.conf',
                                  self.conf())
        migrations.once(self.dir, 'placement', [
            [process.BIN / 'placement-manage', '--config-file', conf,
             'db', 'sync']], self.log, env=self._env())
        catalog.ensure_service_user(self.keystone, 'placement')
        self.keystone.set_endpoints('placement', 'placement', self.url)
        self.process.start(timeout)
        return self
