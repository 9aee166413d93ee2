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

"""Processes of a local cloud: started in their own session, stopped by pid.

Each service runs as the leader of a new process group, so stopping it by the
pid in its pid file reaches gunicorn's workers too; SIGTERM first so gunicorn
and glance drain cleanly, SIGKILL for whatever is left.  Started from a test,
a service also gets SIGTERM when the test process dies, so a crashed pytest
leaves nothing behind; the demo turns that off to outlive its command.
"""
import ctypes
import os
import pathlib
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

from nova_fpga import deployment

#: The venv's scripts: keystone-manage, glance-manage, gunicorn, openstack.
BIN = pathlib.Path(sys.prefix) / 'bin'

_PR_SET_PDEATHSIG = 1

#: The C allocator's setting every service of the local cloud starts with
#: unless its environment sets it: two glibc arenas, not eight per core.
#: glance-api, nova-compute and the boards' agents handle bitstreams of
#: megabytes on many threads; with an arena per thread the freed pages
#: stay with the process (doc/source/admin/agent.rst, "Memory"; the
#: admin guide's deployment notes say the same for glance-api).
ALLOCATOR_ENV = {'MALLOC_ARENA_MAX': '2'}


class ServiceError(RuntimeError):
    """A service or set-up command failed; the message ends with its log."""

    def __init__(self, name, problem, log=None):
        self.name = name
        text = '%s: %s' % (name, problem)
        if log is not None:
            text += '\n--- last lines of %s ---\n%s' % (log, log_tail(log))
        super().__init__(text)


def free_port(host='127.0.0.1'):
    """A TCP port nothing listens on now (the kernel's pick)."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def log_tail(path, lines=40):
    path = pathlib.Path(path)
    if not path.exists():
        return '(no log written)'
    return '\n'.join(path.read_text(errors='replace').splitlines()[-lines:])


def write_conf(path, options):
    """Write {(section, option): value} as an oslo-style ini file (values
    as nova_fpga.deployment writes them: a Multi on a line per value).
    """
    sections = {'DEFAULT': []}
    for (section, option), value in options.items():
        values = value if isinstance(value, deployment.Multi) else [value]
        sections.setdefault(section, []).extend(
            '%s = %s' % (option, deployment.text(v)) for v in values)
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(''.join('[%s]\n%s\n' % (section, ''.join(
        line + '\n' for line in body)) for section, body in sections.items()))
    return path


def options(triples):
    """nova_fpga.deployment's [(section, option, value)] as write_conf's
    {(section, option): value}.
    """
    return {(section, option): value for section, option, value in triples}


def run(name, argv, log, env=None, timeout=300):
    """Run a set-up command, its output appended to log; raise on failure."""
    with open(log, 'ab') as out:
        out.write(('$ %s\n' % ' '.join(map(str, argv))).encode())
        out.flush()
        try:
            result = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT,
                                    env=env, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ServiceError(name, '%s took over %ss' % (argv[0], timeout),
                               log) from None
    if result.returncode:
        raise ServiceError(name, '%s exited %s' % (
            ' '.join(map(str, argv[:2])), result.returncode), log)


def _die_with_parent():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def group_members(pgid):
    """Pids of the live (not zombie) processes in process group pgid.

    Read from /proc rather than probed with kill(): a zombie still answers
    kill(), and orphaned workers may wait a while for a container's pid 1.
    """
    members = []
    for entry in os.scandir('/proc'):
        if not entry.name.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % entry.name) as stat:
                text = stat.read()
        except OSError:
            continue
        state, _ppid, pgrp = text[text.rindex(')') + 2:].split()[:3]
        if int(pgrp) == pgid and state != 'Z':
            members.append(int(entry.name))
    return members


def rss_kib(pid):
    """A process's resident memory in KiB (0 once it is gone)."""
    try:
        with open('/proc/%d/status' % pid) as status:
            for line in status:
                if line.startswith('VmRSS:'):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def pid_file_members(pid_file):
    """Live pids of the group whose leader's pid is in pid_file (a resumed
    cloud's check for what still runs); none when there is no such file.
    """
    try:
        return group_members(int(pathlib.Path(pid_file).read_text()))
    except (FileNotFoundError, ValueError):
        return []


