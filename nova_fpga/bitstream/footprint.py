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

"""Frame footprint: which configuration frames a bitstream writes.

A partial bitstream is implemented for one reconfigurable region; the
region is the set of frames its FAR/FDRI writes cover.  Every module built
for a region of a shell writes the same blocks, so the ordered list of
blocks identifies the region, and a digest of that list (the signature) is
what travels as a placement trait.  The signature depends on the blocks
only: not on design name, date, module or frame contents.
"""
import dataclasses
import hashlib

from nova_fpga.bitstream import errors

SIGNATURE_HEX_CHARS = 32

#: Block kinds: frame data written through FDRI, or a frame replicated by
#: the multiple-frame-write register (compressed bitstreams).
FDRI = 'FDRI'
MFWR = 'MFWR'

_BLOCK_TYPES = {0: 'CLB_IO_CLK', 1: 'BRAM', 2: 'CFG_CLB'}


@dataclasses.dataclass(frozen=True)
class Block:
    far: int
    words: int
    kind: str = FDRI

    def describe_far(self):
        """The 7-series FAR fields (UG470 table 5-24), for people."""
        far = self.far
        block = (far >> 23) & 0x7
        return '%s %s row %d column %d minor %d' % (
            _BLOCK_TYPES.get(block, 'type %d' % block),
            'bottom' if far & (1 << 22) else 'top',
            (far >> 17) & 0x1F, (far >> 7) & 0x3FF, far & 0x7F)

    def to_dict(self):
        return {'far': '0x%08X' % self.far, 'words': self.words,
                'kind': self.kind}

    @classmethod
    def from_dict(cls, data):
        try:
            far = data['far']
            far = int(far, 16) if isinstance(far, str) else int(far)
            words = int(data['words'])
            kind = data.get('kind', FDRI)
        except (KeyError, TypeError, ValueError) as exc:
            raise errors.FootprintError(
                'footprint block %r is not {"far": ..., "words": ...}: %s'
                % (data, exc))
        if kind not in (FDRI, MFWR) or not 0 <= far < 2 ** 32 or words < 0:
            raise errors.FootprintError('footprint block %r is out of range'
                                        % (data,))
        return cls(far, words, kind)


@dataclasses.dataclass(frozen=True)
class Footprint:
    blocks: tuple

    @property
    def signature(self):
        canonical = ';'.join('%s:%08X:%d' % (b.kind, b.far, b.words)
                             for b in self.blocks)
        digest = hashlib.sha256(canonical.encode('ascii')).hexdigest()
        return digest[:SIGNATURE_HEX_CHARS].upper()

    @property
    def words(self):
        return sum(b.words for b in self.blocks)

    def to_dict(self):
        return {'signature': self.signature,
                'blocks': [b.to_dict() for b in self.blocks]}

    @classmethod
    def from_dict(cls, data):
        """Accept {"blocks": [...]} (as inspect --json and shell manifests
        write it) or a bare list of blocks; a signature, when present, must
        agree with the blocks.
        """
        blocks = data.get('blocks') if isinstance(data, dict) else data
        if not isinstance(blocks, list) or not blocks:
            raise errors.FootprintError('a footprint needs a non-empty list '
                                        'of blocks')
        footprint = cls(tuple(Block.from_dict(b) for b in blocks))
        declared = data.get('signature') if isinstance(data, dict) else None
        if declared is not None and declared.upper() != footprint.signature:
            raise errors.FootprintError(
                'footprint signature %s does not match its blocks (%s)'
                % (declared, footprint.signature))
        return footprint
