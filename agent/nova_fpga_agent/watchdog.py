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

"""The temperature and power watchdog: a board too hot, or with a supply
out of range, takes its logic off the shell.

Then every region is decoupled and its module held in reset (the logic
stops switching) and the board reports itself unfit; once it is below the
trip temperature less the hysteresis and its supplies are in range, the
regions that were running run again.  The agent's report loop calls
``check`` every ``[watchdog] poll_interval`` seconds.
"""
from oslo_log import log as logging

from nova_fpga_agent import xadc

LOG = logging.getLogger(__name__)


class Watchdog:
    def __init__(self, sensor, manager, trip, hysteresis, tolerance):
        self.sensor = sensor
        self.manager = manager
        self.trip = trip
        self.recover = trip - hysteresis
        #: rail -> (lowest, highest) volts it may read
        self.ranges = {rail: (volts * (1 - tolerance / 100.0),
                              volts * (1 + tolerance / 100.0))
                       for rail, volts in xadc.NOMINAL.items()
                       if tolerance}
        self.hot = False
        self.tripped = False

    def check(self):
        """Read the XADC; trip or recover when the board crosses a limit."""
        try:
            celsius = self.sensor.temperature()
            volts = self.sensor.supplies()
        except (OSError, ValueError) as exc:
            # no evidence either way: the regions stay as they are
            LOG.error('board %s: XADC unreadable (%s); the regions stay as '
                      'they are', self.manager.board_name, exc)
            return
        self.manager.temperature = celsius
        was_hot = self.hot
        self.hot = celsius >= (self.recover if was_hot else self.trip)
        supplies = self._outside(volts)
        readings = '%.1f degC, supplies %s' % (celsius, ', '.join(
            '%s %.3f V' % rail for rail in volts.items()))
        if (self.hot or supplies) and not self.tripped:
            self.tripped = True
            reasons = []
            if self.hot:
                reasons.append('overheated: %.1f degC, at or above %.1f degC; '
                               'its regions run again below %.1f degC'
                               % (celsius, self.trip, self.recover))
            if supplies:
                reasons.append('supply out of range: %s' % ', '.join(
                    supplies))
            reason = '; '.join(reasons)
            LOG.error('board %s %s: decoupling every region and holding it '
                      'in reset (%s)', self.manager.board_name, reason,
                      readings)
            self.manager.hold(reason)
        elif not (self.hot or supplies) and self.tripped:
            self.tripped = False
            why = ('cooled to %.1f degC, below %.1f degC'
                   % (celsius, self.recover)
                   if was_hot else 'has its supplies back in range')
            LOG.warning('board %s %s: coupling the regions that ran and '
                        'starting their modules (%s)',
                        self.manager.board_name, why, readings)
            self.manager.release(why)

    def _outside(self, volts):
        """'rail V outside low-high V' for each rail out of its range."""
        return ['%s %.3f V outside %.3f-%.3f V' % (rail, volts[rail], low,
                                                   high)
                for rail, (low, high) in sorted(self.ranges.items())
                if rail in volts and not low <= volts[rail] <= high]


def make(conf, manager):
    """The board's watchdog, or None (logged) when it shows no XADC."""
    sensor = xadc.Xadc.find(conf.agent.sysfs_root)
    if sensor is None:
        LOG.warning('board %s: no XADC (IIO device %s) under %s: no '
                    'temperature and power watchdog', conf.agent.board_name,
                    xadc.NAME, conf.agent.sysfs_root)
        return None
    LOG.info('board %s: watchdog on %s, trips at %.1f degC, recovers below '
             '%.1f degC, supplies within %g%% of nominal',
             conf.agent.board_name, sensor.path,
             conf.watchdog.trip_temperature,
             conf.watchdog.trip_temperature - conf.watchdog.hysteresis,
             conf.watchdog.supply_tolerance)
    return Watchdog(sensor, manager, conf.watchdog.trip_temperature,
                    conf.watchdog.hysteresis, conf.watchdog.supply_tolerance)
