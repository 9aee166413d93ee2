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

"""A real OpenStack on 127.0.0.1, for tests and the demo.

Glance tests, the end-to-end tests and ``nova-fpga-demo up`` all need the
same thing: a small cloud whose services are the real OpenStack code (the
store driver, import plugin, virt driver and filter are only worth testing
against real services and real token checks).  Everything one cloud owns
sits under the state directory its caller passes in: configs, SQLite
databases, fernet keys, logs, pid files and image directories, so two
clouds never share a file and removing the directory removes the cloud.
Services run under gunicorn where upstream requires a WSGI server, and are
stopped by the pid they were started with.  stack.Stack puts them together.
"""
