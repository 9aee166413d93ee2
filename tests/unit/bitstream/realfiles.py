"""The real bitstreams of ../shared/realdata and what PROVENANCE.md says of
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
