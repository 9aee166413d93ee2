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

"""The README and the documentation say only what holds: the README is
short and keeps no run logs, nothing names a path outside the repository,
every make target they mention exists, every repository path the README
names exists, and every page is reachable from its folder's index.
"""
import re
import subprocess

import pytest

from tests.conftest import ROOT

README = ROOT / 'README.md'
DOC = ROOT / 'doc' / 'source'
#: the documentation folders whose pages hang off their own index.rst
GUIDES = ('install', 'admin', 'user', 'contributor')
#: other Markdown files that describe the project beside the docs
MARKDOWN = ('README.md', 'hdl/README.md', 'hdl/vivado/README.md',
            'devstack/README.md', 'agent/yocto/meta-nova-fpga/README.md')
#: what the benchmarks write when they run (not tracked until they have)
WRITTEN_BY_RUNS = {'benchmarks/results/', 'benchmarks/results'}

#: what a dated run log looks like
RUN_LOG = [re.compile(p, re.I) for p in (
    r'\b[Rr]un \d+\b', r'\bload average', r'\bseen in run',
    r'\bmeasured (on|here)\b', r'\b20\d\d-\d\d-\d\d\b',
    r'\bon a (quiet|busy|shared) \d-core machine')]


def run_logs(text):
    """The lines of text that read as a dated run log."""
    return [line for line in text.splitlines()
            if any(p.search(line) for p in RUN_LOG)]


def make_targets():
    """The targets the Makefile defines."""
    text = (ROOT / 'Makefile').read_text()
    return set(re.findall(r'^([A-Za-z][\w.-]*)\s*:(?!=)', text, re.M))


#: an inline literal (Markdown `x` or reStructuredText ``x``)
_LITERAL = re.compile(r'``([^`]+)``|`([^`]+)`')


def literals(text):
    return [a or b for a, b in _LITERAL.findall(text)]


def make_mentions(text):
    """The make targets a text tells its reader to run: inline literals
    that start with `make`, and console lines `$ make ...`.  (`make -j2`
    inside another command, such as building CPython, is not ours.)
    """
    commands = [lit for lit in literals(text) if lit.startswith('make ')]
    commands += re.findall(r'^\s*\$ (make .*)$', text, re.M)
    targets = []
    for command in commands:
        for word in command.split()[1:]:
            if word.startswith('-') or '=' in word:
                continue
            if not re.fullmatch(r'[A-Za-z][\w.-]*', word):
                break
            targets.append(word)
    return targets


def tracked_files():
    out = subprocess.run(['git', 'ls-files'], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    return out.split()


def repo_paths(text):
    """Inline literals that look like a path in the repository."""
    paths = []
    for lit in literals(text):
        if (' ' in lit or lit.startswith(('.', '-', '/', '~', '$'))
                or re.search(r'[<>*=:@${}|]', lit)):
            continue
        if '/' in lit or re.fullmatch(r'[\w-]+\.(md|txt|py|cfg|ini|toml|'
                                      r'rst|json|sh|tcl)|LICENSE', lit):
            paths.append(lit)
    return paths


def missing_paths(text, files):
    """The repository paths a text names that do not exist (a bare file
    name may be anywhere: it names each folder's own, as PROVENANCE.md).
    """
    names = {f.rsplit('/', 1)[-1] for f in files}
    missing = []
    for path in repo_paths(text):
        if path in WRITTEN_BY_RUNS:
            continue
        if '/' not in path:
            if path not in names:
                missing.append(path)
        elif not (ROOT / path).exists():
            missing.append(path)
    return missing


def doc_pages():
    return sorted(DOC.rglob('*.rst')) if DOC.exists() else []


def documentation():
    """Every README and documentation page: path -> text."""
    texts = {name: (ROOT / name).read_text() for name in MARKDOWN
             if (ROOT / name).exists()}
    texts.update({str(p.relative_to(ROOT)): p.read_text()
                  for p in doc_pages()})
    return texts


# -- the checks themselves can fail ----------------------------------------

def test_the_checks_find_what_they_look_for():
    assert run_logs('Run 1 (load average 7 when it started)')
    assert run_logs('Measured on a quiet 2-core machine (2026-11-26)')
    assert not run_logs('The current figures are in benchmarks/results/.')
    assert make_mentions('run `make test-faults` and ``make soak``\n'
                         '   $ make bench-scale\n'
                         '``./configure && make -j2 && make altinstall``'
                         ) == ['test-faults', 'soak', 'bench-scale']
    assert 'no-such-target' not in make_targets()
    assert missing_paths('see `tools/no-such-tool` and `Makefile`, '
                         '`nova_fpga/conf.py`, `NO_SUCH.md`',
                         tracked_files()) == ['tools/no-such-tool',
                                              'NO_SUCH.md']


# -- the README ------------------------------------------------------------

def test_readme_is_short():
    lines = README.read_text().splitlines()
    assert len(lines) <= 150, '%d lines' % len(lines)


def test_readme_keeps_no_run_log():
    assert run_logs(README.read_text()) == []


def test_readme_names_only_paths_that_exist():
    assert missing_paths(README.read_text(), tracked_files()) == []


def test_readme_shows_the_two_commands_and_where_the_docs_are():
    text = README.read_text()
    for needle in ('`make demo`', '`make test`', '`tox -e docs`',
                   'doc/source', 'benchmarks/results/',
                   'tests/data/realdata', 'GPL-3.0', 'BSD-3-Clause',
                   'LGPL-3.0', 'Apache'):
        assert needle in text, needle


# -- the README and the documentation -------------------------------------

#: a folder beside the checkout (the shared data it once needed)
OUTSIDE = re.compile(r'\.\./' + 'shared|/work/' + 'shared|'
                     r"parent / '" + "shared'")


def test_no_tracked_file_names_a_folder_beside_the_checkout():
    """A clone stands alone: git grep over every tracked file."""
    out = subprocess.run(['git', 'grep', '-n', '-E', OUTSIDE.pattern],
                         cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 1 and out.stdout == '', out.stdout


def test_nothing_names_a_path_outside_the_repository():
    named = [name for name, text in documentation().items()
             if OUTSIDE.search(text)]
    assert named == []


@pytest.mark.parametrize('name', sorted(documentation()))
def test_every_make_target_mentioned_exists(name):
    text = documentation()[name]
    unknown = set(make_mentions(text)) - make_targets()
    assert not unknown, '%s mentions make %s' % (name, sorted(unknown))


@pytest.mark.parametrize('guide', GUIDES)
def test_every_page_is_reachable_from_its_folders_index(guide):
    folder = DOC / guide
    index = folder / 'index.rst'
    assert index.exists(), index
    listed = set()
    for block in re.findall(r'\.\. toctree::\n((?:[ \t]+.*\n|\n)*)',
                            index.read_text()):
        for line in block.splitlines():
            entry = line.strip()
            if entry and not entry.startswith(':'):
                listed.add(entry)
    pages = {p.stem for p in folder.glob('*.rst')} - {'index'}
    assert pages, 'no page in %s' % folder
    assert pages - listed == set(), 'not in the toctree'
    assert listed - pages == set(), 'listed but missing'


@pytest.mark.parametrize('guide', GUIDES)
def test_guides_keep_no_run_log(guide):
    logs = {str(p.relative_to(ROOT)): run_logs(p.read_text())
            for p in (DOC / guide).rglob('*.rst')}
    assert {k: v for k, v in logs.items() if v} == {}
