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

"""Every RPC method of the agent API, as the contract lists them
(agent_api.METHODS), called with malformed, oversized, wrong-typed and
out-of-range arguments over RabbitMQ on a running agent (a behavioural
board, its own process).

Each call gets an answer or one of the API's errors (an AgentError), never
another exception, a traceback in the agent's log or a timeout; describe
and health answer after it; a refused call changes no region, and a load
refused as LoadFailed (the one refusal that marks its region FAILED, by
design) was a well-formed request.  Between calls the board goes back to
its starting state: rp0 running a loopback for instance A, rp1 free.
NOVA_FPGA_RPC_FUZZ sets the calls per method (CI: CALLS_IN_CI).
"""
import base64
import collections
import hashlib
import inspect
import os
import re
import uuid

from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
import oslo_messaging as messaging
import pytest

from nova_fpga.contract import agent_api as api
from nova_fpga.contract import states
from nova_fpga_agent import rpc
from tests.agent.conftest import module_for
from tests.agent.processes import AgentProcess
from tests.agent.processes import client_for

CALLS_IN_CI = 25
CALLS = int(os.environ.get('NOVA_FPGA_RPC_FUZZ') or CALLS_IN_CI)
BOARD = 'fuzz0'
#: the agent's limit: above both modules (the rp1 loopback is 1.4 MB), and
#: a bitstream one byte over it still fits a message (larger messages are
#: dropped unparsed and their caller times out: tests/agent/
#: test_bus_security.py)
MAX_BITSTREAM = 2 * 1024 * 1024
A, B = str(uuid.uuid4()), str(uuid.uuid4())
RP0 = module_for('rp0')
RP1 = module_for('rp1')
OVERSIZED = base64.b64encode(bytes(MAX_BITSTREAM + 1)).decode('ascii')
PORT = str(uuid.uuid4())
COUNTS = collections.Counter()
TRACEBACK = re.compile(r'Traceback|Exception during message handling')


class Board:
    """The agent under fuzz, a client for the checks between calls, and
    what the fuzz sends through: the transport itself (AgentAPI would
    check the arguments first).
    """

    target = messaging.Target(exchange=api.EXCHANGE, topic=api.DEFAULT_TOPIC,
                              server=BOARD)

    def __init__(self, agent, client, transport):
        self.agent, self.client, self.transport = agent, client, transport

    def regions(self):
        return {r['name']: {k: v for k, v in r.items() if k != 'sequence'}
                for r in self.client.describe({}, BOARD)['regions']}

    def call(self, ctxt, method, kwargs):
        """The RPC message an RPCClient would send, sent as it is: the
        client's call() cannot name an argument 'ctxt' or 'self', and a
        hostile sender can.
        """
        message = {'method': method, 'args': kwargs,
                   'version': api.METHODS[method][0]}
        return self.transport._send(self.target, ctxt, message,
                                    wait_for_reply=True, timeout=20)

    def restore(self):
        """rp0 running RP0 for A, rp1 free, whatever the last call did."""
        for name, region in self.regions().items():
            wanted = name == 'rp0' and region['state'] == states.ACTIVE \
                and region['instance_uuid'] == A and region['network'] is None
            if region['state'] != states.FREE and not wanted:
                self.client.unload({}, BOARD, name,
                                   region['instance_uuid'] or A)
        if self.regions()['rp0']['state'] != states.ACTIVE:
            self.client.load({}, BOARD, 'rp0', A, 'rp0-image',
                             hashlib.sha256(RP0).hexdigest(), RP0)


@pytest.fixture(scope='module')
def board(rabbitmq, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp('rpcfuzz')
    client, transport = client_for(rabbitmq.user('cloud'), timeout=20)
    agent = AgentProcess(tmp_path, BOARD, rabbitmq.user(BOARD), {
        ('agent', 'backend'): 'behavioural',
        ('agent', 'max_bitstream_bytes'): MAX_BITSTREAM})
    try:
        agent.start(client)
        b = Board(agent, client, transport)
        b.restore()
        yield b
    finally:
        agent.stop()
        transport.cleanup()


# -- arguments ---------------------------------------------------------------

def short(value):
    text = repr(value)
    return text if len(text) < 400 else text[:400] + '...'


def b64(data):
    return base64.b64encode(data).decode('ascii')


def port(vlan, port_id=PORT):
    return {'port_id': port_id, 'vlan': vlan}


#: well-formed values of each argument, the state they may meet included
VALID = {
    'region': st.sampled_from(['rp0', 'rp1']),
    'instance_uuid': st.sampled_from([A, B]),
    'image_id': st.sampled_from(['img-1', 'x' * 64]),
    'sha256': st.sampled_from([hashlib.sha256(d).hexdigest()
                               for d in (RP0, RP1, b'')]),
    'bitstream': st.sampled_from([b64(RP0), b64(RP1), None]),
    'network': st.sampled_from([None, {'in': port(201), 'out': port(202)},
                                {'in': port(4094), 'out': None}]),
    'state': st.sampled_from(list(states.POWER_STATES)),
    'port_id': st.sampled_from([PORT, str(uuid.uuid4())]),
    # the fuzz's bitstreams declare the loopback, which takes none
    'settings': st.sampled_from([None, {}]),
    # the fuzz's board requires no signature; a signed load is
    # tests/agent/test_signed_loads.py's
    'signature': st.sampled_from([None]),
}

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)


