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

"""Reference pages generated from the code at build time.

``.. catalogue-reference::``
    the module catalogue (nova_fpga/catalogue): the modules, the register
    block every module shares and each module's own registers, as the
    rows of hdl/generate.py's ``register_tables`` (the generator that also
    writes the Verilog offsets and the Vivado module table).
``.. agent-rpc-api::``
    the board agent's RPC API from the contract
    (nova_fpga.contract.agent_api): its version, methods and arguments
    with the version that brought each, the version history, the region
    states and the errors a call can return.

Nothing of either is typed into the .rst files: a catalogue entry or a
contract change shows in the next build.
"""
import importlib.util
import inspect
import pathlib
import re
import sys

from docutils import nodes
from docutils.parsers.rst import Directive
from sphinx.util import logging

ROOT = pathlib.Path(__file__).resolve().parents[2]
GENERATE = ROOT / 'hdl' / 'generate.py'
LOG = logging.getLogger(__name__)


# -- hdl/generate.py, imported from its file (hdl/ is not a package) ------

def hdl_generate():
    """The module hdl/generate.py (the one writer of catalogue tables)."""
    module = sys.modules.get('nova_fpga_hdl_generate')
    if module is None:
        spec = importlib.util.spec_from_file_location(
            'nova_fpga_hdl_generate', GENERATE)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return module


def load_catalogue():
    from nova_fpga import catalogue
    return catalogue.load()


# -- docutils helpers ----------------------------------------------------

def inline(text):
    """A paragraph from Markdown-ish text: `code` becomes a literal, the
    rest stays text (never parsed as reST, so no markup slips in).
    """
    paragraph = nodes.paragraph()
    for number, part in enumerate(text.split('`')):
        if not part:
            continue
        paragraph += (nodes.literal(part, part) if number % 2
                      else nodes.Text(part))
    return paragraph


class TableError(ValueError):
    """A generated table whose rows do not match its head."""


def table(head, rows, widths=None):
    """A docutils table of text cells (see inline)."""
    columns = len(head)
    widths = widths or [1] * columns
    group = nodes.tgroup(cols=columns)
    for width in widths:
        group += nodes.colspec(colwidth=width * 8)

    def row(cells):
        line = nodes.row()
        for cell in cells:
            entry = nodes.entry()
            entry += inline(cell) if isinstance(cell, str) else cell
            line += entry
        return line
    thead = nodes.thead()
    thead += row(head)
    tbody = nodes.tbody()
    for cells in rows:
        if len(cells) != columns:
            problem = 'row %r has %d cells, not %d' % (
                cells, len(cells), columns)
            raise TableError(problem)
        tbody += row(cells)
    group += thead
    group += tbody
    result = nodes.table(classes=['nova-fpga-generated'])
    result += group
    return result


_UNESCAPED_PIPE = re.compile(r'(?<!\\)\|')


def markdown_table(lines):
    """(head, rows) of a Markdown table as hdl/generate.py writes it
    (comment lines and the rule line dropped; ``\\|`` is a pipe in a
    cell).
    """
    cells = [[cell.strip().replace('\\|', '|')
              for cell in _UNESCAPED_PIPE.split(line.strip()[1:-1])]
             for line in lines
             if line.startswith('|') and not line.startswith('|---')]
    return cells[0], cells[1:]


def section(document, title, name):
    result = nodes.section(ids=[nodes.make_id(name)])
    result += nodes.title(title, title)
    result['names'].append(nodes.fully_normalize_name(name))
    document.note_implicit_target(result, result)
    return result


# -- the module catalogue ------------------------------------------------

HEAD_NAMES = {'': 'meaning'}


def catalogue_tables(cat=None):
    """Marker name -> (head, rows), from hdl/generate.py's tables."""
    cat = load_catalogue() if cat is None else cat
    tables = {}
    for name, lines in hdl_generate().register_tables(cat).items():
        head, rows = markdown_table(lines)
        tables[name] = ([HEAD_NAMES.get(h, h) for h in head], rows)
    return tables


