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

"""The board agent's own overhead per load, against the configuration port.

Receive to ready: from the agent taking a load request to the region being
ACTIVE (digest, validation, decouple, state writes, couple, reset, module ID
check, DMA start, and building the module's emulated HDL), with the
configuration port's modelled time (size / 128 MB/s, the Zynq PCAP) shown
separately and excluded.  Bitstreams of about 100 KB, 1 MB and 4 MB, made
by the builder for a benchmark shell with regions of those sizes, carrying
the loopback module.  The agent runs in-process behind oslo.messaging's
in-process transport.

Run: .venv/bin/python benchmarks/agent_load.py [--repeat N]
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

from nova_fpga.bitstream import builder
from nova_fpga.bitstream import footprint as fp
from nova_fpga import catalogue
from nova_fpga.contract import agent_api as api
from nova_fpga.contract import shell as mf
from nova_fpga_agent import conf as agent_conf
from nova_fpga_agent import service
import nova_fpga_devtools

SIZES = {'100KB': 100_000, '1MB': 1_000_000, '4MB': 4_000_000}
PCAP_RATE = 128.0


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
                        'window': '0x10000', 'dma_channel': i,
                        'vlan': 200 + i})
    reference['regions'] = regions
    path.write_text(json.dumps(reference))
    return mf.load(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=10)
    args = parser.parse_args()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix='agent-bench-'))
    manifest = bench_manifest(tmp / 'bench-shell.json')
    conf_file = tmp / 'agent.conf'
    conf_file.write_text(
        '[agent]\nboard_name = bench\nmanifest = %s\nstate_dir = %s\n'
        'backend = sim\n[emulator]\npcap_rate = %s\nhdl_dir = %s\n'
        % (tmp / 'bench-shell.json', tmp / 'state', PCAP_RATE,
           nova_fpga_devtools.HDL))
    conf = cfg.ConfigOpts()
    agent_conf.register_opts(conf)
    conf(['--config-file', str(conf_file)], project='nova-fpga')
    transport = messaging.get_rpc_transport(
        cfg.CONF, url='fake:/', allowed_remote_exmods=[api.__name__])
    agent = service.Agent(
        conf,
        transport,
        messaging.get_notification_transport(cfg.CONF, url='fake:/'),
    )
    agent.start()
    client = api.AgentAPI(transport, timeout=120)
    print('agent overhead per load (receive to ACTIVE, modelled port time '
          'excluded), median of %d loads' % args.repeat)
    print('%-7s %10s %14s %16s %14s' % ('size', 'bytes', 'agent ms',
                                        'port ms (model)', 'call ms'))
    try:
        for name in SIZES:
            region = manifest.region('r%s' % name.lower())
            data = builder.build_partial('7z020clg400', 'bench',
                                         catalogue.module_id('loopback'),
                                         region.footprint)
            digest = hashlib.sha256(data).hexdigest()
            agent_s, port_s, call_s = [], [], []
            for _ in range(args.repeat + 1):  # the first builds/loads the HDL
                instance = str(uuid.uuid4())
                start = time.perf_counter()
                result = client.load({}, 'bench', region.name, instance,
                                     'img', digest, data)
                call_s.append(time.perf_counter() - start)
                agent_s.append(result['agent_seconds'])
                port_s.append(result['port_seconds'])
                client.unload({}, 'bench', region.name, instance)
            med = lambda xs: 1000 * statistics.median(xs[1:])  # noqa: E731
            print('%-7s %10d %14.1f %16.1f %14.1f' % (
                name, len(data), med(agent_s), med(port_s), med(call_s)))
    finally:
        agent.stop()
    print('compare: the port itself needs size / %g MB/s (the column '
          'above); the agent adds the "agent ms" column on top of it'
          % PCAP_RATE)


if __name__ == '__main__':
    sys.exit(main())
