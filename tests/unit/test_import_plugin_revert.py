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

"""The import plugin's revert when a later task of Glance's flow fails
(the store full): the image back to queued with the reason, its stores
failed, the staged data removed (tests/reliability shows it on a real
Glance with a full store)."""
from taskflow.types import failure as taskflow_failure

from glance_store_bitstream import import_plugin


class Action:
    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        return lambda *args, **kwargs: self.calls.append(
            (name,) + args + tuple(sorted(kwargs.items())))


class Wrapper:
    image_id = 'image-1'

    def __init__(self):
        self.action = Action()

    def __enter__(self):
        return self.action

    def __exit__(self, *exc):
        return False


def inspected(tmp_path):
    staged = tmp_path / 'image-1'
    staged.write_bytes(b'staged')
    plugin = import_plugin._InspectBitstream(None, 'task-1', 'import',
                                             Wrapper(), ['fpga'])
    plugin._staged = str(staged)  # what a passed inspection leaves
    return plugin, staged


def test_a_store_failure_after_inspection_queues_the_image(tmp_path):
    plugin, staged = inspected(tmp_path)
    failure = taskflow_failure.Failure.from_exception(
        OSError('There is not enough disk space'))
    plugin.revert(None, flow_failures={'ImportToStore': failure})
    assert plugin.action_wrapper.action.calls == [
        ('set_image_attribute', ('status', 'queued')),
        ('remove_importing_stores', ['fpga']),
        ('add_failed_stores', ['fpga']),
        ('set_image_extra_properties', {
            import_plugin.ERROR_PROPERTY:
                'There is not enough disk space'})]
    assert not staged.exists()


def test_an_image_that_is_no_bitstream_is_left_to_glance(tmp_path):
    plugin = import_plugin._InspectBitstream(None, 'task-1', 'import',
                                             Wrapper(), ['fpga'])
    plugin.revert(None, flow_failures={})
    assert plugin.action_wrapper.action.calls == []