def near_misses(name):
    """Values a careless or hostile caller sends for this argument."""
    u = A
    uuids = [u.upper(), '{%s}' % u, 'urn:uuid:%s' % u, u.replace('-', ''),
             u + '\n', ' ' + u, u[:-1], int(u.replace('-', ''), 16),
             int('1' * 32), '0_' + u.replace('-', '')[2:]]
    digest = hashlib.sha256(RP0).hexdigest()
    return {
        'region': ['rp0\n', 'RP0', ' rp1', 'rp2', '', 'rp0' * 10000,
                   '../rp0', 'rp\x000'],
        'instance_uuid': uuids,
        'port_id': uuids,
        'image_id': ['img\n', '', 'x' * 65, 'img/1', '../../etc',
                     'img\x00'],
        'sha256': [digest + '\n', digest.upper(), digest[:-1], digest + '0',
                   '../' + digest[3:], 'g' * 64],
        'bitstream': ['', '!!!!', 'QUJD\n', b64(RP0)[:-1],
                      OVERSIZED,
                      b64(RP0[:1000]), b64(RP0[::-1]), b64(bytes(4096)),
                      'é' * 8],
        'network': [{}, {'in': None, 'out': None}, {'in': port(201)},
                    {'in': port('201'), 'out': None},
                    {'in': port(201.0), 'out': None},
                    {'in': port(201.5), 'out': None},
                    {'in': port(True), 'out': None},
                    {'in': port(0), 'out': None},
                    {'in': port(4095), 'out': None},
                    {'in': port(-1), 'out': None},
                    {'in': port(2 ** 64), 'out': None},
                    {'in': port(201, PORT.upper()), 'out': None},
                    {'in': dict(port(201), extra=1), 'out': None},
                    {'in': port(201), 'out': port(201), 'x': None},
                    [port(201)], 'in:201'],
        'state': ['ON', 'on\n', '', 'reboot', 1, True],
        'settings': [{'vtc:dscp:sip': 46}, {'vtc:dscp:sip': '46'},
                     {'vtc:dscp:sip': True}, {'vtc:dscp:sip': 46.0},
                     {'loopback:x': 1}, {'': 0}, [('vtc:dscp:sip', 46)],
                     'vtc:dscp:sip=46', 46, True,
                     {'vtc:dscp:%d' % i: 1 for i in range(257)}],
        'signature': [{}, 'sig', 1, [], {'signature': 'QUJD'},
                      dict(SIGNED, hash_method='MD5'),
                      dict(SIGNED, key_type='RSA'),
                      dict(SIGNED, signature='not base64!'),
                      dict(SIGNED, certificate=7),
                      dict(SIGNED, certificate='x' * 20000),
                      dict(SIGNED, extra=1),
                      # well-formed, but no certificate: refused in words
                      SIGNED],
    }[name]


#: a signature record of the right form (its certificate is not one)
SIGNED = {'signature': 'QUJD', 'hash_method': 'SHA-256',
          'key_type': 'RSA-PSS', 'certificate': 'not a certificate'}


@st.composite
def calls(draw, method):
    """(context, kwargs) for a call of method."""
    since, arguments = api.METHODS[method]
    kwargs = {}
    for name in sorted(arguments):
        how = draw(st.sampled_from(['valid'] * 6 + ['miss', 'json', 'omit']))
        if how == 'valid':
            kwargs[name] = draw(VALID[name])
        elif how == 'miss':
            kwargs[name] = draw(st.sampled_from(near_misses(name)))
        elif how == 'json':
            kwargs[name] = draw(JSON)
    for _ in range(draw(st.sampled_from([0] * 6 + [1, 2]))):
        kwargs[draw(st.sampled_from(['ctxt', 'self', 'version', 'force'])
                    | st.text(min_size=1, max_size=12))] = draw(JSON)
    ctxt = draw(st.one_of(st.just({}), st.fixed_dictionaries(
        {'request_id': JSON}), st.dictionaries(
            st.text(min_size=1, max_size=8), JSON, max_size=3)))
    return ctxt, kwargs


def well_formed_load(kwargs):
    """What the agent must check before it touches a region."""
    return (kwargs.get('region') in ('rp0', 'rp1')
            and kwargs.get('instance_uuid') in (A, B)
            and isinstance(kwargs.get('sha256'), str)
            and re.fullmatch('[0-9a-f]{64}', kwargs['sha256'])
            and isinstance(kwargs.get('image_id'), str)
            and re.fullmatch('[A-Za-z0-9-]{1,64}', kwargs['image_id']))


