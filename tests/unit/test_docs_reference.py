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

"""The generated reference pages follow the code they come from.

The register tables (``.. catalogue-reference::``) and the agent's RPC API
(``.. agent-rpc-api::``) are generated at each docs build by
doc/ext/nova_fpga_docs.py.  Here a catalogue entry changed on the side
(a register added to the vTC, a module added) and a contract bumped
without its history are built into a small Sphinx project, and must show
(or fail the build); and the whole tree builds as ``tox -e docs`` builds
it, warnings as errors.
"""
import pathlib
import re
import shutil
import subprocess
import sys

import pytest
from sphinx.cmd import build as sphinx_build

from nova_fpga import catalogue
from nova_fpga.catalogue import applications
from nova_fpga.catalogue import entry
from nova_fpga.contract import agent_api
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / 'doc' / 'ext'))
import nova_fpga_docs  # noqa: E402

EXTRA_REGISTER = '''
[[registers]]
name = "DOCS_PROBE"
offset = 0x3F0
access = "RW"
meaning = "a register only this test adds"
'''

TOY_MODULE = '''
name = "docsprobe"
module_id = 0x4E46D0C5
version = 0x00020003
description = "a module only this test adds"
frames = "forwards every frame"

[hdl]
top = "region_docsprobe"
sources = ["region_docsprobe.v"]

[[registers]]
name = "PROBE_COUNT"
offset = 0x20
access = "RO"
meaning = "frames probed"
'''

CONF = '''
import sys
sys.path.insert(0, %r)
sys.path.insert(0, %r)
extensions = ['nova_fpga_docs']
project = 'probe'
'''

PAGE = '''
Probe
=====

.. catalogue-reference::

.. agent-rpc-api::
'''


def build(tmp_path, name='out'):
    """Text of a small project holding both directives, built in this
    process (so monkeypatches apply) with warnings as errors; None when
    the build fails.
    """
    source = tmp_path / 'src'
    source.mkdir(exist_ok=True)
    (source / 'conf.py').write_text(CONF % (str(ROOT / 'doc' / 'ext'),
                                            str(ROOT)))
    (source / 'index.rst').write_text(PAGE)
    out = tmp_path / name
    status = sphinx_build.build_main(
        ['-W', '-q', '-E', '-b', 'text', '-d', str(tmp_path / 'doctrees'),
         str(source), str(out)])
    return (out / 'index.txt').read_text() if status == 0 else None


def changed_catalogue(tmp_path):
    """The shipped catalogue with a register added to the vTC's entry
    and a module added beside it.
    """
    shipped = catalogue.load()
    # the shipped layout: the application table beside the entries' folder
    (tmp_path / 'modules').mkdir()
    shutil.copy(applications.TABLE_FILE, tmp_path)
    vtc_path = tmp_path / 'modules' / 'vtc.toml'
    vtc_path.write_text(shipped.by_name('vtc').path.read_text()
                        + EXTRA_REGISTER)
    toy_path = tmp_path / 'docsprobe.toml'
    toy_path.write_text(TOY_MODULE)
    modules = [entry.load_module(vtc_path, shipped.common)
               if module.name == 'vtc' else module for module in shipped]
    modules.append(entry.load_module(toy_path, shipped.common))
    return catalogue.Catalogue(shipped.common, modules)


def test_register_tables_show_every_register():
    text = '\n'.join(' '.join(row) for _, rows
                     in nova_fpga_docs.catalogue_tables().values()
                     for row in rows)
    cat = catalogue.load()
    names = [register.name for register in cat.common.registers]
    for module in cat:
        names += [register.name for register in module.own_registers]
        assert '0x%08X' % module.module_id in text
    for name in names:
        assert re.search(r'`%s(_LO|\[|`)' % name, text), name


