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

"""The demo cloud's quotas: nova's unified limits, kept in keystone.

nova counts a project's usage in placement and compares it with keystone's
limits (oslo.limit) when ``[quota] driver = nova.quota.UnifiedLimitsDriver``;
a flavor's ``resources:CUSTOM_FPGA_REGION=1`` makes every region server
count against ``class:CUSTOM_FPGA_REGION``.  The registered limits are every
project's defaults; a project limit overrides one for one project.

With unified limits nova enforces every resource a flavor asks placement
for, so the other flavors keep the legacy driver's defaults (10 servers,
20 cores, 50 GiB of RAM per project) as registered limits, and the
resources legacy quotas never limited (disks, the boards' slots, which
follow their regions one for one) get keystone's "no limit", -1: left
unregistered, nova would ask keystone on every create whether they are.

nova reads the limits as its own user with a system-scoped token: listing
every project's limits and the service catalog needs the reader role on
the system (keystone's default policy).  The compute service is found by
type and region, not by endpoint ID: the demo replaces its endpoints at
every start.
"""
from nova_fpga.contract import placement
from nova_fpga_devtools.localcloud import catalog
from nova_fpga_devtools.localcloud import keystone as localkeystone

UNLIMITED = -1
#: resource name -> every project's default
REGISTERED_LIMITS = {
    'servers': 10,
    'class:VCPU': 20,
    'class:MEMORY_MB': 51200,
    'class:DISK_GB': UNLIMITED,
    'class:%s' % placement.BOARD_SLOT_RESOURCE_CLASS: UNLIMITED,
    # above the demo's four regions: for every project but alice's the
    # boards' capacity, not the quota, refuses a fifth region server
    placement.REGION_LIMIT: 10,
}
#: project -> {resource name: limit}: alice's project may hold one region
PROJECT_LIMITS = {'demo': {placement.REGION_LIMIT: 1}}
SERVICE_TYPE = 'compute'


def nova_options(keystone):
    """{(section, option): value} of nova.conf for unified limits."""
    options = {
        ('quota', 'driver'): 'nova.quota.UnifiedLimitsDriver',
        ('oslo_limit', 'endpoint_service_type'): SERVICE_TYPE,
        ('oslo_limit', 'endpoint_region_name'): localkeystone.REGION,
        ('oslo_limit', 'system_scope'): 'all',
    }
    for (section, option), value in catalog.auth_options(
            keystone, 'oslo_limit', 'nova').items():
        # a system-scoped token: no project
        if option not in ('project_name', 'project_domain_name'):
            options[(section, option)] = value
    return options


def provision(keystone):
    """nova's system reader role, the registered limits and the project
    limits, created or set to this module's values (compute's service must
    exist).
    """
    ks = keystone.admin
    (service,) = ks.services.list(type=SERVICE_TYPE)
    (nova,) = ks.users.list(domain='default', name='nova')
    (reader,) = ks.roles.list(name='reader')
    ks.roles.grant(reader, user=nova, system='all')
    have = {limit.resource_name: limit for limit in ks.registered_limits.list(
        service=service, region=localkeystone.REGION)}
    for name, default in sorted(REGISTERED_LIMITS.items()):
        if name not in have:
            ks.registered_limits.create(service, name, default,
                                        region=localkeystone.REGION)
        elif have[name].default_limit != default:
            ks.registered_limits.update(have[name], default_limit=default)
    projects = {p.name: p for p in ks.projects.list(domain='default')}
    have = {(limit.project_id, limit.resource_name): limit
            for limit in ks.limits.list(service=service,
                                        region=localkeystone.REGION)}
    for project, limits in sorted(PROJECT_LIMITS.items()):
        for name, value in sorted(limits.items()):
            limit = have.get((projects[project].id, name))
            if limit is None:
                ks.limits.create(projects[project], service, name, value,
                                 region=localkeystone.REGION)
            elif limit.resource_limit != value:
                ks.limits.update(limit, resource_limit=value)
