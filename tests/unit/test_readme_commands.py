"""The README's demo command and the benchmark run and say the right things."""
import subprocess
import sys

from tests.conftest import ROOT, realdata_path


def test_demo_inspects_the_real_bitstreams():
    bitstreams = realdata_path('bitstreams')
    out = subprocess.run([str(ROOT / 'tools' / 'demo'), '--bitstreams',
                          str(bitstreams)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert '=> pr_0_add.bit: a partial bitstream for an xc7z020 region' in text
    assert '=> pr_0_sub.bit: a partial bitstream for an xc7z020 region' in text
    assert ('=> ov5640_lcd_7010.bit: not loadable into an xc7z020 region: '
            'part: bitstream is for xc7z010') in text
    assert '=> prio.bit: not loadable' in text and 'expected partial' in text
    assert ('=> NEGATIVE_microblaze_pmod_mailbox.bin: not loadable' in text
            and 'not a Xilinx bitstream' in text)
    assert 'byte-swapped for the PCAP' in text
    assert '$ ' in text  # every step shows its command


def test_validation_benchmark_prints_its_figures():
    out = subprocess.run([sys.executable,
                          str(ROOT / 'benchmarks' / 'bitstream_validate.py'),
                          '--repeat', '2'], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert 'target: >= 150 MB/s' in out.stdout
    for name in ('prio.bit', 'pr_0_add.bit', 'ov5640_lcd_7010.bit'):
        assert name in out.stdout
