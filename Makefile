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
