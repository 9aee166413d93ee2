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

"""The board agent's own overhead per load, against the configuration port,
for each backend.

Receive to ready: from the agent taking a load request to the region being
ACTIVE (digest, validation, decouple, state writes, couple, reset, module ID
check, DMA start; for the board backends also the .bin conversion and the
firmware file through the privileged helper), with the configuration port's
time shown separately and excluded: modelled for sim (size / 128 MB/s, the
Zynq PCAP), measured for the board backends (the kernel's load, from the
write that starts it to its answer, over a fake kernel whose emulated port
takes the same modelled time).  Bitstreams of about 100 KB, 1 MB and 4 MB,
made by the builder for a benchmark shell with regions of those sizes,
carrying the loopback module.  The agent runs in-process behind
oslo.messaging's in-process transport; the board backends' privsep daemon
and fake kernel are processes of their own.  Goal: at most 20 ms of agent
overhead per MB (the slope from 100 KB to 4 MB).

Run: .venv/bin/python benchmarks/agent_load.py [--repeat N] [--backend B]
"""
import argparse
import hashlib
import json
import pathlib
import statistics
import sys
import tempfile
import time
import uuid

from oslo_config import cfg
import oslo_messaging as messaging
from oslo_privsep import priv_context

from nova_fpga.bitstream import builder
from nova_fpga.bitstream import footprint as fp
from nova_fpga import catalogue
from nova_fpga.contract import agent_api as api
from nova_fpga.contract import shell as mf
from nova_fpga_agent import conf as agent_conf
from nova_fpga_agent import privsep
from nova_fpga_agent import service
import nova_fpga_devtools
from nova_fpga_emulator.fakekernel import process

import results

SIZES = {'100KB': 100_000, '1MB': 1_000_000, '4MB': 4_000_000}
PCAP_RATE = 128.0
BACKENDS = ['sim'] + sorted(process.VARIANTS)
GOAL_MS_PER_MB = 20.0


def bench_manifest(path):
    reference = json.loads(mf.REFERENCE.read_text())
    regions = []
    for i, (name, size) in enumerate(SIZES.items()):
        frames = size // (101 * 4)
        block = fp.Block((0 << 23) | (1 << 22) | ((i + 2) << 17), frames * 101)
        regions.append({'name': 'r%s' % name.lower(),
                        'footprint': fp.Footprint((block,)).to_dict(),
                        'decoupler': '0x%08X' % (0x43C00000 + i * 0x20000),
                        'module': '0x%08X' % (0x43C10000 + i * 0x20000),
                        'dma': '0x%08X' % (0x40400000 + i * 0x10000),
                        'window': '0x10000', 'dma_channel': i,
                        'vlan': 200 + i})
    reference['regions'] = regions
    path.write_text(json.dumps(reference))
    return mf.load(path)


def start_privileged_helper(tmp):
    """The agent's privsep daemon (privsep-helper, as a board starts it),
    its roots the benchmark's directory.
    """
    conf = tmp / 'privileged.conf'
    conf.write_text('[agent]\n' + ''.join('%s = %s\n' % (opt, tmp) for opt in (
        'sysfs_root', 'configfs_root', 'firmware_dir', 'dev_root')))
    cfg.CONF.set_override(
        'helper_command', '%s --config-file %s' % (
            pathlib.Path(sys.prefix) / 'bin' / 'privsep-helper', conf),
        group=privsep.board_pctxt.cfg_section)
    privsep.board_pctxt.start(method=priv_context.Method.ROOTWRAP)