def _reap(pid):
    # Collect our own exited child; a no-op for anyone else's.
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def _wait_group_gone(pgid, timeout):
    deadline = time.monotonic() + timeout
    while True:
        _reap(pgid)
        if not group_members(pgid):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def _signal_group(pgid, signum):
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        pass


def stop_group(pgid, timeout=15):
    """SIGTERM the process group pgid, SIGKILL it after timeout seconds.

    Returns True when something was running.
    """
    return bool(stop_groups([pgid], timeout))


def stop_groups(pgids, timeout=15):
    """SIGTERM the process groups together, SIGKILL those still there
    after timeout seconds: a cloud's services shut down side by side, not
    each waiting for the one before.

    Returns the pgids that had something running.
    """
    running = []
    for pgid in pgids:
        if group_members(pgid):
            running.append(pgid)
        else:
            _reap(pgid)
    for pgid in running:
        _signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    left = [pgid for pgid in running
            if not _wait_group_gone(pgid, deadline - time.monotonic())]
    for pgid in left:
        _signal_group(pgid, signal.SIGKILL)
    for pgid in left:
        if not _wait_group_gone(pgid, 10):
            raise ServiceError(
                'process group %s' % pgid,
                'survived SIGKILL: %s' % group_members(pgid),
            )
    return running


def stop_pid_file(pid_file, timeout=15):
    """Stop the service whose group leader's pid is in pid_file (demo down)."""
    pid_file = pathlib.Path(pid_file)
    if not pid_file.exists():
        return False
    stopped = stop_group(int(pid_file.read_text()), timeout)
    pid_file.unlink()
    return stopped


class Process:
    """One long-running service: log file, pid file, health URL."""

    def __init__(self, name, argv, run_dir, env=None, health_url=None,
                 die_with_parent=True):
        self.name = name
        self.argv = [str(arg) for arg in argv]
        self.run_dir = pathlib.Path(run_dir)
        self.env = dict(ALLOCATOR_ENV, **(os.environ if env is None else env))
        self.health_url = health_url
        self.die_with_parent = die_with_parent
        self.log = self.run_dir / ('%s.log' % name)
        self.pid_file = self.run_dir / ('%s.pid' % name)
        self.popen = None

    @property
    def pid(self):
        return self.popen.pid if self.popen else None

    def pids(self):
        """Live pids of the service: gunicorn's master and its workers."""
        return group_members(self.popen.pid) if self.popen else []

    def running(self):
        return bool(self.pids())

    def start(self, timeout=60):
        if self.running():
            raise ServiceError(self.name, 'already running as %s' % self.pid)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        with open(self.log, 'ab') as out:
            self.popen = subprocess.Popen(
                self.argv, cwd=self.run_dir, env=self.env,
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent if self.die_with_parent else None)
        self.pid_file.write_text('%d\n' % self.popen.pid)
        if self.health_url:
            self.wait_healthy(timeout)
        return self

    def wait_healthy(self, timeout=60):
        """Wait until health_url answers below 500; stop and raise if not."""
        deadline = time.monotonic() + timeout
        while True:
            code = self.popen.poll()
            if code is not None:
                self.stop()
                raise ServiceError(self.name, 'exited %s before %s answered'
                                   % (code, self.health_url), self.log)
            try:
                with urllib.request.urlopen(self.health_url, timeout=2):
                    return
            except urllib.error.HTTPError as exc:
                if exc.code < 500:
                    return
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise ServiceError(self.name, '%s did not answer within %ss'
                                   % (self.health_url, timeout), self.log)
            time.sleep(0.1)

    def stop(self, timeout=15):
        if self.popen is None:
            return False
        stopped = stop_group(self.popen.pid, timeout)
        self.popen.poll()
        if self.pid_file.exists():
            self.pid_file.unlink()
        return stopped


