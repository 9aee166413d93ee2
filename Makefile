# The two commands of the README.  Both set up what they need first.
.PHONY: demo test setup bench

setup:
	tools/setup-env

demo: setup
	tools/demo

test: setup
	.venv/bin/python -m pytest tests

bench: setup
	.venv/bin/python benchmarks/bitstream_validate.py
	.venv/bin/python benchmarks/hdl_bridge.py
	.venv/bin/python benchmarks/agent_load.py
	.venv/bin/python benchmarks/bitstream_store_add.py
