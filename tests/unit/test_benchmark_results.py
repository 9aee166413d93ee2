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

"""Benchmark runs are written where the docs quote them from.

benchmarks/results.py tees what a benchmark prints into a dated file with a
header (benchmark, commit, machine); doc/ext/nova_fpga_docs.py's
``.. benchmark-results::`` shows the newest file of a benchmark, or says
there is none, without a warning.  Here both run on a temporary results
folder; and a real benchmark, run as ``make bench`` runs it, writes its
file there ($NOVA_FPGA_RESULTS_DIR) with exactly what it printed.
"""
import datetime
import json
import os
import re
import subprocess
import sys

from sphinx.cmd import build as sphinx_build

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / 'doc' / 'ext'))
import nova_fpga_docs  # noqa: E402

results = nova_fpga_docs.benchmark_results()

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

.. benchmark-results:: probe

.. benchmark-results:: never_run
'''


def build(tmp_path):
    """Text of a small project holding the directive, built with warnings
    as errors; None when the build fails.
    """
    source = tmp_path / 'src'
    source.mkdir(exist_ok=True)
    (source / 'conf.py').write_text(CONF % (str(ROOT / 'doc' / 'ext'),
                                            str(ROOT)))
    (source / 'index.rst').write_text(PAGE)
    out = tmp_path / 'out'
    status = sphinx_build.build_main(
        ['-W', '-q', '-E', '-b', 'text', '-d', str(tmp_path / 'doctrees'),
         str(source), str(out)])
    return (out / 'index.txt').read_text() if status == 0 else None


def when(text):
    return datetime.datetime.strptime(text, '%Y%m%dT%H%M%SZ').replace(
        tzinfo=datetime.timezone.utc)


def record(folder, printed, started, figures=None):
    """A run of the 'probe' benchmark that printed `printed`."""
    run = results.Run('probe', argv=['--repeat', '3'], now=when(started))
    run.printed.append(printed)
    run.figures.update(figures or {})
    return run.write(folder)


def test_the_writer_tees_what_is_printed_into_a_dated_file(tmp_path,
                                                           capsys):
    with results.recorded('probe', directory=tmp_path,
                          argv=['--repeat', '3']) as run:
        print('probe: 42 MB/s')
        print('target: >= 40 MB/s, met')
        run.figures['mbs'] = 42
    assert capsys.readouterr().out == ('probe: 42 MB/s\n'
                                       'target: >= 40 MB/s, met\n')
    written = sorted(p.name for p in tmp_path.iterdir())
    assert len(written) == 2, written
    assert re.fullmatch(r'probe-\d{8}T\d{6}Z\.txt', written[1]), written
    assert written[0] == written[1][:-4] + '.json'
    text = (tmp_path / written[1]).read_text()
    head, printed = text.split('\n\n', 1)
    assert printed == 'probe: 42 MB/s\ntarget: >= 40 MB/s, met\n'
    head = head.splitlines()
    assert head[0] == '# benchmark: probe --repeat 3'
    assert re.fullmatch(r'# date: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC',
                        head[1])
    assert re.fullmatch(r'# commit: [0-9a-f]{7,}(\+dirty)?', head[2])
    assert re.fullmatch(r'# machine: %d cores, .+; load average \(1, 5, 15 '
                        r'min\) [\d.]+ [\d.]+ [\d.]+ at start, [\d.]+ '
                        r'[\d.]+ [\d.]+ at end' % os.cpu_count(), head[3])
    figures = json.loads((tmp_path / written[0]).read_text())
    assert figures['figures'] == {'mbs': 42}
    assert figures['benchmark'] == 'probe'
    assert run.path == tmp_path / written[1]


def test_a_failed_run_writes_nothing(tmp_path):
    try:
        with results.recorded('probe', directory=tmp_path, argv=[]):
            print('half a table')
            raise SystemExit(2)
    except SystemExit:
        pass
    assert list(tmp_path.iterdir()) == []


def test_the_folder_comes_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(results.ENVIRONMENT, str(tmp_path / 'elsewhere'))
    assert results.directory() == tmp_path / 'elsewhere'
    monkeypatch.delenv(results.ENVIRONMENT)
    assert results.directory() == ROOT / 'benchmarks' / 'results'


def test_the_directive_shows_the_newest_run(tmp_path, monkeypatch):
    folder = tmp_path / 'results'
    record(folder, 'probe: 41 MB/s (the newer run)\n', '20300102T030405Z')
    record(folder, 'probe: 17 MB/s (the older run)\n', '20291231T235959Z')
    record(folder, 'unrelated\n', '20310101T000000Z').rename(
        folder / 'probe_other-20310101T000000Z.txt')
    monkeypatch.setenv(results.ENVIRONMENT, str(folder))
    assert results.newest('probe')['stamp'] == '20300102T030405Z'
    text = build(tmp_path)
    assert text is not None, 'the build failed or warned'
    assert 'probe: 41 MB/s (the newer run)' in text
    assert 'older run' not in text and 'unrelated' not in text
    assert '2030-01-02 03:04:05 UTC' in text
    flat = re.sub(r'\s+', '', text)  # the text builder wraps lines
    assert 'probe-20300102T030405Z.txt' in flat
    assert '--repeat3' in flat
    assert re.search(r'commit "?[0-9a-f]{7,}', text), text
    # the benchmark with no file: said, and no warning (-W held)
    assert 'No run recorded yet' in text


def test_a_benchmark_writes_what_it_printed(tmp_path):
    env = dict(os.environ, NOVA_FPGA_RESULTS_DIR=str(tmp_path))
    out = subprocess.run([sys.executable,
                          str(ROOT / 'benchmarks' / 'bitstream_validate.py'),
                          '--repeat', '1'], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    run = results.newest('bitstream_validate', tmp_path)
    assert run['printed'] == out.stdout
    assert run['command'] == 'bitstream_validate --repeat 1'
    figures = json.loads(run['path'].with_suffix('.json').read_text())
    assert figures['figures']['target_met'] in (True, False)
    assert figures['figures']['full_mbs'] > 0


#: scripts in benchmarks/ that are not benchmarks: the results writer, the
#: Python per-frame path the RFC 2544 benchmark starts as its reference
HELPERS = ('results', 'rfc2544_python_path')


def test_every_benchmark_records_its_run_and_has_its_section():
    page = (ROOT / 'doc' / 'source' / 'contributor' /
            'benchmarks.rst').read_text()
    makefile = (ROOT / 'Makefile').read_text()
    for script in sorted((ROOT / 'benchmarks').glob('*.py')):
        name = script.stem
        if name in HELPERS or 'def main' not in script.read_text():
            continue
        assert "recorded(%r)" % name in script.read_text(), name
        assert '.. benchmark-results:: %s\n' % name in page, name
        assert 'benchmarks/%s.py' % name in makefile, name
