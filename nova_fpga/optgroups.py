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

"""Option groups registered on a ConfigOpts of their own.

oslo.config keeps a shallow copy of the OptGroup it is given, whose
option table (with the overrides and defaults set through that conf) is
the original's: one module-level OptGroup registered on two ConfigOpts
makes an override on one show on the other (a test's conf leaking into
the next, or one board of a fleet taking another's settings).  Every conf
gets a group made afresh from the module's name, title and help.
"""
from oslo_config import cfg


def register(conf, group, opts):
    """Register opts in group (an OptGroup, as listed for
    oslo-config-generator) on conf alone.
    """
    conf.register_group(cfg.OptGroup(group.name, title=group.title,
                                     help=group.help))
    conf.register_opts(opts, group=group.name)
