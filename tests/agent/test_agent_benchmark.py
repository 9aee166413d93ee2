"""The agent benchmark runs and prints its figures (no timing asserted)."""
import subprocess
import sys

from tests.conftest import ROOT


def test_agent_load_benchmark_prints_its_figures():
    out = subprocess.run([sys.executable,
                          str(ROOT / 'benchmarks' / 'agent_load.py'),
                          '--repeat', '1'], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    for size in ('100KB', '1MB', '4MB'):
        assert '\n%s ' % size in out.stdout
    assert 'port ms (model)' in out.stdout
