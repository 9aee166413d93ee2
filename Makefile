# The two commands of the README.  Both set up what they need first.
.PHONY: demo test setup bench

setup:
	tools/setup-env

demo: setup
	tools/demo

# nova's functional harness patches process-wide state (eventlet, global
# CONF): it runs in a pytest process of its own, as nova runs it under stestr.
test: setup
	.venv/bin/python -m pytest tests --ignore=tests/functional
	.venv/bin/python -m pytest tests/functional

bench: setup
	.venv/bin/python benchmarks/bitstream_validate.py
	.venv/bin/python benchmarks/hdl_bridge.py
	.venv/bin/python benchmarks/vtc_throughput.py
	.venv/bin/python benchmarks/agent_load.py
	.venv/bin/python benchmarks/bitstream_store_add.py
	.venv/bin/python benchmarks/vtc_accuracy.py
	.venv/bin/python benchmarks/server_create.py
