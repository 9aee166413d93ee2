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

"""barbican-api's WSGI application with its paste pipeline where the
local cloud keeps it: barbican's own entry point (barbican.wsgi.api)
reads /etc/barbican/barbican-api-paste.ini only.  Here the pipeline is the
one in $NOVA_FPGA_BARBICAN_CONF_DIR (localcloud.barbican copies the
wheel's there), loaded by paste.deploy as barbican.api.app loads it;
barbican finds its barbican.conf beside it by itself (~/.barbican/).
"""
import os
import pathlib

from paste import deploy

CONF_DIR = pathlib.Path(os.environ['NOVA_FPGA_BARBICAN_CONF_DIR'])

application = deploy.loadapp('config:%s' %
                             (CONF_DIR / 'barbican-api-paste.ini'))
