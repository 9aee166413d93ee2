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

"""The temperature watchdog: a board too hot takes its logic off the shell.

At the trip temperature every region is decoupled and its module held in
reset (the logic stops switching) and the board reports itself unfit;
below the trip temperature less the hysteresis the regions that were
running run again.  The agent's report loop calls ``check`` every
``[watchdog] poll_interval`` seconds.
"""
from oslo_log import log as logging

from nova_fpga_agent import xadc

LOG = logging.getLogger(__name__)


class Watchdog:
    def __init__(self, sensor, manager, trip, hysteresis):
        self.sensor = sensor
        self.manager = manager
        self.trip = trip
        self.recover = trip - hysteresis
        self.tripped = False

    def check(self):
        """Read the temperature; trip or recover when it crosses a limit."""
        try:
            celsius = self.sensor.temperature()
        except (OSError, ValueError) as exc:
            # no evidence either way: the regions stay as they are
            LOG.error('board %s: XADC temperature unreadable (%s); the '
                      'regions stay as they are', self.manager.board_name,
                      exc)
            return
        self.manager.temperature = celsius
        if not self.tripped and celsius >= self.trip:
            self.tripped = True
            reason = ('overheated: %.1f °C, at or above %.1f °C; its '
                      'regions run again below %.1f °C'
                      % (celsius, self.trip, self.recover))
            LOG.error('board %s %s; decoupling every region and holding it '
                      'in reset (supplies: %s)', self.manager.board_name,
                      reason, self._supplies())
            self.manager.hold(reason)
        elif self.tripped and celsius < self.recover:
            self.tripped = False
            why = 'cooled to %.1f °C, below %.1f °C' % (celsius,
                                                        self.recover)
            LOG.warning('board %s %s: coupling the regions that ran and '
                        'starting their modules (supplies: %s)',
                        self.manager.board_name, why, self._supplies())
            self.manager.release(why)

    def _supplies(self):
        try:
            return ', '.join('%s %.3f V' % rail
                             for rail in self.sensor.supplies().items())
        except (OSError, ValueError) as exc:
            return 'unreadable (%s)' % exc


def make(conf, manager):
    """The board's watchdog, or None (logged) when it shows no XADC."""
    sensor = xadc.Xadc.find(conf.agent.sysfs_root)
    if sensor is None:
        LOG.warning('board %s: no XADC (IIO device %s) under %s: no '
                    'temperature watchdog', conf.agent.board_name, xadc.NAME,
                    conf.agent.sysfs_root)
        return None
    LOG.info('board %s: temperature watchdog on %s, trips at %.1f °C, '
             'recovers below %.1f °C', conf.agent.board_name, sensor.path,
             conf.watchdog.trip_temperature,
             conf.watchdog.trip_temperature - conf.watchdog.hysteresis)
    return Watchdog(sensor, manager, conf.watchdog.trip_temperature,
                    conf.watchdog.hysteresis)
