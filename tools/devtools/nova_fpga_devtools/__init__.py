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

"""Development tooling of nova-fpga: the demo cloud, its CLI and the HDL
budget tools.  Not part of what an operator installs: it runs from a source
checkout (``pip install -e tools/devtools``), whose folders it uses.
"""
import os
import pathlib

#: the source checkout these tools are installed from (editable)
SOURCE = pathlib.Path(__file__).resolve().parents[3]
#: its hdl/ folder: the emulated boards' [emulator] hdl_dir
HDL = SOURCE / 'hdl'
#: the real test data made by others (bitstreams, captures and nDPI's
#: verdicts), each folder with its licence and PROVENANCE.md; the one place
#: tests, benchmarks and the demo take it from (NOVA_FPGA_REALDATA points
#: elsewhere, for a copy outside the checkout)
REALDATA = pathlib.Path(os.environ.get('NOVA_FPGA_REALDATA',
                                       SOURCE / 'tests' / 'data' / 'realdata'))
#: the DevStack snapshot the plugin tests and devstack-check run on
DEVSTACK_SNAPSHOT = (SOURCE / 'tests' / 'data' / 'thirdparty' /
                     'devstack-493835a.tar.gz')
