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

"""The plugin tempest loads by its entry point (group
``tempest.test_plugins``, name ``nova_fpga_tests``).
"""
import os

from oslo_config import cfg
from tempest import config
from tempest.test_discover import plugins

from nova_fpga_tempest_plugin import config as project_config


class NovaFpgaTempestPlugin(plugins.TempestPlugin):
    """Where the tests are and which options they read."""

    def load_tests(self):
        base_path = os.path.split(os.path.dirname(
            os.path.abspath(__file__)))[0]
        test_dir = os.path.join('nova_fpga_tempest_plugin', 'tests')
        full_test_dir = os.path.join(base_path, test_dir)
        return full_test_dir, base_path

    def register_opts(self, conf):
        # a group made afresh for each conf: oslo.config keeps a shallow
        # copy of the OptGroup it is given, so one module-level group on
        # two confs would share its option table (and the overrides set
        # through either)
        for group, opts in project_config.GROUPS:
            config.register_opt_group(
                conf,
                cfg.OptGroup(group.name, title=group.title,
                             help=group.help),
                opts)

    def get_opt_lists(self):
        return [(group.name, opts) for group, opts in project_config.GROUPS]