def test_catalogue_change_shows_in_the_built_page(tmp_path, monkeypatch):
    before = build(tmp_path, 'before')
    assert before is not None
    assert 'DOCS_PROBE' not in before and 'docsprobe' not in before
    changed = changed_catalogue(tmp_path)
    monkeypatch.setattr(nova_fpga_docs, 'load_catalogue', lambda: changed)
    after = build(tmp_path, 'after')
    assert after is not None
    # the vTC's table has the new register, and the new module its own
    # section, ID and register table
    vtc = after.split('Module vtc')[1]
    assert '0x3F0' in vtc and '"DOCS_PROBE"' in vtc
    assert 'a register only this test adds' in vtc
    toy = after.split('Module docsprobe')[1]
    assert '0x4E46D0C5' in after and 'version 2.3' in toy
    assert '"PROBE_COUNT"' in toy


def test_register_table_is_hdl_generate_table(tmp_path):
    """One generator: the docs' rows are hdl/generate.py's rows."""
    changed = changed_catalogue(tmp_path)
    generate = nova_fpga_docs.hdl_generate()
    lines = generate.register_tables(changed)['vtc:registers']
    rows = nova_fpga_docs.catalogue_tables(changed)['vtc:registers'][1]
    assert len(rows) == len([line for line in lines
                             if line.startswith('| 0x')])
    assert ['0x3F0', '`DOCS_PROBE`', 'RW',
            'a register only this test adds'] in rows


def test_agent_api_history_matches_the_contract():
    assert nova_fpga_docs.api_problems() == []
    history = nova_fpga_docs.api_history()
    assert history[-1][0] == agent_api.API_VERSION
    versions = {version for version, _ in history}
    for method, (since, arguments) in agent_api.METHODS.items():
        assert since in versions
        assert set(arguments.values()) <= versions


def test_agent_api_page_from_the_contract(tmp_path, monkeypatch):
    text = build(tmp_path, 'before')
    assert text is not None
    for method in agent_api.METHODS:
        assert '"%s"' % method in text
    for version, _ in nova_fpga_docs.api_history():
        assert re.search(r'^\| %s ' % re.escape(version), text, re.M)
    # a method added to the contract shows in the methods table and in
    # its version's row
    monkeypatch.setattr(agent_api, 'METHODS', dict(
        agent_api.METHODS, probe=('1.4', {'region': '1.4'})))
    text = build(tmp_path, 'after')
    assert text is not None
    assert '"probe"' in text.split('Methods')[1]
    row = re.search(r'^\| 1\.4 .*?(?=^\+)', text, re.M | re.S).group(0)
    assert '"probe"' in row


def test_agent_api_bump_without_history_fails_the_build(tmp_path,
                                                        monkeypatch):
    major, minor = agent_api.API_VERSION.split('.')
    bumped = '%s.%d' % (major, int(minor) + 1)
    monkeypatch.setattr(agent_api, 'API_VERSION', bumped)
    monkeypatch.setattr(agent_api, 'METHODS', dict(
        agent_api.METHODS, probe=(bumped, {})))
    assert nova_fpga_docs.api_problems() == [
        'the API history ends at %s, API_VERSION is %s' % (
            '%s.%s' % (major, minor), bumped),
        'probe came in %s, which the API history lacks' % bumped]
    assert build(tmp_path) is None


def test_docs_build_with_warnings_as_errors(tmp_path):
    """What tox -e docs runs (about 10 s)."""
    result = subprocess.run(
        [sys.executable, '-m', 'sphinx', '-W', '--keep-going', '-E', '-q',
         '-b', 'html', '-d', str(tmp_path / 'doctrees'),
         str(ROOT / 'doc' / 'source'), str(tmp_path / 'html')],
        capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-4000:]
    html = pathlib.Path(tmp_path / 'html' / 'reference')
    for page in ('catalogue', 'agent-rpc-api', 'policy', 'config/agent',
                 'config/nova', 'config/glance', 'config/ml2'):
        assert (html / (page + '.html')).exists(), page
    policy = (html / 'policy.html').read_text()
    assert 'fpga:bitstream:create' in policy and 'role:admin' in policy


@pytest.mark.parametrize('section', ['Modules', 'The common register block',
                                     'Module vtc', 'Version history'])
def test_sections_present(tmp_path, section):
    text = build(tmp_path)
    assert text is not None and '\n%s\n' % section in text
