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

"""Service users and catalog entries in the local keystone, and the auth
options each service's config carries to use them.

Every service (nova, placement, neutron) validates tokens as its own user in
the 'service' project and finds the others through keystone's catalog, as
in a real cloud; nothing is pinned to a URL but keystone's.
"""
from nova_fpga_devtools.localcloud import keystone as localkeystone

SERVICE_PROJECT = 'service'


def password(user):
    """The local cloud's password for a service user (it is on 127.0.0.1)."""
    return '%s-secret' % user


def ensure_service_user(keystone, user):
    """user in the service project with the admin and service roles.

    The service role is what makes a token a service token: nova sends its
    own beside the user's to neutron, and keystonemiddleware rejects the
    request when that token lacks the role.
    """
    ks = keystone.admin
    project = ks.projects.find(name=SERVICE_PROJECT)
    roles = {role.name: role for role in ks.roles.list()}
    if 'service' not in roles:
        roles['service'] = ks.roles.create(name='service')
    found = ks.users.list(domain='default', name=user)
    account = found[0] if found else ks.users.create(
        name=user, domain='default', password=password(user),
        default_project=project)
    for role in ('admin', 'service'):
        ks.roles.grant(roles[role], user=account, project=project)


def auth_options(keystone, section, user):
    """{(section, option): value}: a keystoneauth password plugin as user."""
    return {(section, option): value for option, value in {
        'auth_url': keystone.auth_url,
        'auth_type': 'password',
        'username': user,
        'password': password(user),
        'project_name': SERVICE_PROJECT,
        'user_domain_name': localkeystone.DOMAIN,
        'project_domain_name': localkeystone.DOMAIN,
        'region_name': localkeystone.REGION,
    }.items()}


def authtoken_options(keystone, user):
    """[keystone_authtoken] for a service that validates tokens as user."""
    options = auth_options(keystone, 'keystone_authtoken', user)
    options[('keystone_authtoken', 'www_authenticate_uri')] = \
        keystone.auth_url
    return options
