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

# The two commands of the README.  Both set up what they need first.
.PHONY: demo test setup bench timing pep8 generate devstack-check board-sdist \
	board-layer

setup:
	tools/setup-env

demo: setup
	tools/demo

# The HDL tests are single-threaded simulations and syntheses that share
# nothing: two at a time (pytest-xdist), one per core.  nova's functional
# harness patches process-wide state (eventlet, global CONF): it runs in a
# pytest process of its own, as nova runs it under stestr.
test: setup pep8
	.venv/bin/python -m pytest tests/hdl -n 2
	.venv/bin/python -m pytest tests --ignore=tests/functional --ignore=tests/hdl
	.venv/bin/python -m pytest tests/functional

# flake8 with OpenStack's hacking rules (tox.ini)
pep8: setup
	.venv/bin/tox -e pep8

bench: setup
	.venv/bin/python benchmarks/bitstream_validate.py
	.venv/bin/python benchmarks/hdl_bridge.py
	.venv/bin/python benchmarks/vtc_throughput.py
	.venv/bin/python benchmarks/agent_load.py
	.venv/bin/python benchmarks/bitstream_store_add.py
	.venv/bin/python benchmarks/vtc_accuracy.py
	.venv/bin/python benchmarks/server_create.py
	.venv/bin/python benchmarks/vtc_timing.py

# Fmax of every module after place and route (yosys + nextpnr-ecp5, the ECP5
# standing in for the xc7z020); minutes for the vTC, so not in `make test`
# (tests/hdl/test_vtc_timing.py runs the loopback only)
timing: setup
	.venv/bin/python benchmarks/vtc_timing.py

# What the module catalogue (nova_fpga/catalogue) determines: Verilog offsets,
# the Vivado module table, hdl/README.md's tables, the partition wrappers.
generate: setup
	.venv/bin/python hdl/generate.py

# The board's source distribution, what the Yocto layer's agent recipe
# builds from (agent/yocto/meta-nova-fpga/README.md): dist/nova_fpga-*.tar.gz
board-sdist: setup
	.venv/bin/python -c 'from nova_fpga_devtools import yocto; print(yocto.build_sdist("dist"))'

# What agent/yocto/meta-nova-fpga is generated from: a recipe for each Python
# distribution the agent imports on a board (its sdist read from PyPI, kept
# in tools/devtools/nova_fpga_devtools/sdists.json), the agent recipe's
# RDEPENDS, the reference shell's manifest and overlay source.
# tests/yocto checks the result is current (no network).
board-layer: setup
	.venv/bin/python -m nova_fpga_devtools.yocto

# A real DevStack run with this checkout's plugin (not in CI: it takes long;
# root; a lab root under /var/tmp/devstack-lab, reused): tools/devstack-check
devstack-check:
	tools/devstack-check
