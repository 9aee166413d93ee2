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

"""Who may create bitstream images: an oslo.policy rule in Glance's policy
file.

A malicious or broken bitstream can damage the hardware it is loaded into,
so by default only admins create bitstream images.  An operator who trusts
a project adds it in Glance's policy.yaml, for example::

    "fpga:bitstream:create": "role:admin or project_id:%(builders)s"

The rule is checked by the bitstream store (plain uploads) and by the
import plugin (imports), with the requesting user's credentials.
"""
from oslo_config import cfg
from oslo_policy import policy

from glance.common import exception

CREATE = 'fpga:bitstream:create'

RULES = [
    policy.DocumentedRuleDefault(
        name=CREATE,
        check_str='role:admin',
        description='Create a bitstream image: upload data into the '
                    'bitstream store, or import data declared as a '
                    'bitstream (fpga_shell_id set).',
        operations=[{'path': '/v2/images/{image_id}/file', 'method': 'PUT'},
                    {'path': '/v2/images/{image_id}/import',
                     'method': 'POST'}]),
]

_enforcer = None


def list_rules():
    """For oslopolicy-sample-generator (entry point oslo.policy.policies)."""
    return RULES


def _get_enforcer():
    global _enforcer
    if _enforcer is None:
        _enforcer = policy.Enforcer(cfg.CONF)
        _enforcer.register_defaults(RULES)
    return _enforcer


def enforce_create(context):
    """:raises glance.common.exception.Forbidden: the policy says no."""
    target = {'project_id': context.project_id}
    if not _get_enforcer().enforce(CREATE, target, context):
        raise exception.Forbidden(
            'policy %s does not allow project %s to create bitstream images'
            % (CREATE, context.project_id))
