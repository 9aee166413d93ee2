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

"""Turn a validated bitstream into the header-less form a loader wants."""
from nova_fpga.bitstream import container
from nova_fpga.bitstream import validator


def to_bin(data, pcap=True, info=None):
    """The configuration data of ``data`` without the .bit header.

    :param pcap: byte-swap every 32-bit word, as the Zynq PCAP (devcfg and
        the Linux FPGA manager on Zynq-7000) wants it; False gives the
        big-endian words the device reads over SelectMAP/ICAP.
    :param info: ``validate(data)``'s answer when the caller has it (the
        agent validated the data already).
    :raises BitstreamError: when ``data`` is not a valid bitstream.
    """
    if info is None:
        info = validator.validate(data)
    payload = bytes(data[info.payload_offset:])
    if info.container == container.BIN_SWAPPED:
        payload = container.swap_words(payload)
    return container.swap_words(payload) if pcap else payload
