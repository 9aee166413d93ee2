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

"""Two servers given one region by placement (issue 20).

Placement writes a consumer's allocations in one database transaction and,
on a resource provider generation conflict (another consumer's allocation
committed meanwhile), retries the write server-side
([placement] allocation_conflict_retry_count times) inside that same
transaction.  On MySQL/MariaDB (REPEATABLE READ) the retry reloads the
providers' generations in a transaction of its own, but checks capacity
against the first transaction's snapshot, which does not show the
allocation that caused the conflict: the retry passes, and a region with
capacity 1 has two consumers.  The scale benchmark's agents then refused
the second server ("region rp1 is held by instance ...").

Real placement code on a private MariaDB, through placement's own in-process
client; the interleaving of two claims is forced by pausing the first one
right after its transaction read the providers' usage.  Placement configures
its database once per process: like nova's functional harness, whose
placement has a database of its own, these run in a pytest process apart
from tests/functional (as make test runs them).
"""
import threading
import uuid

from oslo_config import cfg
from placement import conf as placement_conf
from placement import direct
from placement.objects import allocation as alloc_obj
import pytest

from nova_fpga.contract import placement
from nova_fpga import deployment
from nova_fpga_devtools.localcloud import mariadb
from nova_fpga_devtools.localcloud import process

MICROVERSION = {'OpenStack-API-Version': 'placement 1.36'}
PROJECT = str(uuid.uuid4())
USER = str(uuid.uuid4())


@pytest.fixture(scope='module')
def database_url(tmp_path_factory):
    db = mariadb.PrivateMariaDB(tmp_path_factory.mktemp('placement-db'),
                                process.free_port())
    try:
        db.start()
        mariadb.create_databases(db.url, ['placement'])
    except process.ServiceError as exc:
        db.stop()
        pytest.fail(str(exc), pytrace=False)
    yield mariadb.database_url(db.url, 'placement') + '?charset=utf8'
    db.stop()


def placement_conf_with(url, options):
    conf = cfg.ConfigOpts()
    placement_conf.register_opts(conf)
    conf.set_default('connection', url, group='placement_database')
    conf([], project='placement', default_config_files=[],
         default_config_dirs=[])
    conf.set_override('sync_on_startup', True, group='placement_database')
    for section, option, value in options:
        conf.set_override(option, value, group=section)
    return conf


def _ok(response):
    assert response.status_code < 300, response.text
    return response


def region(client):
    """A new region provider: CUSTOM_FPGA_REGION, total 1."""
    rp = str(uuid.uuid4())
    _ok(client.put('/resource_classes/%s' % placement.REGION_RESOURCE_CLASS,
                   headers={'OpenStack-API-Version': 'placement 1.7'}))
    _ok(client.post('/resource_providers', json={'name': 'board:rp' + rp,
                                                 'uuid': rp},
                    headers=MICROVERSION))
    _ok(client.put('/resource_providers/%s/inventories' % rp, json={
        'resource_provider_generation': 0,
        'inventories': {placement.REGION_RESOURCE_CLASS: {
            'total': 1, 'max_unit': 1}}}, headers=MICROVERSION))
    return rp


def claim(client, rp, consumer):
    """The scheduler's claim (nova's PUT of an allocation candidate)."""
    return client.put('/allocations/%s' % consumer, json={
        'allocations': {rp: {'resources': {
            placement.REGION_RESOURCE_CLASS: 1}}},
        'consumer_generation': None, 'project_id': PROJECT,
        'user_id': USER}, headers=MICROVERSION)


def racing_claims(conf, monkeypatch):
    """Claims of the same region by two servers, the second's committed
    while the first's transaction is open: (first's answer, second's
    answer, the region's consumers).
    """
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    paused, released = threading.Event(), threading.Event()
    delete = alloc_obj._delete_allocations_for_consumer

    def pausing_delete(ctx, consumer_id):
        # called by each write attempt after its usage read: the first
        # claim's transaction has read its snapshot here
        if consumer_id == first and not paused.is_set():
            paused.set()
            released.wait(30)
        return delete(ctx, consumer_id)

    monkeypatch.setattr(alloc_obj, '_delete_allocations_for_consumer',
                        pausing_delete)
    with direct.PlacementDirect(conf) as client:
        rp = region(client)
        answers = {}
        thread = threading.Thread(target=lambda: answers.setdefault(
            first, claim(client, rp, first)))
        thread.start()
        try:
            assert paused.wait(30), 'the first claim never reached its write'
            answers[second] = claim(client, rp, second)
        finally:
            released.set()
            thread.join(60)
        consumers = client.get('/resource_providers/%s/allocations' % rp,
                               headers=MICROVERSION).json()['allocations']
    return answers[first], answers[second], sorted(consumers)


def test_stock_placement_gives_one_region_twice(database_url, monkeypatch):
    """What the benchmark met: placement's defaults on MariaDB."""
    conf = placement_conf_with(database_url, [])
    first, second, consumers = racing_claims(conf, monkeypatch)
    assert (first.status_code, second.status_code) == (204, 204)
    assert len(consumers) == 2


def test_deployment_placement_gives_a_region_once(database_url, monkeypatch):
    """With the deployment's placement options (nova_fpga.deployment,
    written by the demo cloud and the DevStack plugin), the losing claim
    is refused as a conflict and nova's scheduler claims anew.
    """
    conf = placement_conf_with(database_url, deployment.placement())
    first, second, consumers = racing_claims(conf, monkeypatch)
    assert second.status_code == 204
    # the code nova's report client retries a claim on (a new request)
    assert first.status_code == 409
    assert first.json()['errors'][0]['code'] == 'placement.concurrent_update'
    assert len(consumers) == 1
