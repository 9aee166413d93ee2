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

"""Real keystone on 127.0.0.1 with the users and projects nova-fpga needs.

One admin, a 'glance' service user (glance's auth_token middleware validates
tokens as it), and two tenants: alice in 'demo' and bob in 'fpga-builders',
so tests can show that one project's bitstreams are not another's.  Keystone
runs on SQLite with both fernet key repositories inside the state directory:
without them keystone-manage writes /etc/keystone.
"""
import grp
import json
import os
import pathlib
import pwd
import shlex
import sys
import textwrap
import time

from keystoneauth1.identity import v3
from keystoneauth1 import session as ks_session
from keystoneclient.v3 import client as ks_client

from nova_fpga_devtools.localcloud import process

REGION = 'RegionOne'
DOMAIN = 'Default'

#: user: (project, role, password) created at start; admin comes from
#: bootstrap.
USERS = {
    'admin': ('admin', 'admin', 'admin-secret'),
    'glance': ('service', 'admin', 'glance-secret'),
    'alice': ('demo', 'member', 'alice-secret'),
    'bob': ('fpga-builders', 'member', 'bob-secret'),
}


class Keystone:
    """Keystone under gunicorn, state in state_dir/keystone."""

    def __init__(self, state_dir, port=None, host='127.0.0.1',
                 die_with_parent=True):
        self.dir = pathlib.Path(state_dir) / 'keystone'
        self.host = host
        self.port = port
        self.die_with_parent = die_with_parent
        self.conf_dir = self.dir / 'etc'
        self.log = self.dir / 'keystone.log'
        self.process = None
        #: Seconds the last start() took, set-up commands included.
        self.startup_seconds = None
        self._admin = None

    @property
    def url(self):
        return 'http://%s:%d' % (self.host, self.port)

    @property
    def auth_url(self):
        return self.url + '/v3'

    def start(self, timeout=60):
        """Configure, migrate, bootstrap, serve, then create users/projects."""
        began = time.monotonic()
        self.port = self.port or process.free_port(self.host)
        self._configure()
        self.process = process.gunicorn(
            'keystone', 'keystone.server.wsgi:initialize_public_application()',
            self.dir, self.port, env=self._env(),
            die_with_parent=self.die_with_parent)
        self.process.start(timeout)
        try:
            self._provision()
            self.write_openrc_files()
        except Exception:
            self.stop()
            raise
        self.startup_seconds = time.monotonic() - began
        return self

    def stop(self):
        self._admin = None
        return self.process.stop() if self.process else False

    def _env(self):
        env = dict(os.environ, OS_KEYSTONE_CONFIG_DIR=str(self.conf_dir))
        env.pop('OS_KEYSTONE_CONFIG_FILES', None)
        return env

    def _configure(self):
        fernet = self.dir / 'fernet-keys'
        credential = self.dir / 'credential-keys'
        for path in (fernet, credential):
            path.mkdir(parents=True, exist_ok=True)
            path.chmod(0o700)
        conf = process.write_conf(self.conf_dir / 'keystone.conf', {
            ('database', 'connection'):
                'sqlite:///%s' % (self.dir / 'keystone.sqlite'),
            ('fernet_tokens', 'key_repository'): fernet,
            ('fernet_receipts', 'key_repository'): fernet,
            ('credential', 'key_repository'): credential,
            # bcrypt's cheapest cost: every user create and token issue
            # hashes a password, and the default (12) costs ~0.25 s each.
            ('identity', 'password_hash_rounds'): 4,
        })
        # The key repositories belong to whoever runs the cloud.
        owner = ['--keystone-user', pwd.getpwuid(os.getuid()).pw_name,
                 '--keystone-group', grp.getgrgid(os.getgid()).gr_name]
        commands = [['db_sync'], ['fernet_setup'] + owner,
                    ['credential_setup'] + owner, [
                        'bootstrap',
                        '--bootstrap-username', 'admin',
                        '--bootstrap-password', USERS['admin'][2],
                        '--bootstrap-project-name', 'admin',
                        '--bootstrap-role-name', 'admin',
                        '--bootstrap-region-id', REGION,
                        '--bootstrap-admin-url', self.auth_url,
                        '--bootstrap-internal-url', self.auth_url,
                        '--bootstrap-public-url', self.auth_url]]
        commands = [['--config-file', str(conf)] + command
                    for command in commands]
        process.run(
            'keystone-manage',
            [
                sys.executable,
                '-m',
                'nova_fpga_devtools.localcloud.manage_commands',
                'keystone-manage',
                json.dumps(commands),
            ],
            self.log,
            env=self._env(),
        )

    def password(self, user):
        return USERS[user][2]

    def session(self, user='admin', project=None):
        """A keystoneauth1 session scoped to user's project (or project)."""
        own_project, _role, password = USERS[user]
        auth = v3.Password(
            auth_url=self.auth_url, username=user, password=password,
            project_name=project or own_project,
            user_domain_name=DOMAIN, project_domain_name=DOMAIN)
        return ks_session.Session(auth=auth)

    @property
    def admin(self):
        """keystoneclient v3 as admin."""
        if self._admin is None:
            self._admin = ks_client.Client(session=self.session('admin'),
                                           interface='public')
        return self._admin

    def _provision(self):
        """Roles, projects, users and grants from USERS, missing ones only.

        Each keystone request costs 0.1-0.2 s here, so this lists once and
        passes ids instead of letting keystoneclient look objects up again.
        """
        ks = self.admin
        roles = {role.name: role.id for role in ks.roles.list()}
        for name in ('admin', 'member', 'reader'):
            if name not in roles:
                roles[name] = ks.roles.create(name=name).id
        projects = {project.name: project.id
                    for project in ks.projects.list(domain='default')}
        users = {
            user.name: user.id for user in ks.users.list(domain='default')
        }
        for user, (project, role, password) in USERS.items():
            if project not in projects:
                projects[project] = ks.projects.create(
                    name=project, domain='default').id
            if user not in users:
                users[user] = ks.users.create(
                    name=user, domain='default', password=password,
                    default_project=projects[project]).id
                ks.roles.grant(roles[role], user=users[user],
                               project=projects[project])

    def set_endpoints(self, service_type, name, url):
        """Point service_type's public/internal/admin endpoints at url.

        Called by each service at start: its port changes from run to run,
        so stale endpoints are replaced, not added to.
        """
        ks = self.admin
        found = ks.services.list(type=service_type)
        service = found[0] if found else ks.services.create(
            name=name, type=service_type)
        for endpoint in ks.endpoints.list(service=service):
            ks.endpoints.delete(endpoint)
        for interface in ('public', 'internal', 'admin'):
            ks.endpoints.create(service=service, url=url, interface=interface,
                                region=REGION)

    def openrc(self, user='admin', project=None):
        """OS_* variables for the openstack CLI as user (an openrc)."""
        own_project, _role, password = USERS[user]
        return {
            'OS_AUTH_URL': self.auth_url,
            'OS_AUTH_TYPE': 'password',
            'OS_IDENTITY_API_VERSION': '3',
            'OS_USERNAME': user,
            'OS_PASSWORD': password,
            'OS_PROJECT_NAME': project or own_project,
            'OS_USER_DOMAIN_NAME': DOMAIN,
            'OS_PROJECT_DOMAIN_NAME': DOMAIN,
            'OS_REGION_NAME': REGION,
            'OS_INTERFACE': 'public',
        }

    def write_openrc_files(self):
        """state_dir/keystone/openrc-<user>, to source in a shell: each
        clears the OS_* variables first (openrc_script).
        """
        for user in USERS:
            (self.dir / ('openrc-%s' % user)).write_text(openrc_script(
                self.openrc(user), '%s (project %s) on the keystone at %s'
                % (user, USERS[user][0], self.auth_url)))


