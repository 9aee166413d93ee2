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

"""nova-fpga: metadata, extras and entry points are in setup.cfg.

What cannot be said there: the agent package lives under agent/ beside its
board packaging, and the bitstream CRC is a C extension.  The
``nova.virt.zynq`` module nova-compute loads the driver by is a
distribution of its own (nova-virt-zynq/, nova-fpga-virt): only the
compute role has a ``nova`` package of ours.
"""
import setuptools

setuptools.setup(
    packages=(
        setuptools.find_packages(
            include=[
                'nova_fpga',
                'nova_fpga.*',
                'glance_store_bitstream',
                'glance_store_bitstream.*',
            ]
        )
        + setuptools.find_packages(
            'agent', include=['nova_fpga_agent', 'nova_fpga_agent.*']
        )
    ),
    package_dir={'nova_fpga_agent': 'agent/nova_fpga_agent'},
    ext_modules=[
        setuptools.Extension(
            'nova_fpga.bitstream._crc',
            ['nova_fpga/bitstream/_crc.c'],
            extra_compile_args=['-O2'],
        )
    ],
)
