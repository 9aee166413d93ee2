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
