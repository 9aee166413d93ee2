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

"""nova-fpga-agent: the board agent daemon.

Start-up order matters for safety: read the shell manifest, find the
hardware and refuse to start if the device is not the manifest's, reload
and reconcile region state (every region not known to be running is left
decoupled), and only then serve RPC.  The data path (the C data mover)
is adopted or started before the reconciliation, which couples the
regions running.
"""
import os
import signal
import sys
import threading
import time

from oslo_config import cfg
from oslo_log import log as logging
import oslo_messaging as messaging

from nova_fpga import catalogue
from nova_fpga.contract import agent_api as api
from nova_fpga.contract import shell as mf
from nova_fpga_agent import backends
from nova_fpga_agent import cache
from nova_fpga_agent import conf as agent_conf
from nova_fpga_agent import datapath as dp
from nova_fpga_agent import memory
from nova_fpga_agent import msglimit
from nova_fpga_agent import regions
from nova_fpga_agent import rpc
from nova_fpga_agent import state
from nova_fpga_agent import trust
from nova_fpga_agent import watchdog

LOG = logging.getLogger(__name__)
CONF = cfg.CONF


class Agent:
    """One board's agent: manager, RPC server, reports and data plane."""

    def __init__(self, conf, transport=None, notification_transport=None):
        self.conf = conf
        manifest = mf.load(conf.agent.manifest)
        backend = backends.probe(conf, manifest)
        self.dataplane = None
        if conf.dataplane.interface:
            # before the regions are reconciled: a mover that outlived the
            # agent is adopted and forwards on meanwhile
            self.dataplane = dp.DataPath(conf, backend)
            self.dataplane.start()
            backend = self.dataplane.wrap(backend)
        self.manager = regions.RegionManager(
            manifest, backend, state.StateStore(conf.agent.state_dir),
            conf.agent.board_name, conf.agent.max_bitstream_bytes,
            cache.BitstreamCache(
                os.path.join(conf.agent.state_dir, 'bitstreams'),
                conf.agent.bitstream_cache_mb * 1024 * 1024),
            catalogue.load(conf.agent.module_catalogue_dirs),
            self.dataplane,
            trust.Verifier.from_conf(conf.agent, conf.agent.board_name))
        self.manager.check_device()
        self.manager.start()
        self.watchdog = watchdog.make(conf, self.manager)
        if self.watchdog is not None:
            # a board too hot holds its regions before it serves
            self.watchdog.check()
        # before the RPC server consumes anything
        self.max_message_bytes = (conf.agent.max_message_bytes
                                  or api.max_message_bytes(
                                      conf.agent.max_bitstream_bytes))
        self._uninstall_limit = msglimit.install(
            self.max_message_bytes, 'board %s (topic %s)' % (
                conf.agent.board_name, conf.agent.topic))
        self.transport = transport or messaging.get_rpc_transport(conf)
        target = messaging.Target(exchange=api.EXCHANGE,
                                  topic=conf.agent.topic,
                                  server=conf.agent.board_name)
        self.server = messaging.get_rpc_server(
            self.transport, target,
            [rpc.AgentEndpoint(self.manager)],
            executor='threading')
        self.notifier = messaging.Notifier(
            notification_transport
            or messaging.get_notification_transport(conf),
            publisher_id=api.REPORT_PUBLISHER % conf.agent.board_name,
            driver='messaging', topics=[api.REPORT_TOPIC])
        self._stop = threading.Event()
        # a state change publishes a report at once, not at the next tick
        self._wake = threading.Event()
        self.manager.changed = self._wake.set
        self._reporter = threading.Thread(target=self._periodic_loop,
                                          daemon=True, name='reports')

    def start(self):
        self.server.start()
        self._reporter.start()
        LOG.info('board %s serving topic %s (shell %s, %d regions, %s '
                 'backend)', self.conf.agent.board_name,
                 self.conf.agent.topic, self.manager.manifest.shell_id,
                 len(self.manager.manifest.regions),
                 self.manager.backend.name)

    def _periodic_loop(self):
        """State reports every report_interval (and at once when woken by a
        state change) and, with a watchdog, a temperature reading every
        poll_interval.
        """
        next_report = next_check = time.monotonic()
        while not self._stop.is_set():
            now = time.monotonic()
            if self.watchdog is not None and now >= next_check:
                next_check = now + self.conf.watchdog.poll_interval
                try:
                    self.watchdog.check()
                except Exception:
                    LOG.exception('temperature watchdog failed')
            if self._wake.is_set() or now >= next_report:
                self._wake.clear()
                next_report = now + self.conf.agent.report_interval
                self.manager.save_pending()
                try:
                    self.notifier.info({}, api.REPORT_EVENT,
                                       self.manager.describe())
                except Exception:
                    LOG.exception('state report failed')
            due = next_report
            if self.watchdog is not None:
                due = min(due, next_check)
            self._wake.wait(max(0.0, due - time.monotonic()))

    def stop(self):
        self._stop.set()
        self._wake.set()
        self.server.stop()
        self.server.wait()
        self._uninstall_limit()
        if self.dataplane:
            self.dataplane.stop()
        LOG.info('board %s agent stopped', self.conf.agent.board_name)


def main(argv=None):
    # reports go to the agents' exchange, where nova-compute listens
    messaging.set_transport_defaults(api.EXCHANGE)
    agent_conf.register_opts(CONF)
    logging.register_options(CONF)
    CONF(sys.argv[1:] if argv is None else argv, project='nova-fpga',
         prog='nova-fpga-agent')
    logging.setup(CONF, 'nova-fpga-agent')
    memory.tune(CONF.agent)
    try:
        agent = Agent(CONF)
    except (mf.ManifestError, backends.base.BackendUnavailable,
            RuntimeError) as exc:
        LOG.error('nova-fpga-agent cannot start: %s', exc)
        return 1
    stopped = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stopped.set())
    agent.start()
    stopped.wait()
    agent.stop()
    return 0


if __name__ == '__main__':
    sys.exit(main())
