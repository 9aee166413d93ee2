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

"""nova-fpga's filters in glance-api's paste pipeline.

Deployments add them to glance-api-paste.ini, in the pipelines that
authenticate (``keystone``, ``keystone+caching``,
``keystone+cachemanagement``), after authentication and just before the
application:
they act on what an authenticated user asked::

    [composite:api]
    keystone = cors ... authtoken context bitstream_upload_errors \
bitstream_snapshots bitstream_store_route rootapp

    [filter:bitstream_upload_errors]
    paste.filter_factory = glance_store_bitstream.upload_errors:\
UploadErrors.factory
    [filter:bitstream_snapshots]
    paste.filter_factory = glance_store_bitstream.snapshots:\
RegionSnapshots.factory
    [filter:bitstream_store_route]
    paste.filter_factory = glance_store_bitstream.store_route:\
BitstreamStoreRoute.factory

:func:`add_to_paste` does that to a paste file's text.
"""

#: filter name -> paste filter factory, outermost first
FILTERS = {
    'bitstream_upload_errors':
        'glance_store_bitstream.upload_errors:UploadErrors.factory',
    'bitstream_snapshots':
        'glance_store_bitstream.snapshots:RegionSnapshots.factory',
    'bitstream_store_route':
        'glance_store_bitstream.store_route:BitstreamStoreRoute.factory',
}


def has_filters(text):
    """Whether a paste file's text already defines the filters."""
    return all('[filter:%s]' % name in text for name in FILTERS)


def add_to_paste(text):
    """glance-api-paste.ini's text with the filters in every pipeline of
    its [composite:api] section that authenticates with keystone
    (``keystone``, ``keystone+caching``, ``keystone+cachemanagement``:
    ``[paste_deploy] flavor`` picks one; DevStack's is
    keystone+cachemanagement), before the application that ends it.
    """
    lines = text.splitlines()
    section = None
    changed = 0
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith('['):
            section = stripped
            continue
        name, sep, value = line.partition(' = ')
        if (section == '[composite:api]' and sep
                and (name == 'keystone' or name.startswith('keystone+'))):
            *filters, app = value.split()
            lines[i] = '%s = %s' % (name, ' '.join(
                filters + list(FILTERS) + [app]))
            changed += 1
    if not changed:
        raise ValueError('no keystone pipeline in the [composite:api] '
                         'section of the paste configuration')
    for name, factory in FILTERS.items():
        lines += ['', '[filter:%s]' % name,
                  'paste.filter_factory = %s' % factory]
    return '\n'.join(lines) + '\n'
