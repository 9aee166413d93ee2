#!/usr/bin/env bash
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
