"""The store benchmark runs and prints its comparison (no timing asserted)."""
import subprocess
import sys

from tests.conftest import ROOT


def test_store_benchmark_prints_its_figures():
    out = subprocess.run([sys.executable,
                          str(ROOT / 'benchmarks' / 'bitstream_store_add.py'),
                          '--repeat', '2'], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert 'filesystem store (file)' in out.stdout
    assert 'validating path costs' in out.stdout
