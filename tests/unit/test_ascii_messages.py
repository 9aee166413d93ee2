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

"""What the product says (messages, errors, log lines) is plain ASCII:
a service's log stream or a console may be ASCII-only (DevStack's
glance-api under uwsgi turned an error message with an ellipsis into
"Unhandled error" and HTTP 502 instead of the refusal, found by tempest).
Docstrings and comments may use any character.
"""
import pathlib
import tokenize

import pytest

from tests.conftest import ROOT

PRODUCT = ('nova_fpga', 'glance_store_bitstream', 'agent/nova_fpga_agent',
           'nova-virt-zynq')
SKIP_BEFORE = {tokenize.NEWLINE, tokenize.NL, tokenize.INDENT,
               tokenize.DEDENT, tokenize.ENCODING, None}


def _non_ascii_literals(path):
    found, previous = [], None
    with open(path, 'rb') as source:
        for token in tokenize.tokenize(source.readline):
            if token.type == tokenize.COMMENT:
                continue
            if token.type == tokenize.STRING and previous not in SKIP_BEFORE \
                    and not token.string.isascii():
                found.append('%s:%d %s' % (path.relative_to(ROOT),
                                           token.start[0], token.string))
            if token.type not in (tokenize.NL, tokenize.COMMENT):
                previous = token.type
    return found


def _modules():
    return sorted(path for folder in PRODUCT
                  for path in (ROOT / folder).rglob('*.py'))


@pytest.mark.parametrize('path', _modules(), ids=lambda p: str(
    pathlib.Path(p).relative_to(ROOT)))
def test_no_string_literal_outside_docstrings_is_non_ascii(path):
    assert _non_ascii_literals(path) == []


def test_the_check_finds_a_non_ascii_message(tmp_path):
    planted = ROOT / 'nova_fpga' / '_planted_for_test.py'
    try:
        planted.write_text('"""Docstring \u2026 is fine."""\n'
                           'raise ValueError("header (00 09 \u2026)")\n')
        assert len(_non_ascii_literals(planted)) == 1
    finally:
        planted.unlink()
