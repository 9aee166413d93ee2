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
.PHONY: demo test setup docs bench bench-rfc2544 bench-scale timing pep8 generate devstack-check devstack-check-multinode soak \
	board-sdist board-layer board-layer-build test-chain test-faults test-beyond-ci fuzz

setup:
	tools/setup-env

demo: setup
	tools/demo

# What CI runs (.ci/run), in three pytest runs side by side where they can
# be: the HDL tests are single-threaded simulations and syntheses that share
# nothing (two at a time, pytest-xdist); the middle part's independent
# suites run three at a time (every test of one cloud in the same worker,
# so each cloud starts once: tests/conftest.py's scheduler); nova's
# functional harness patches process-wide state (eventlet, global CONF), so
# it runs in a pytest process of its own, serially (eventlet's monkey
# patching stalls pytest-xdist's worker channel).  Tests marked beyond_ci take longer than CI's budget: `make
# test-beyond-ci` runs them (`make test-chain` and `make test-faults` run
# parts).  The end prints the 30 slowest tests of all three runs.
CI_REPORTS = .build/ci
test: setup pep8 docs
	rm -rf $(CI_REPORTS) && mkdir -p $(CI_REPORTS)
	.venv/bin/python -m pytest tests/hdl -m 'not beyond_ci' -n 2 \
		--junitxml=$(CI_REPORTS)/hdl.xml
	.venv/bin/python -m pytest tests --ignore=tests/functional --ignore=tests/hdl \
		-m 'not beyond_ci' -n 3 --dist loadgroup --junitxml=$(CI_REPORTS)/middle.xml
	.venv/bin/python -m pytest tests/functional --junitxml=$(CI_REPORTS)/functional.xml
	.venv/bin/python tools/slowest-tests 30 $(CI_REPORTS)/*.xml

# The VM host's cloud with every chain test on it (tenant isolation, an
# agent restart with ports bound: beyond CI's time budget)
test-chain: setup
	.venv/bin/python -m pytest tests/localcloud/test_vm_host.py \
		tests/localcloud/test_vm_host_chain.py

# The boundary fuzz at full strength (CI runs the same tests smaller):
# 2,000 mutated real bitstreams through the import flow of real
# glance-apis, four side by side (each on its own SQLite, one import at a
# time; over pytest.ini's 30-minute limit on a busy machine), then the agent's RPC methods
# fuzzed over RabbitMQ (400 random calls per method)
fuzz: setup
	NOVA_FPGA_IMPORT_FUZZ=2000 NOVA_FPGA_IMPORT_FUZZ_SHARDS=4 \
		.venv/bin/python -m pytest -n 4 --timeout 7200 tests/glance/test_import_fuzz.py
	NOVA_FPGA_RPC_FUZZ=400 .venv/bin/python -m pytest tests/agent/test_rpc_fuzz.py

# flake8 with OpenStack's hacking rules (tox.ini)
pep8: setup
	.venv/bin/tox -e pep8

# The documentation with warnings as errors (tox -e docs, as CI runs it)
docs: setup
	.venv/bin/tox -e docs

bench: setup
	.venv/bin/python benchmarks/bitstream_validate.py
	.venv/bin/python benchmarks/hdl_bridge.py
	.venv/bin/python benchmarks/vtc_throughput.py
	.venv/bin/python benchmarks/agent_load.py
	.venv/bin/python benchmarks/bitstream_store_add.py
	.venv/bin/python benchmarks/vtc_accuracy.py
	.venv/bin/python benchmarks/server_create.py
	.venv/bin/python benchmarks/vtc_timing.py

# RFC 2544 throughput and latency of the board's data path (issue 31; root,
# not in CI): the C data mover with its engines, the Python path as the
# reference.  TRIAL: seconds per trial (RFC 2544 asks 60).
TRIAL ?= 10
# root (network namespaces); the project's venv when there is one (the
# Verilated engines build their modules with the emulator's hdl_bridge)
PYTHON ?= $(if $(wildcard .venv/bin/python),.venv/bin/python,python3)
bench-rfc2544: setup
	$(PYTHON) benchmarks/rfc2544.py --trial-seconds $(TRIAL)

# 200 behavioural boards x 4 regions in one fleet process on a private
# RabbitMQ, shared by two proxies: memory per board, the driver's periodic
# task per proxy, the takeover work; then the same boards on the demo
# cloud's real services with two proxies and nova's fake driver beside them
# (the floor): placement providers, periodic task per proxy, scheduling
# time, create -> ACTIVE against the floor (minutes: not in `make test`)
bench-scale: setup
	.venv/bin/python benchmarks/proxy_scale.py
	.venv/bin/python benchmarks/cloud_scale.py

# Fmax of every module after place and route (yosys + nextpnr-ecp5, the ECP5
# standing in for the xc7z020) at three placement seeds; minutes for the vTC,
# so not in `make test` (tests/hdl/test_vtc_timing.py runs the loopback only)
timing: setup
	.venv/bin/python benchmarks/vtc_timing.py --seeds 1,2,3

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

# Every python3-* recipe of the layer built as scarthgap would build it:
# its sdist, its own do_configure:prepend, its class's build with exactly
# scarthgap's build tools (about 2.5 min; tests/yocto builds a subset)
board-layer-build: setup
	.venv/bin/python -m nova_fpga_devtools.yocto_build

# A real DevStack run with this checkout's plugin (not in CI: it takes long;
# root; a lab root under /var/tmp/devstack-lab, reused): tools/devstack-check
devstack-check:
	tools/devstack-check

# The same on two nodes: a controller and a board node, each a lab of its
# own, joined by a veth pair (tools/devstack-check --multinode)
devstack-check-multinode:
	tools/devstack-check --multinode

# Every test marked beyond_ci (the chain's, the fault cases, the e2e form of
# a silent board named by nova-fpga-manage, the vTC's whole cocotb suites
# on Icarus)
test-beyond-ci: setup
	.venv/bin/python -m pytest tests --ignore=tests/functional -m beyond_ci

# The fault cases of tests/reliability (each minutes long: beyond CI's time
# budget; make test runs the invariant checker's own tests and the CI soak)
test-faults: setup
	.venv/bin/python -m pytest tests/reliability/test_faults.py

# The fault-injection suite's soak (tests/reliability/soak.py): 1,500
# create/delete cycles, 10 at a time, mixed images (bad ones must fail
# cleanly), on a cloud of its own with five boards; the invariant checker
# at the end and each process's memory growth after warm-up (about 45
# minutes: not in `make test`, which runs a 30-cycle version); its output
# in benchmarks/results/soak-*.txt
soak: setup
	.venv/bin/python -m tests.reliability.soak --cycles 1500 --concurrency 10 --boards 5
