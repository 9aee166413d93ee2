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

"""Xilinx configuration bitstreams: validate, describe, build, convert.

The one implementation of the bitstream format in nova-fpga, shared by the
Glance store and import plugin, the nova driver, the board agent and the
board emulator.  It imports nothing from OpenStack: boards have neither nova
nor glance.
"""
from nova_fpga.bitstream.errors import BitstreamError  # noqa: F401
from nova_fpga.bitstream.validator import Bitstream  # noqa: F401
from nova_fpga.bitstream.validator import validate  # noqa: F401
from nova_fpga.bitstream.validator import validate_file  # noqa: F401
from nova_fpga.bitstream.validator import Validator  # noqa: F401