def catalogue_nodes(document, cat=None):
    cat = load_catalogue() if cat is None else cat
    tables = catalogue_tables(cat)
    result = []
    modules = section(document, 'Modules', 'catalogue-modules')
    modules += inline('One entry per module in nova_fpga/catalogue/modules '
                      '(and an operator\'s `module_catalogue_dirs`).')
    modules += table(*tables['modules'])
    result.append(modules)
    common = section(document, 'The common register block',
                     'catalogue-common')
    common += inline(cat.common.description)
    common += inline('From `%s`; every module has these registers.'
                     % _shown(cat.common.path))
    common += table(*tables['common:registers'], widths=[2, 3, 1, 10])
    result.append(common)
    for module in cat:
        part = section(document, 'Module %s' % module.name,
                       'catalogue-module-%s' % module.name)
        part += inline('%s (module ID `0x%08X`, version %d.%d, from `%s`).'
                       % (module.description, module.module_id,
                          module.version >> 16, module.version & 0xFFFF,
                          _shown(module.path)))
        for labels in module.labels.values():
            part += inline('`%s` (%s): %s.' % (
                labels.index, labels.title, ', '.join(
                    '%d `%s`' % item for item in enumerate(labels.names))))
        own = tables.get('%s:registers' % module.name)
        if own:
            part += table(*own, widths=[2, 3, 1, 10])
        else:
            part += inline('No registers beyond the common block.')
        result.append(part)
    return result


def _shown(path):
    try:
        return str(pathlib.Path(path).relative_to(ROOT))
    except ValueError:
        return pathlib.Path(path).name


class CatalogueReference(Directive):
    has_content = False

    def run(self):
        env = self.state.document.settings.env
        for path in (GENERATE, ROOT / 'nova_fpga' / 'catalogue'):
            env.note_dependency(str(path))
        return catalogue_nodes(self.state.document)


# -- the agent RPC API ---------------------------------------------------

_HISTORY_ENTRY = re.compile(r'^ {4}(\d+\.\d+) - (.*)$')


def _version_key(version):
    return tuple(int(part) for part in version.split('.'))


def api_history(agent_api=None):
    """[(version, text)] from the contract's "API history:" docstring
    section, oldest first.
    """
    if agent_api is None:
        from nova_fpga.contract import agent_api
    lines = agent_api.__doc__.split('API history:', 1)[1].splitlines()
    history = []
    for line in lines:
        match = _HISTORY_ENTRY.match(line)
        if match:
            history.append([match.group(1), match.group(2).strip()])
        elif line.strip() and history and line.startswith(' ' * 6):
            history[-1][1] += ' ' + line.strip()
        elif line.strip():
            break
    return [tuple(item) for item in history]


def api_problems(agent_api=None):
    """What keeps the history from matching the code: the newest entry is
    not API_VERSION, or METHODS names a version the history lacks.
    """
    if agent_api is None:
        from nova_fpga.contract import agent_api
    history = api_history(agent_api)
    versions = [version for version, _ in history]
    problems = []
    if not history:
        problems.append('the agent API has no history')
        return problems
    if versions != sorted(versions, key=_version_key):
        problems.append('the API history is not oldest first')
    if versions[-1] != agent_api.API_VERSION:
        problems.append('the API history ends at %s, API_VERSION is %s'
                        % (versions[-1], agent_api.API_VERSION))
    for method, (since, arguments) in sorted(agent_api.METHODS.items()):
        for name, version in [(None, since)] + sorted(arguments.items()):
            if version not in versions:
                problems.append('%s%s came in %s, which the API history '
                                'lacks' % (method, name and '(%s)' % name
                                           or '', version))
    return problems


def introduced(agent_api):
    """version -> [text] of the methods and arguments METHODS says came
    in it (a method's own arguments of its first version not repeated).
    """
    news = {}
    for method, (since, arguments) in sorted(agent_api.METHODS.items()):
        news.setdefault(since, []).append('`%s`' % method)
        for name, version in sorted(arguments.items()):
            if version != since:
                news.setdefault(version, []).append(
                    '`%s` argument `%s`' % (method, name))
    return news


