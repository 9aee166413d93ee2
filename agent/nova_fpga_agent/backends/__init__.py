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

"""Choosing the backend that reaches this board's programmable logic.

Backends are plugins in the ``nova_fpga_agent.backends`` entry-point group
(found with stevedore, as Cyborg finds its accelerator drivers), so the
agent core imports none of them: a board installs only the backend it
runs, and the board emulator's ``sim`` backend is a package of its own.
"""
from oslo_log import log as logging
from stevedore import driver
from stevedore import exception as stevedore_exc
from stevedore import extension

from nova_fpga_agent.backends import base

LOG = logging.getLogger(__name__)
NAMESPACE = 'nova_fpga_agent.backends'
AUTO = 'auto'


def installed():
    """Names of the backends installed on this machine."""
    return sorted(extension.ExtensionManager(NAMESPACE).names())


def _detect(conf):
    found = [ext.name for ext in extension.ExtensionManager(NAMESPACE)
             if ext.plugin.detect(conf)]
    if not found:
        raise base.BackendUnavailable(
            'no installed backend (%s) finds its hardware under %s: not a '
            'Zynq board, or its FPGA manager is not in the kernel (name the '
            'backend in [agent] backend)'
            % (', '.join(installed()) or 'none', conf.agent.sysfs_root))
    LOG.info('backend %s detected (installed: %s)', found[0],
             ', '.join(installed()))
    return found[0]


def probe(conf, manifest):
    """The configured backend, or for 'auto' the first that detects its
    hardware, made for this board's shell.

    :raises BackendUnavailable: nothing usable was found.
    """
    choice = conf.agent.backend
    if choice == AUTO:
        choice = _detect(conf)
    try:
        manager = driver.DriverManager(NAMESPACE, choice)
    except stevedore_exc.NoMatches:
        raise base.BackendUnavailable(
            'backend %s is not installed (installed: %s)'
            % (choice, ', '.join(installed()) or 'none'))
    return manager.driver(conf, manifest)
