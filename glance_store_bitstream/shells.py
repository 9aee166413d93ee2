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

"""The static shells the operator registers with Glance.

A partial bitstream is only useful for the shell it was built against; the
user declares that shell (``fpga_shell_id``) and the import checks the
bitstream's frame footprint against the shell's regions, from the shell
manifests listed in ``[bitstream_import] shell_manifests``.
"""
import glob

from glance_store_bitstream import conf as bitstream_conf
from nova_fpga.contract import shell


def registered(conf=bitstream_conf.CONF):
    """Shell ID -> Manifest for every configured manifest.

    :raises nova_fpga.shell.ManifestError: a listed manifest is unreadable.
    """
    manifests = {}
    for pattern in conf.bitstream_import.shell_manifests:
        paths = sorted(glob.glob(pattern)) or [pattern]
        for path in paths:
            manifest = shell.load(path)
            manifests[manifest.shell_id] = manifest
    return manifests
