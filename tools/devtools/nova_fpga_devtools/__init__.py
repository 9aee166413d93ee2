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
import pathlib

#: the source checkout these tools are installed from (editable)
SOURCE = pathlib.Path(__file__).resolve().parents[3]
#: its hdl/ folder: the emulated boards' [emulator] hdl_dir
HDL = SOURCE / 'hdl'
