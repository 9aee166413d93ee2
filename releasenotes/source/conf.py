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

"""Sphinx configuration of nova-fpga's release notes (tox -e releasenotes).

reno reads the notes in releasenotes/notes from the git history: a note
shows once it is committed.
"""

extensions = [
    'openstackdocstheme',
    'reno.sphinxext',
]

project = 'nova-fpga Release Notes'
copyright = '2026, the nova-fpga authors'
master_doc = 'index'
source_suffix = {'.rst': 'restructuredtext'}
exclude_patterns = ['_build']
pygments_style = 'native'

html_theme = 'openstackdocs'
openstackdocs_repo_name = 'nova-fpga/nova-fpga'
openstackdocs_auto_name = False
openstackdocs_use_storyboard = False
openstackdocs_bug_project = 'nova-fpga'
openstackdocs_bug_tag = 'releasenotes'
html_last_updated_fmt = '%Y-%m-%d %H:%M'