# -- the test ----------------------------------------------------------------

def test_the_endpoint_serves_what_the_contract_lists():
    """The table the fuzz enumerates is the endpoint's: same methods, same
    arguments, the optional ones (newer than their method) defaulted.
    """
    served = {name: inspect.signature(getattr(rpc.AgentEndpoint, name))
              for name in vars(rpc.AgentEndpoint)
              if not name.startswith('_') and name != 'target'}
    assert set(served) == set(api.METHODS)
    for name, signature in served.items():
        since, arguments = api.METHODS[name]
        params = list(signature.parameters.values())[2:]
        assert {p.name for p in params} == set(arguments), name
        for p in params:
            optional = arguments[p.name] != since
            assert (p.default is not p.empty) == optional, (name, p.name)


def check_call(board, method, ctxt, kwargs):
    """Make the call; check what it did.  Returns the answer, or the
    AgentError it was refused with.
    """
    before = board.regions()
    COUNTS[(method, 'calls')] += 1
    try:
        answer = board.call(ctxt, method, kwargs)
    except api.AgentError as exc:
        # oslo.messaging names the class re-made from the reply X_Remote
        COUNTS[(method, type(exc).__name__.replace('_Remote', ''))] += 1
        assert exc.message, 'a refusal without words'
        after = board.regions()
        if isinstance(exc, api.LoadFailed):
            assert well_formed_load(kwargs), (short(kwargs), exc)
            failed = after.pop(kwargs['region'])
            before.pop(kwargs['region'])
            assert failed['state'] == states.FAILED, failed
            assert failed['instance_uuid'] == kwargs['instance_uuid']
            assert exc.step and exc.step in failed['error'], failed
        assert after == before, (short(kwargs), exc)
        answer = exc
    except Exception as exc:
        COUNTS[(method, 'crashes')] += 1
        raise AssertionError('%s%s: %s %s' % (
            method, short(kwargs), type(exc).__name__, exc))
    else:
        COUNTS[(method, 'answered')] += 1
        assert isinstance(answer, dict), answer
    regions = board.regions()
    assert not {r['state'] for r in regions.values()} & {
        states.LOADING, states.UNLOADING}, regions
    assert board.client.health({}, BOARD)['board'] == BOARD
    board.restore()
    return answer


#: a well-formed value of each argument, for calls with one wrong
FIXED = {'region': 'rp1', 'instance_uuid': B, 'image_id': 'img-1',
         'sha256': hashlib.sha256(RP1).hexdigest(), 'bitstream': b64(RP1),
         'network': {'in': port(201), 'out': port(202)}, 'state': 'off',
         'port_id': PORT, 'settings': {}, 'signature': None}


def one_wrong(method):
    """(what, kwargs): the method's arguments well-formed but one: each
    near miss of each argument, each argument left out, one too many.
    """
    since, arguments = api.METHODS[method]
    fixed = {name: FIXED[name] for name in arguments}
    for name in sorted(arguments):
        for value in near_misses(name):
            yield '%s=%s' % (name, short(value)[:40]), dict(fixed,
                                                            **{name: value})
        if arguments[name] == since:
            yield 'no %s' % name, {k: v for k, v in fixed.items()
                                   if k != name}
    for extra in ('ctxt', 'self', 'unknown'):
        yield 'extra %s' % extra, dict(fixed, **{extra: 1})


@pytest.mark.fuzz
@pytest.mark.parametrize('method', sorted(api.METHODS))
def test_rpc_method_survives_any_arguments(board, method):
    # every boundary case once: each must be refused, in words
    for what, kwargs in one_wrong(method):
        answer = check_call(board, method, {}, kwargs)
        assert isinstance(answer, api.AgentError), (method, what, answer)

    # then arguments at random, each well-formed or not
    @settings(max_examples=CALLS, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(calls(method))
    def fuzz(case):
        check_call(board, method, *case)

    fuzz()
    assert board.agent.process.poll() is None, 'the agent died'
    faults = [line for line in board.agent.log_text().splitlines()
              if TRACEBACK.search(line)]
    assert not faults, faults[:20]


@pytest.mark.fuzz
def test_rpc_fuzz_counts(board, report):
    """Runs after the fuzz (file order): prints the counts, checks every
    method was called and none crashed, and the calls health counted.
    """
    for method in sorted(api.METHODS):
        report('rpc fuzz %s: %s' % (method, ', '.join(
            '%s %d' % (what, n) for (m, what), n in sorted(COUNTS.items())
            if m == method)))
        assert COUNTS[(method, 'calls')] >= CALLS + len(list(
            one_wrong(method)))
        assert not COUNTS[(method, 'crashes')]
    served = board.client.health({}, BOARD)['calls']
    for method in api.METHODS:
        assert sum(kind.get(method, 0) for kind in served.values()) >= \
            COUNTS[(method, 'calls')], method