def gunicorn(name, wsgi_app, run_dir, port, env=None, threads=1,
             host='127.0.0.1', die_with_parent=True, health_path='/'):
    """A Process serving wsgi_app under gunicorn with one worker.

    The settings go in run_dir/gunicorn.conf.py, which gunicorn reads from
    its working directory, so the worker's sys.argv is just the script:
    keystone parses sys.argv and chokes on gunicorn's options.
    """
    run_dir = pathlib.Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    settings = {
        'wsgi_app': wsgi_app,
        'bind': '%s:%d' % (host, port),
        'workers': 1,
        'worker_class': 'gthread' if threads > 1 else 'sync',
        'threads': threads,
        # Uploads and imports of big images are single long requests.
        'timeout': 600,
        'graceful_timeout': 10,
        # An idle keep-alive connection stays open longer than a client
        # waits between two requests on it: with gunicorn's default (2 s)
        # the server closed it just as `openstack server delete --wait`
        # (a GET every 2 s) sent its next request on it, and the CLI
        # failed with "Remote end closed connection without response"
        # (seen in a CI run of tests/localcloud/test_stack.py).  75 s, as
        # nginx's keepalive_timeout.
        'keepalive': 75,
        # Else gunicorn 27 writes a control socket under ~/.gunicorn/.
        'control_socket_disable': True,
        'accesslog': '-',
    }
    (run_dir / 'gunicorn.conf.py').write_text(''.join(
        '%s = %r\n' % item for item in settings.items()))
    return Process(name, [BIN / 'gunicorn'], run_dir, env=env,
                   health_url='http://%s:%d%s' % (host, port, health_path),
                   die_with_parent=die_with_parent)


def _service_name(state_dir, pid_file):
    # Unique within the cloud: 'keystone/keystone', 'glance/glance-api'.
    return str(pid_file.relative_to(state_dir).with_suffix(''))


def services(state_dir):
    """{service: live pids} for each pid file under state_dir.

    What ``demo status`` shows; an empty list is a service that died.
    """
    state_dir = pathlib.Path(state_dir)
    return {_service_name(state_dir, pid_file):
            group_members(int(pid_file.read_text()))
            for pid_file in sorted(state_dir.rglob('*.pid'))}


#: the servers a cloud's services talk to (a private RabbitMQ with its
#: epmd, a private MariaDB): stopped after the services, so that no
#: service's shutdown waits for a broker or a database already gone
BACKING_SERVERS = ('rabbitmq', 'mariadb')


def stop_all(state_dir, timeout=15):
    """Stop every service with a pid file under state_dir: the services
    together, then the servers they use (BACKING_SERVERS) one by one,
    newest first.

    Returns the services (named as services() does) that were running,
    newest first: glance before the keystone it validates tokens with.
    """
    state_dir = pathlib.Path(state_dir)
    pid_files = sorted(state_dir.rglob('*.pid'),
                       key=lambda path: path.stat().st_mtime, reverse=True)
    backing = [pid_file for pid_file in pid_files
               if set(pid_file.relative_to(state_dir).parts[:-1])
               & set(BACKING_SERVERS)]
    service_pid_files = {}
    for pid_file in pid_files:
        if pid_file not in backing:
            service_pid_files[int(pid_file.read_text())] = pid_file
    running = set(stop_groups(service_pid_files, timeout))
    for pid_file in service_pid_files.values():
        pid_file.unlink()
    stopped = [pid_file for pgid, pid_file in service_pid_files.items()
               if pgid in running]
    stopped += [pid_file for pid_file in backing
                if stop_pid_file(pid_file, timeout)]
    return [_service_name(state_dir, pid_file) for pid_file in stopped]
