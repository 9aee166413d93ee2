#!/usr/bin/env bash
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

# The whole real flow: Vivado builds the shell and every partial, then our CLI
# reads each partial's footprint into the shell manifest.
#
#   hdl/vivado/build.sh [BUILD_DIR]        (default hdl/vivado/build)
#
# Needs `vivado` (2020.2 or later) on PATH and the project's virtualenv
# (make setup) for nova-fpga-bitstream.  See hdl/vivado/README.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=$(realpath -m "${1:-$here/build}")
python=${PYTHON:-$top/.venv/bin/python}

command -v vivado >/dev/null || { echo "build.sh: vivado is not on PATH" >&2; exit 1; }
mkdir -p "$build"
(cd "$build" && vivado -mode batch -nojournal -log vivado.log -source "$here/build.tcl" -tclargs "$build")
"$python" "$here/write_manifest.py" "$build/out" -o "$build/out/shell_manifest.json"
