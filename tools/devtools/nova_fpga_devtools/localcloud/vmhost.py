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

"""The ordinary compute host beside the boards: libvirt and a second
nova-compute with nova's libvirt driver (virt_type = qemu: TCG; KVM fails
on this machine kind), whose ports neutron's macvtap agent binds.

libvirt's daemons are Debian's, started without systemd (virtlogd and
libvirtd in the foreground, processes of the cloud like the others) with
the cloud's own configuration, pid files and sockets in
state_dir/vm-host/libvirt (nova reaches libvirtd through
``qemu:///system?socket=...``); virtlogd listens on libvirt's fixed
system socket, so one VM host runs per machine at a time.  Domains are
named after the cloud (instance_name_template): down destroys the
cloud's own before it stops libvirtd.
"""
import pathlib
import shutil
import subprocess
import time

from oslo_log import log as logging

from nova_fpga_devtools.localcloud import process

LOG = logging.getLogger(__name__)

#: The flavor of the VM host's tiny guests.
FLAVOR = {'name': 'vm.tiny', 'ram': 96, 'vcpus': 1, 'disk': 1}


class Libvirt:
    """virtlogd and libvirtd of the VM host."""

    def __init__(self, state_dir, die_with_parent=True):
        self.dir = pathlib.Path(state_dir) / 'vm-host' / 'libvirt'
        self.run_dir = self.dir / 'run'
        self.socket = self.run_dir / 'libvirt-sock'
        self.uri = 'qemu:///system?socket=%s' % self.socket
        self.log = self.dir / 'libvirtd-debug.log'

        self.no_kvm = self.dir / 'no-kvm'
        self.qemu_conf = self.dir / 'qemu.conf'
        argv = {name: [name, '-f', self.dir / ('%s.conf' % name),
                       '-p', self.dir / ('%s.daemon-pid' % name)]
                for name in ('virtlogd', 'libvirtd')}
        # libvirtd (and the QEMUs it starts) in a mount namespace of its
        # own where /dev/kvm is an empty root-only file: guests are TCG
        # (virt_type = qemu) anyway, and here QEMU's capability probe finds
        # KVM usable where libvirt's check does not, so libvirtd would
        # re-probe QEMU (about 4 s a binary) on every capabilities lookup
        # (a domain definition: about a minute)
        # (a domain definition: about a minute).  There, too, the cloud's
        # qemu.conf over the system's: no per-domain mount namespace
        # (libvirt would try to move that /dev/kvm into it), QEMU as root.
        argv['libvirtd'] = [
            'unshare', '--mount', '--propagation', 'private', 'sh', '-c',
            'mount --bind "$1" /dev/kvm && '
            'mount --bind "$2" /etc/libvirt/qemu.conf && shift 2 && '
            'exec "$@"', 'libvirtd', self.no_kvm, self.qemu_conf,
        ] + argv['libvirtd']
        self.processes = {name: process.Process(
            name, argv[name], self.dir, die_with_parent=die_with_parent)
            for name in ('virtlogd', 'libvirtd')}

    def running(self):
        return bool(process.pid_file_members(
            self.processes['libvirtd'].pid_file))

    def _conf(self):
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.no_kvm.touch(mode=0o600)
        # QEMU as root: the cloud's state directory may be one only root
        # can enter (pytest's tmp_path is 0700)
        self.qemu_conf.write_text('namespaces = []\nuser = "root"\n'
                                  'group = "root"\n')
        (self.dir / 'virtlogd.conf').write_text(
            'log_outputs = "3:file:%s"\n' % (self.dir / 'virtlogd.log'))
        (self.dir / 'libvirtd.conf').write_text(''.join(
            '%s = %s\n' % item for item in {
                'unix_sock_dir': '"%s"' % self.run_dir,
                'unix_sock_rw_perms': '"0700"',
                'auth_unix_rw': '"none"',
                'auth_unix_ro': '"none"',
                'log_outputs': '"3:file:%s"' % self.log,
            }.items()))

    def start(self, timeout=30):
        """virtlogd, then libvirtd, in the foreground as processes of the
        cloud (stopped by pid like the others), unless running.
        """
        for program in ('virtlogd', 'libvirtd', 'virsh'):
            if shutil.which(program) is None:
                raise process.ServiceError(
                    'libvirt', '%s is not installed (bindep.txt: '
                    'libvirt-daemon-system, libvirt-clients)' % program)
        self._conf()
        for name, daemon in self.processes.items():
            if not process.pid_file_members(daemon.pid_file):
                daemon.start()
        deadline = time.monotonic() + timeout
        while True:
            if self.virsh('version', check=False).returncode == 0:
                return self
            for daemon in self.processes.values():
                if not daemon.running():
                    raise process.ServiceError(daemon.name, 'exited',
                                               daemon.log)
            if time.monotonic() > deadline:
                raise process.ServiceError(
                    'libvirtd', 'no answer on %s within %ss' % (
                        self.socket, timeout), self.log)
            time.sleep(0.2)

    @staticmethod
    def qemu_pid_file(domain):
        """Where libvirtd keeps a running domain's QEMU pid."""
        return pathlib.Path('/run/libvirt/qemu/%s.pid' % domain)

    def virsh(self, *args, check=True):
        result = subprocess.run(['virsh', '-c', self.uri, *args],
                                capture_output=True, text=True, timeout=60)
        if check and result.returncode:
            raise process.ServiceError('virsh', '%s: %s' % (
                ' '.join(args), result.stderr.strip()))
        return result

    def domains(self, prefix):
        """Names of the domains (running or defined) starting with prefix."""
        if not self.running():
            return []
        out = self.virsh('list', '--all', '--name').stdout
        return [name for name in out.split() if name.startswith(prefix)]

    def destroy_domains(self, prefix):
        """Stop and undefine the domains named prefix... (down)."""
        for name in self.domains(prefix):
            LOG.info('destroying domain %s', name)
            self.virsh('destroy', name, check=False)
            self.virsh('undefine', name, check=False)

    def stop(self):
        for name in ('libvirtd', 'virtlogd'):
            process.stop_pid_file(self.processes[name].pid_file)


