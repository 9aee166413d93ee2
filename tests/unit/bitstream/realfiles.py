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

"""The real bitstreams of tests/data/realdata and what its README.md says of
them.
"""
import functools

from tests.conftest import realdata_path

PR = 'royforu_pynq_pr'
ATK = 'pynq_atk_2.5.6'

PARTIALS = ('pr_0_add.bit', 'pr_0_sub.bit')


def path(name):
    folder = ATK if name in ('base.bit', 'ov5640_lcd_7020.bit',
                             'ov5640_lcd_7010.bit',
                             'NEGATIVE_microblaze_pmod_mailbox.bin') else PR
    return realdata_path('bitstreams', folder, name)


@functools.lru_cache(maxsize=None)
def read(name):
    return path(name).read_bytes()
