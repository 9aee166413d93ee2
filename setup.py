"""nova-fpga: metadata, extras and entry points are in setup.cfg.

What cannot be said there: the agent package lives under agent/ beside its
board packaging, nova loads drivers only as ``nova.virt.<name>`` (we ship
that one module, not the nova namespace), and the bitstream CRC is a C
extension.
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
        + ['nova.virt.zynq']
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