#: OS_* variables the openstack CLI reads that a shell may hold from an
#: earlier openrc: keystoneauth's and osc-lib's option defaults
#: (OS_<OPTION>) and openstacksdk's config loader (every OS_* variable but
#: OS_TEST*, OS_STD* and OS_LOG*).  An openrc unsets these by name and then
#: every other OS_* variable in the environment.
CLIENT_VARIABLES = (
    'OS_AUTH_URL', 'OS_AUTH_TYPE', 'OS_AUTH_PLUGIN', 'OS_USERNAME',
    'OS_USER_ID', 'OS_PASSWORD', 'OS_TOKEN', 'OS_PROJECT_NAME',
    'OS_PROJECT_ID', 'OS_TENANT_NAME', 'OS_TENANT_ID', 'OS_USER_DOMAIN_NAME',
    'OS_USER_DOMAIN_ID', 'OS_PROJECT_DOMAIN_NAME', 'OS_PROJECT_DOMAIN_ID',
    'OS_DOMAIN_NAME', 'OS_DOMAIN_ID', 'OS_DEFAULT_DOMAIN',
    'OS_SYSTEM_SCOPE', 'OS_TRUST_ID', 'OS_REGION_NAME', 'OS_INTERFACE',
    'OS_ENDPOINT_TYPE', 'OS_IDENTITY_API_VERSION', 'OS_CLOUD',
    'OS_CLOUD_NAME', 'OS_CLIENT_CONFIG_FILE', 'OS_CLIENT_SECURE_FILE',
)
#: Variables that only pick a cloud out of clouds.yaml: they do not
#: override --os-cloud.
SELECTORS = ('OS_CLOUD', 'OS_CLIENT_CONFIG_FILE', 'OS_CLIENT_SECURE_FILE',
             'OS_CLOUD_NAME')
