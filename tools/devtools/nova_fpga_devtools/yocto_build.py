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

"""The layer's python3-* recipes built with scarthgap's build tools, as
far as this machine goes without bitbake.

    python -m nova_fpga_devtools.yocto_build [NAME ...]
    make board-layer-build                                # all of them

For each recipe (default: all): its sdist (sdists.json's, from PyPI,
checked against its sha256, kept in a cache), its own do_configure:prepend
run on it, then the build its class runs, in a virtualenv holding exactly
yocto.SCARTHGAP_BUILD_TOOLS (their own dependencies at whatever pip picks):
``pip wheel --no-build-isolation --no-deps --check-build-dependencies`` for
a PEP 517 class (what ``python -m build --no-isolation`` holds against the
installed tools), ``setup.py bdist_wheel`` for setuptools3.  The wheel's
version must be the pin.
"""
import argparse
import hashlib
import os
import pathlib
import re
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile

from packaging import utils as pkg_utils

from nova_fpga_devtools import yocto

CACHE = pathlib.Path(os.environ.get('XDG_CACHE_HOME',
                                    pathlib.Path.home() / '.cache')) / \
    'nova-fpga' / 'sdists'


class BuildError(Exception):
    pass


def tools_venv(where):
    """A virtualenv with scarthgap's build tools at their versions."""
    venv = pathlib.Path(where) / 'scarthgap-tools'
    yocto.run([sys.executable, '-m', 'venv', venv])
    yocto.run([venv / 'bin' / 'python', '-m', 'pip', 'install', '-q',
               '--no-input', '--disable-pip-version-check'] + [
                   '%s==%s' % item for item in sorted(
                       yocto.SCARTHGAP_BUILD_TOOLS.items())])
    return venv


def sdist(meta, cache=CACHE):
    """The sdist of a recipe, from the cache or PyPI, its sha256 checked."""
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / meta['filename']
    if not path.exists() or hashlib.sha256(
            path.read_bytes()).hexdigest() != meta['sha256']:
        _, url, _ = yocto.sdist_of(yocto.normalize(meta['name']),
                                   meta['version'])
        data = yocto.fetch(url)
        if hashlib.sha256(data).hexdigest() != meta['sha256']:
            raise BuildError('%s: sha256 differs from sdists.json'
                             % meta['filename'])
        path.write_bytes(data)
    return path


def recipe_path(meta):
    return yocto.LAYER / yocto.PYTHON_RECIPES / ('%s_%s.bb' % (
        yocto.recipe_name(meta['name']), meta['version']))


def configure(recipe, workdir, src):
    """The recipe's do_configure:prepend, run as bitbake would (S,
    WORKDIR set; its files beside it in WORKDIR).
    """
    match = re.search(r'^do_configure:prepend\(\) \{\n(.*?)^\}',
                      recipe.read_text(), re.M | re.S)
    if not match:
        return
    for extra in (recipe.parent / 'files').glob('*'):
        (workdir / extra.name).write_bytes(extra.read_bytes())
    body = match.group(1).replace('${S}', str(src)).replace(
        '${WORKDIR}', str(workdir))
    if '${' in body:
        raise BuildError('%s: unexpanded variable' % recipe.name)
    yocto.run(['sh', '-ec', body])


def build(venv, meta, src, out):
    """The wheel the recipe's class builds from the configured sources."""
    python = pathlib.Path(venv) / 'bin' / 'python'
    if yocto.BACKENDS[meta['backend']] == 'setuptools3':
        command = [python, 'setup.py', '-q', 'bdist_wheel', '-d', out]
    else:
        command = [python, '-m', 'pip', 'wheel', '-q', '--no-input',
                   '--disable-pip-version-check', '--no-build-isolation',
                   '--no-deps', '--check-build-dependencies', '--no-index',
                   '-w', out, src]
    done = subprocess.run([str(c) for c in command], cwd=src,
                          capture_output=True, text=True, timeout=900,
                          env=dict(os.environ, PIP_NO_CACHE_DIR='1'))
    if done.returncode:
        raise BuildError('%s: %s failed:\n%s' % (
            meta['name'], ' '.join(map(str, command[1:3])),
            (done.stdout + done.stderr)[-3000:]))
    wheels = list(pathlib.Path(out).glob('*.whl'))
    if len(wheels) != 1:
        raise BuildError('%s: %d wheels' % (meta['name'], len(wheels)))
    return wheels[0]


def wheel_version(wheel):
    """The version a wheel's METADATA gives."""
    with zipfile.ZipFile(wheel) as z:
        metadata = next(n for n in z.namelist()
                        if n.endswith('.dist-info/METADATA'))
        for line in z.read(metadata).decode().splitlines():
            if line.startswith('Version: '):
                return line.split(': ', 1)[1].strip()
    raise BuildError('%s: no Version' % wheel.name)


def build_recipe(venv, meta, scratch):
    """Build one recipe's sdist as above: (wheel, seconds)."""
    began = time.monotonic()
    scratch = pathlib.Path(scratch)
    workdir = scratch / yocto.normalize(meta['name'])
    workdir.mkdir()
    with tarfile.open(sdist(meta)) as archive:
        archive.extractall(workdir, filter='data')
    src = workdir / meta['top']
    configure(recipe_path(meta), workdir, src)
    wheel = build(venv, meta, src, workdir / 'dist')
    version = wheel_version(wheel)
    if pkg_utils.canonicalize_version(version) != \
            pkg_utils.canonicalize_version(meta['version']):
        raise BuildError('%s: wheel version %s, pin %s' % (
            meta['name'], version, meta['version']))
    return wheel, time.monotonic() - began


def main(argv=None):
    parser = argparse.ArgumentParser(prog='nova_fpga_devtools.yocto_build',
                                     description=__doc__.split('\n')[0])
    parser.add_argument('names', nargs='*', help='default: every recipe')
    args = parser.parse_args(argv)
    sdists = yocto.load_sdists()
    names = [yocto.normalize(n) for n in args.names] or sorted(sdists)
    failed = []
    with tempfile.TemporaryDirectory(prefix='board-layer-build-') as scratch:
        began = time.monotonic()
        venv = tools_venv(scratch)
        print('scarthgap build tools: %.1f s' % (time.monotonic() - began))
        for name in names:
            try:
                wheel, seconds = build_recipe(venv, sdists[name], scratch)
            except (BuildError, yocto.LayerError) as exc:
                failed.append(name)
                print('FAILED %s\n%s' % (name, exc))
                continue
            print('%-20s %6.1f s  %s' % (name, seconds, wheel.name))
        print('%d built, %d failed, %.0f s' % (
            len(names) - len(failed), len(failed),
            time.monotonic() - began))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
