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

"""Every source file in the repository carries the Apache-2.0 header.

Sources are the files git tracks that are Python, shell, Tcl, yosys
scripts, Makefiles, Verilog or C/C++ (by name, or by a shebang line).
Exempt: empty files, Python files with nothing but comments (hacking H104
flags a header alone), generated files (a "generated" marker in their
first lines, or under hdl/rtl/generated/), and other people's files kept as
test data under their own licence (a folder with a PROVENANCE.md, such as
tests/data/realdata/bitstreams/royforu_pynq_pr/).
"""
import os
import re
import shutil
import subprocess

import pytest

from tests.conftest import ROOT

# (the first line is split so that hacking's H103 does not take this
# constant for this file's own header)
HEADER = (
    'Licensed under the Apache'
    ' License, Version 2.0 (the "License"); you may',
    'not use this file except in compliance with the License. You may '
    'obtain',
    'a copy of the License at',
    '',
    '     http://www.apache.org/licenses/LICENSE-2.0',
    '',
    'Unless required by applicable law or agreed to in writing, software',
    'distributed under the License is distributed on an "AS IS" BASIS, '
    'WITHOUT',
    'WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See '
    'the',
    'License for the specific language governing permissions and '
    'limitations',
    'under the License.',
)
HASH = ('.py', '.sh', '.tcl', '.ys')
SLASH = ('.v', '.sv', '.vh', '.c', '.h', '.cpp', '.hpp', '.cc')
GENERATED = re.compile(r'\bgenerated\b', re.I)
EMPTY_LINE = re.compile(r'^\s*(#.*|$)')


def comment_style(path, first_line):
    name = os.path.basename(path)
    if name.endswith(SLASH):
        return '//'
    if name.endswith(HASH) or name == 'Makefile':
        return '#'
    if first_line.startswith('#!') and re.search(r'\b(ba)?sh\b|python',
                                                 first_line):
        return '#'
    return None


def has_header(lines, style):
    expected = [(style + ' ' + line).rstrip() for line in HEADER]
    start = 1 if lines and lines[0].startswith('#!') else 0
    if len(lines) > start and re.match(r'^#.*coding[:=]', lines[start]):
        start += 1
    return [line.rstrip() for line in
            lines[start:start + len(expected)]] == expected


def missing_header(top):
    """Tracked source files of the checkout at `top` without the header."""
    files = subprocess.run(['git', 'ls-files', '-z'], cwd=top, check=True,
                           capture_output=True, text=True).stdout
    missing = []
    for rel in sorted(filter(None, files.split('\0'))):
        path = os.path.join(top, rel)
        if '/hdl/rtl/generated/' in '/' + rel or \
                not os.path.isfile(path) or os.path.islink(path) or \
                third_party(top, rel):
            continue
        try:
            with open(path, encoding='utf-8') as f:
                text = f.read()
        except UnicodeDecodeError:
            continue
        lines = text.splitlines()
        style = comment_style(rel, lines[0] if lines else '')
        if style is None or not text.strip():
            continue
        if any(GENERATED.search(line) for line in lines[:5]):
            continue
        if rel.endswith('.py') and all(map(EMPTY_LINE.match, lines)):
            continue
        if not has_header(lines, style):
            missing.append(rel)
    return missing


def third_party(top, rel):
    """True when a folder above rel has a PROVENANCE.md: others' files,
    under the licence kept beside them.
    """
    parts = rel.split('/')[:-1]
    return any(os.path.isfile(os.path.join(top, *parts[:n], 'PROVENANCE.md'))
               for n in range(1, len(parts) + 1))


def header(style):
    return ''.join((style + ' ' + line).rstrip() + '\n' for line in HEADER)


needs_git = pytest.mark.skipif(shutil.which('git') is None,
                               reason='git is not installed')


@needs_git
def test_every_source_file_carries_the_licence_header():
    if not (ROOT / '.git').exists():
        pytest.skip('not a git checkout')
    assert missing_header(ROOT) == []


@needs_git
def test_a_file_planted_without_the_header_is_found(tmp_path):
    files = {
        'pkg/__init__.py': '',
        'pkg/only_comments.py': '# nothing but a comment\n',
        'pkg/good.py': header('#') + '\n"""Docstring."""\nX = 1\n',
        'pkg/bad.py': '"""Docstring."""\nX = 1\n',
        'tools/run': '#!/usr/bin/env bash\n' + header('#') + '\necho ok\n',
        'tools/bare': '#!/usr/bin/env bash\necho no header\n',
        'hdl/good.v': header('//') + '\nmodule m; endmodule\n',
        'hdl/bad.v': 'module m; endmodule\n',
        'hdl/bad.tcl': 'puts hello\n',
        'src/bad.c': 'int x;\n',
        'hdl/made.v': '// Generated by a tool, do not edit\nmodule m;\n',
        'hdl/rtl/generated/made.v': 'module m; endmodule\n',
        'data.json': '{}\n',
        'tests/data/theirs/PROVENANCE.md': 'from elsewhere, GPL-3.0\n',
        'tests/data/theirs/build.tcl': 'puts theirs\n',
        'tests/data/mine/build.tcl': 'puts mine\n',
    }
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    subprocess.run(['git', 'init', '-q'], cwd=tmp_path, check=True)
    subprocess.run(['git', 'add', '.'], cwd=tmp_path, check=True)
    assert missing_header(tmp_path) == [
        'hdl/bad.tcl', 'hdl/bad.v', 'pkg/bad.py', 'src/bad.c',
        'tests/data/mine/build.tcl', 'tools/bare']
