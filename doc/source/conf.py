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

"""Sphinx configuration of nova-fpga's documentation (tox -e docs)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, '..', '..'))
# doc/ext: the directives that generate the reference pages from the code;
# the checkout: the contract and catalogue they read
sys.path.insert(0, os.path.join(ROOT, 'doc', 'ext'))
sys.path.insert(0, ROOT)

extensions = [
    'openstackdocstheme',
    'oslo_config.sphinxext',
    'oslo_config.sphinxconfiggen',
    'oslo_policy.sphinxext',
    'oslo_policy.sphinxpolicygen',
    'sphinx.ext.autodoc',
    'nova_fpga_docs',
]

project = 'nova-fpga'
copyright = '2026, the nova-fpga authors'
master_doc = 'index'
source_suffix = {'.rst': 'restructuredtext'}
exclude_patterns = ['_build']
pygments_style = 'native'
# oslo-config-generator's files in etc/ (the same tox -e genconfig reads);
# sphinxconfiggen writes each sample into the source tree
# (reference/samples, not tracked) for the configuration reference
GENERATORS = os.path.join(ROOT, 'etc', 'oslo-config-generator')
config_generator_config_file = [
    (os.path.join(GENERATORS, name + '.conf'), 'reference/samples/' + name)
    for name in ('nova-fpga-agent', 'nova-fpga', 'glance-store-bitstream',
                 'ml2-fpga-board')]
# the policy's sample (sphinxpolicygen) and show-policy, from the file
# tox -e genpolicy reads
policy_generator_config_file = os.path.join(
    ROOT, 'etc', 'oslo-policy-generator', 'nova-fpga.conf')
sample_policy_basename = 'reference/samples/nova-fpga'

# -- openstackdocstheme ---------------------------------------------------
html_theme = 'openstackdocs'
openstackdocs_repo_name = 'nova-fpga/nova-fpga'
openstackdocs_auto_name = False
openstackdocs_use_storyboard = False
openstackdocs_bug_project = 'nova-fpga'
openstackdocs_bug_tag = 'doc'
openstackdocs_pdf_link = False
html_last_updated_fmt = '%Y-%m-%d %H:%M'

# -- autodoc (the agent's report payloads) --------------------------------
autodoc_member_order = 'bysource'
autodoc_default_options = {'members': True}