def errors(agent_api):
    found = [cls for _, cls in inspect.getmembers(agent_api, inspect.isclass)
             if issubclass(cls, agent_api.AgentError)
             and cls.__module__ == agent_api.__name__]
    return sorted(found, key=lambda cls: (cls is not agent_api.AgentError,
                                          cls.__name__))


def _first_paragraph(text):
    return ' '.join(inspect.cleandoc(text or '').split('\n\n')[0].split())


def agent_api_nodes(document, agent_api=None, states=None):
    if agent_api is None:
        from nova_fpga.contract import agent_api
    if states is None:
        from nova_fpga.contract import states
    result = []
    summary = section(document, 'Version and transport', 'agent-api-version')
    summary += inline(
        'Current version `%s`. Calls go to exchange `%s`, topic `%s`, '
        'server = the board\'s name, on the board\'s own vhost of the '
        'agents\' bus. Reports are notifications on topic `%s`, event type '
        '`%s`, publisher `%s`. A bitstream travels base64-encoded, at most '
        '%d bytes by default.' % (
            agent_api.API_VERSION, agent_api.EXCHANGE,
            agent_api.DEFAULT_TOPIC, agent_api.REPORT_TOPIC,
            agent_api.REPORT_EVENT, agent_api.REPORT_PUBLISHER % '<board>',
            agent_api.DEFAULT_MAX_BITSTREAM_BYTES))
    result.append(summary)

    methods = section(document, 'Methods', 'agent-api-methods')
    methods += inline('Each call carries the request context besides these '
                      'arguments. An argument newer than its method is '
                      'optional (an older caller sends none); the agent '
                      'refuses a call with an argument missing or unknown '
                      '(`InvalidRequest`).')
    rows = []
    for method, (since, arguments) in sorted(agent_api.METHODS.items()):
        required = [name for name, v in sorted(arguments.items())
                    if v == since]
        optional = ['`%s` (%s)' % (name, v) for name, v
                    in sorted(arguments.items()) if v != since]
        rows.append(['`%s`' % method, since,
                     ', '.join('`%s`' % n for n in required) or '-',
                     ', '.join(optional) or '-'])
    methods += table(['method', 'since', 'required', 'optional (since)'],
                     rows, widths=[2, 1, 5, 4])
    result.append(methods)

    history = section(document, 'Version history', 'agent-api-history')
    history += inline('From the contract\'s own history; the last column '
                      'is what its method table says came in each version.')
    news = introduced(agent_api)
    history += table(['version', 'change', 'methods and arguments'], [
        [version, text, ', '.join(news.get(version, [])) or '-']
        for version, text in api_history(agent_api)], widths=[1, 8, 4])
    result.append(history)

    region = section(document, 'Region states', 'agent-api-states')
    region += inline(_first_paragraph(states.__doc__))
    region += table(['state', 'holds a module'], [
        ['`%s`' % state, 'yes' if state in states.HOLDING_MODULE else 'no']
        for state in states.STATES], widths=[2, 1])
    region += inline('The `power` call\'s `state` argument: %s.' % ', '.join(
        '`%s`' % s for s in states.POWER_STATES))
    result.append(region)

    failures = section(document, 'Errors', 'agent-api-errors')
    failures += inline('Raised by the agent, re-created on the caller\'s '
                       'side by oslo.messaging.')
    failures += table(['error', 'meaning'], [
        ['`%s`' % cls.__name__, _first_paragraph(cls.__doc__)]
        for cls in errors(agent_api)], widths=[1, 3])
    result.append(failures)
    return result


class AgentRPCAPI(Directive):
    has_content = False

    def run(self):
        from nova_fpga.contract import agent_api
        env = self.state.document.settings.env
        env.note_dependency(agent_api.__file__)
        for problem in api_problems(agent_api):
            LOG.warning('agent RPC API: %s', problem,
                        location=(env.docname, self.lineno))
        return agent_api_nodes(self.state.document, agent_api)


def setup(app):
    app.add_directive('catalogue-reference', CatalogueReference)
    app.add_directive('agent-rpc-api', AgentRPCAPI)
    return {'parallel_read_safe': True, 'parallel_write_safe': True,
            'version': '1'}