def agent_for(backend, tmp, transport):
    options = {('agent', 'board_name'): 'bench',
               ('agent', 'manifest'): tmp / 'bench-shell.json',
               ('agent', 'state_dir'): tmp / ('state-%s' % backend),
               ('agent', 'backend'): 'sim',
               ('emulator', 'pcap_rate'): PCAP_RATE,
               ('emulator', 'hdl_dir'): nova_fpga_devtools.HDL}
    kernel = None
    if backend != 'sim':
        kernel = process.FakeKernelProcess(
            tmp / ('kernel-%s' % backend), backend, nova_fpga_devtools.HDL,
            manifest=tmp / 'bench-shell.json', pcap_rate=PCAP_RATE).start()
        options.update(kernel.agent_options())
    groups = {}
    for (group, name), value in options.items():
        groups.setdefault(group, []).append('%s = %s\n' % (name, value))
    conf_file = tmp / ('agent-%s.conf' % backend)
    conf_file.write_text(''.join('[%s]\n%s' % (g, ''.join(lines))
                                 for g, lines in groups.items()))
    conf = cfg.ConfigOpts()
    agent_conf.register_opts(conf)
    conf(['--config-file', str(conf_file)], project='nova-fpga')
    agent = service.Agent(
        conf, transport,
        messaging.get_notification_transport(cfg.CONF, url='fake:/'))
    agent.start()
    return agent, kernel


def bench(backend, manifest, client, repeat):
    """{size: (bytes, agent ms, port ms, call ms)}, medians."""
    rows = {}
    for name in SIZES:
        region = manifest.region('r%s' % name.lower())
        data = builder.build_partial('7z020clg400', 'bench',
                                     catalogue.module_id('loopback'),
                                     region.footprint)
        digest = hashlib.sha256(data).hexdigest()
        agent_s, port_s, call_s = [], [], []
        for _ in range(repeat + 1):  # the first builds/loads the HDL
            instance = str(uuid.uuid4())
            start = time.perf_counter()
            result = client.load({}, 'bench', region.name, instance,
                                 'img', digest, data)
            call_s.append(time.perf_counter() - start)
            agent_s.append(result['agent_seconds'])
            port_s.append(result['port_seconds'])
            client.unload({}, 'bench', region.name, instance)
        med = lambda xs: 1000 * statistics.median(xs[1:])  # noqa: E731
        rows[name] = (len(data), med(agent_s), med(port_s), med(call_s))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=10)
    parser.add_argument('--backend', action='append', choices=BACKENDS,
                        help='the backends to measure (default: all)')
    args = parser.parse_args()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix='agent-bench-'))
    manifest = bench_manifest(tmp / 'bench-shell.json')
    transport = messaging.get_rpc_transport(
        cfg.CONF, url='fake:/', allowed_remote_exmods=[api.__name__])
    client = api.AgentAPI(transport, timeout=120)
    backends = args.backend or BACKENDS
    if set(backends) - {'sim'}:
        start_privileged_helper(tmp)
    print('agent overhead per load (receive to ACTIVE, the port\'s own time '
          'excluded), median of %d loads' % args.repeat)
    print('%-19s %-7s %10s %10s %10s %10s' % (
        'backend', 'size', 'bytes', 'agent ms', 'port ms', 'call ms'))
    try:
        for backend in backends:
            agent, kernel = agent_for(backend, tmp, transport)
            try:
                rows = bench(backend, manifest, client, args.repeat)
            finally:
                agent.stop()
                if kernel is not None:
                    kernel.stop()
            for name, (size, agent_ms, port_ms, call_ms) in rows.items():
                print('%-19s %-7s %10d %10.1f %10.1f %10.1f' % (
                    backend, name, size, agent_ms, port_ms, call_ms))
            small, large = rows['100KB'], rows['4MB']
            slope = (large[1] - small[1]) / ((large[0] - small[0]) / 1e6)
            print('%-19s agent overhead per MB beyond the port: %.1f ms '
                  '(goal <= %g ms)' % (backend, slope, GOAL_MS_PER_MB))
    finally:
        if set(backends) - {'sim'}:
            privsep.board_pctxt.stop()
    print('port ms: sim models size / %g MB/s; the board backends measure '
          'the kernel\'s load over the fake kernel, whose emulated port '
          'models the same rate' % PCAP_RATE)


if __name__ == '__main__':
    with results.recorded('agent_load'):
        sys.exit(main())
