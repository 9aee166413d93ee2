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

"""The one exception family of the bitstream library.

Every way an input can be wrong ends in a :class:`BitstreamError` whose
message says what is wrong, where (byte offset in the file) and what was
expected, so an operator reading a Glance 400 or an instance fault knows
what to fix.  Nothing else escapes the validator.
"""


class BitstreamError(ValueError):
    """The input is not a bitstream this library accepts."""

    #: Short machine-readable reason, stable across releases.
    reason = 'invalid'

    def __init__(self, message, offset=None):
        self.offset = offset
        if offset is not None:
            message = '%s (at byte %d)' % (message, offset)
        super().__init__(message)


class ContainerError(BitstreamError):
    """Neither a .bit file nor a header-less .bin configuration stream."""
    reason = 'container'


class HeaderError(BitstreamError):
    """The .bit header is malformed or contradicts the stream."""
    reason = 'header'


class SyncError(BitstreamError):
    """No valid sync word where the configuration logic expects one."""
    reason = 'sync'


class PacketError(BitstreamError):
    """A configuration packet the device would not accept."""
    reason = 'packet'


class TruncatedError(BitstreamError):
    """The stream ends before the configuration sequence does."""
    reason = 'truncated'


class CrcError(BitstreamError):
    """A CRC check word does not match the data it covers."""
    reason = 'crc'


class DeviceError(BitstreamError):
    """The IDCODE is unknown, not a Zynq, or disagrees with the header."""
    reason = 'device'


class FootprintError(BitstreamError):
    """Frame writes that do not make sense for the device."""
    reason = 'footprint'


class KindError(BitstreamError):
    """A full bitstream where only a partial one can go (a region)."""
    reason = 'kind'
