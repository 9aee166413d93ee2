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

"""Counting the work a load does on a bitstream: parses (every
nova_fpga.bitstream Validator, which validate() and validate_file() make)
and SHA-256 digests (hashlib.sha256(), hashlib.new('sha256')) made by the
modules that handle an image's bytes, by module.

The modules' own ``hashlib`` is replaced, so a digest of something else
(a footprint's signature in nova_fpga.bitstream.footprint, a Verilog
build's key in the emulator) is not counted.
"""
import collections
import hashlib
import sys

from nova_fpga.bitstream import validator

#: the modules that see an image's bytes (prefixes of their names)
IMAGE_MODULES = ('nova_fpga_agent', 'nova_fpga.bitstream.validator',
                 'nova_fpga_emulator.board', 'nova_fpga_emulator.backend',
                 'glance_store_bitstream', 'nova_fpga.virt')


class Counts:
    def __init__(self):
        self.parses = 0
        #: module name -> SHA-256 digests it made
        self.digests = collections.Counter()

    @property
    def sha256(self):
        return sum(self.digests.values())

    def reset(self):
        self.parses = 0
        self.digests.clear()

    def __repr__(self):
        return 'parses=%d sha256=%d %s' % (self.parses, self.sha256,
                                           dict(self.digests))


class _CountingHashlib:
    """hashlib as one module sees it, counting its SHA-256 digests."""

    def __init__(self, counts, module):
        self._counts = counts
        self._module = module

    def __getattr__(self, name):
        return getattr(hashlib, name)

    def sha256(self, *args, **kwargs):
        self._counts.digests[self._module] += 1
        return hashlib.sha256(*args, **kwargs)

    def new(self, name, *args, **kwargs):
        if name.lower().replace('-', '') == 'sha256':
            self._counts.digests[self._module] += 1
        return hashlib.new(name, *args, **kwargs)


def install(monkeypatch, prefixes=IMAGE_MODULES):
    """Count from now on (undone with the monkeypatch); the Counts."""
    counts = Counts()
    real_init = validator.Validator.__init__

    def init(self, *args, **kwargs):
        counts.parses += 1
        real_init(self, *args, **kwargs)
    monkeypatch.setattr(validator.Validator, '__init__', init)
    for name, module in list(sys.modules.items()):
        if name.startswith(prefixes) and \
                getattr(module, 'hashlib', None) is hashlib:
            monkeypatch.setattr(module, 'hashlib',
                                _CountingHashlib(counts, name))
    return counts