class ComputeHost:
    """nova-compute with the libvirt driver as host name, reading the
    cloud's nova.conf and its own file over it.
    """

    def __init__(self, nova, name, libvirt, domain_prefix,
                 die_with_parent=True):
        self.nova = nova
        self.name = name
        self.libvirt = libvirt
        self.domain_prefix = domain_prefix
        self.dir = nova.dir.parent / 'vm-host'
        self.conf_file = self.dir / 'etc' / 'nova-compute.conf'
        self.process = process.Process(
            'nova-compute', [
                process.BIN / 'nova-compute', '--config-file',
                nova.conf_file, '--config-file', self.conf_file],
            self.dir, env=nova._env(), die_with_parent=die_with_parent)

    def conf(self):
        helper = '%s --config-file %s --config-file %s' % (
            process.BIN / 'privsep-helper', self.nova.conf_file,
            self.conf_file)
        return {
            ('DEFAULT', 'host'): self.name,
            ('DEFAULT', 'compute_driver'): 'libvirt.LibvirtDriver',
            ('DEFAULT', 'state_path'): self.dir / 'state',
            ('DEFAULT', 'instances_path'): self.dir / 'instances',
            # the port goes ACTIVE once the macvtap agent sees the domain's
            # macvtap device: nova waits for that before resuming the guest
            ('DEFAULT', 'vif_plugging_is_fatal'): True,
            ('DEFAULT', 'vif_plugging_timeout'): 120,
            ('DEFAULT', 'resume_guests_state_on_host_boot'): False,
            # the boards' 5 s is for their agents' health
            ('DEFAULT', 'update_resources_interval'): 60,
            ('libvirt', 'virt_type'): 'qemu',
            ('libvirt', 'connection_uri'): self.libvirt.uri,
            ('libvirt', 'cpu_mode'): 'none',
            # nova-compute runs as root: privsep's helper without sudo
            ('nova_sys_admin', 'helper_command'): helper,
            ('privsep_osbrick', 'helper_command'): helper,
            ('vif_plug_linux_bridge_privileged', 'helper_command'): helper,
            ('vif_plug_ovs_privileged', 'helper_command'): helper,
        }

    def start(self):
        for name in ('instances', 'state'):
            (self.dir / name).mkdir(parents=True, exist_ok=True)
        process.write_conf(self.conf_file, self.conf())
        self.process.start()
        return self