#: Prefixes openstacksdk's loader ignores (CI and oslotest variables).
_NOT_CLIENT = ('OS_TEST', 'OS_STD', 'OS_LOG')


def is_client_variable(name):
    """True for an environment variable the openstack CLI reads."""
    return name.startswith('OS_') and not name.startswith(_NOT_CLIENT)


def without_client_variables(environ):
    """environ (a mapping) without the OS_* variables the openstack CLI
    reads: the base of a subprocess environment given its own openrc.
    """
    return {name: value for name, value in environ.items()
            if not is_client_variable(name)}


def overriding_variables(environ=None):
    """Sorted names of the OS_* variables in environ (default os.environ)
    that the openstack CLI takes over --os-cloud: they are the defaults
    of its --os-* options, so `openstack --os-cloud nova-fpga-alice` with
    admin's OS_USERNAME and OS_PASSWORD set runs as admin.
    """
    environ = os.environ if environ is None else environ
    return sorted(name for name in environ
                  if is_client_variable(name) and name not in SELECTORS)


def openrc_script(exports, title):
    """A POSIX shell file to source: unsets every OS_* variable the
    openstack CLI reads (CLIENT_VARIABLES, then any other OS_* variable
    in the environment), then exports exports ({name: value}).
    """
    lines = [
        '# %s' % title,
        '# Source it (". FILE"): it first unsets every OS_* variable the',
        '# openstack CLI reads, so nothing left by another openrc overrides',
        '# these credentials or --os-cloud.',
        'unset %s' % ' \\\n    '.join(textwrap.wrap(
            ' '.join(CLIENT_VARIABLES), 66)),
        'for _nova_fpga_var in $(env | sed -n '
        "'s/^\\(OS_[A-Za-z0-9_]*\\)=.*/\\1/p'); do",
        '    case "$_nova_fpga_var" in',
        '        %s) ;;' % '|'.join(prefix + '*' for prefix in _NOT_CLIENT),
        '        *) unset "$_nova_fpga_var" ;;',
        '    esac',
        'done',
        'unset _nova_fpga_var',
    ]
    lines += ['export %s=%s' % (key, shlex.quote(str(value)))
              for key, value in exports.items()]
    return '\n'.join(lines) + '\n'
