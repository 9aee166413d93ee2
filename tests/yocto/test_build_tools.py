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

"""The layer's python3-* recipes build with scarthgap's build tools
(yocto.SCARTHGAP_BUILD_TOOLS): each recipe's own do_configure:prepend run
on its real sdist, then its class's build in a virtualenv holding exactly
those tools (nova_fpga_devtools.yocto_build), the wheel at the pin.

Here a subset that covers every build class and every kind of edit the
generator writes (about a minute); `make board-layer-build` builds all of
them (about 2.5 minutes on this machine kind, the C extensions most of it).
Without the recipes' edits the same builds fail.
"""
import json
import subprocess
import tarfile

import pytest

from nova_fpga_devtools import yocto
from nova_fpga_devtools import yocto_build
from tests.conftest import REPORT

#: setuptools with setuptools-scm (requires and both licence edits), flit
#: (requires, licence), hatchling with its plugins (requires,
#: license-files), poetry-core, pbr through setup.py (licence), uv_build's
#: setup.py (no edit)
SUBSET = ('cachetools', 'idna', 'python-dateutil', 'iso8601', 'oslo-config',
          'dnspython')


@pytest.fixture(scope='module')
def tools(tmp_path_factory):
    return yocto_build.tools_venv(tmp_path_factory.mktemp('scarthgap'))


def test_the_virtualenv_holds_scarthgaps_tools(tools):
    listed = json.loads(subprocess.run(
        [tools / 'bin' / 'python', '-m', 'pip', 'list', '--format', 'json'],
        capture_output=True, text=True, check=True).stdout)
    installed = {yocto.normalize(d['name']): d['version'] for d in listed}
    for name, version in yocto.SCARTHGAP_BUILD_TOOLS.items():
        assert installed[name] == version, name


def test_the_subset_covers_every_class_and_edit():
    sdists = yocto.load_sdists()
    layer_classes = {yocto.BACKENDS[m['backend']] for m in sdists.values()}
    classes = {yocto.BACKENDS[sdists[n]['backend']] for n in SUBSET}
    backends = {sdists[n]['backend'] for n in SUBSET}
    assert classes == layer_classes
    assert {'setuptools.build_meta', 'flit_core.buildapi', 'hatchling.build',
            'poetry.core.masonry.api', 'pbr.build', 'uv_build'} <= backends
    edits = ' '.join(e for n in SUBSET for e in yocto.build_edits(sdists[n]))
    for kind in ('"setuptools"', '"setuptools-scm"', '"flit_core"',
                 '"hatchling"', 'license = {text = ', '/^license-files'):
        assert kind in edits, kind


@pytest.mark.parametrize('name', SUBSET)
def test_recipe_builds_with_scarthgaps_tools(tools, tmp_path, name):
    meta = yocto.load_sdists()[name]
    wheel, seconds = yocto_build.build_recipe(tools, meta, tmp_path)
    assert yocto_build.wheel_version(wheel) == meta['version']
    REPORT.append('scarthgap build of %s (tests/yocto): %.1f s' % (
        wheel.name, seconds))


@pytest.mark.parametrize('name', ['cachetools', 'oslo-config'])
def test_without_the_recipes_edits_it_does_not_build(tools, tmp_path, name):
    meta = yocto.load_sdists()[name]
    with tarfile.open(yocto_build.sdist(meta)) as archive:
        archive.extractall(tmp_path, filter='data')
    with pytest.raises(yocto_build.BuildError) as info:
        yocto_build.build(tools, meta, tmp_path / meta['top'],
                          tmp_path / 'dist')
    assert ('setuptools-scm==8.0.4 is incompatible' if name == 'cachetools'
            else "required: ['text']") in str(info.value)
