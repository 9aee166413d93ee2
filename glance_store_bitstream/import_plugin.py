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

"""Glance image-import plugin: inspect a staged bitstream and describe it.

Runs on the import flow only (``openstack image create --import``:
glance-direct or web-download), before the data goes to a store.  An image
that declares ``fpga_shell_id`` is a bitstream: its staged data is validated
with :mod:`nova_fpga.bitstream`, checked against the declared shell's
regions, and the image gets the derived properties and
``trait:CUSTOM_FPGA_…=required`` properties from the shared naming function;
a signed image's signer certificate is checked for its dates (Glance's own
verification, next, checks the signature).
A refusal fails the import with a message that names the problem, removes
the staged data and records the reason in ``fpga_import_error``; so does a
failure after the inspection (a store that is full), which Glance alone
would leave importing with its staged data.  A plain
data upload never runs this plugin: such an image has no derived properties
and nova's scheduler refuses to place it on a board.
"""
import os

from cursive import certificate_utils
from cursive import signature_utils
from glance.async_.flows import api_image_import
from glance import gateway
from oslo_log import log as logging
from taskflow.patterns import linear_flow as lf
from taskflow import task
from taskflow.types import failure as taskflow_failure

from glance_store_bitstream import inspected
from glance_store_bitstream import policy
from glance_store_bitstream import shells
from glance_store_bitstream import store_route
from nova_fpga import bitstream
from nova_fpga.contract import shell
from nova_fpga.contract import signature as sig
from nova_fpga.contract import traits

LOG = logging.getLogger(__name__)

ERROR_PROPERTY = traits.IMPORT_ERROR_PROPERTY


class BitstreamImportRefused(Exception):
    """The staged data is not a bitstream for the declared shell."""


class _InspectBitstream(task.Task):

    def __init__(self, context, task_id, task_type, action_wrapper, stores):
        self.context = context
        self.action_wrapper = action_wrapper
        self.stores = stores
        self.image_id = action_wrapper.image_id
        self._refused = False
        self._staged = None
        super().__init__(name='%s-InspectBitstream-%s' % (task_type, task_id))

    def execute(self, file_path):
        with self.action_wrapper as action:
            declared_props = dict(action.image_extra_properties)
        declared = declared_props.get(traits.SHELL_ID_PROPERTY)
        ours = store_route.bitstream_stores()
        if declared is None and not set(self.stores) & set(ours):
            LOG.debug('image %s declares no %s: not a bitstream',
                      self.image_id, traits.SHELL_ID_PROPERTY)
            return
        self._refused = True  # until the checks pass
        self._staged = file_path.split('file://')[-1]
        if declared is None:
            raise BitstreamImportRefused(
                'store %s keeps bitstream images only: an image imported '
                'into it declares %s' % (', '.join(
                    sorted(set(self.stores) & set(ours))),
                    traits.SHELL_ID_PROPERTY))
        others = sorted(set(self.stores) - set(ours))
        if others:
            raise BitstreamImportRefused(
                'a bitstream image is kept in the bitstream store (%s), not '
                'in %s: import it with --store %s, or name no store' % (
                    ', '.join(ours) or 'none enabled', ', '.join(others),
                    ours[0] if ours else '<a bitstream store>'))
        policy.enforce_create(self.context)
        info, manifest = self._inspect(self._staged, declared)
        self._check_signer(declared_props)
        props = traits.image_properties(info, manifest.shell_id)
        with self.action_wrapper as action:
            action.set_image_extra_properties(props)
            action.pop_extra_property(ERROR_PROPERTY)
        self._refused = False
        # the store keeps this parse when it writes these bytes
        inspected.remember(self.image_id, self._staged, info)
        LOG.info('image %s: partial bitstream for %s, shell %s, footprint %s',
                 self.image_id, info.device.name, manifest.shell_id,
                 info.footprint.signature)

    def _inspect(self, path, declared):
        try:
            shell_id = traits.normalize_shell_id(declared)
        except bitstream.BitstreamError as exc:
            raise BitstreamImportRefused('%s: %s' % (
                traits.SHELL_ID_PROPERTY, exc))
        try:
            manifest = shells.registered().get(shell_id)
        except shell.ManifestError as exc:
            raise BitstreamImportRefused('shell registry: %s' % exc)
        if manifest is None:
            raise BitstreamImportRefused(
                'shell %s is not registered with this Glance' % shell_id)
        try:
            info = bitstream.validate_file(path)
            traits.image_properties(info, shell_id)  # refuses full ones
        except bitstream.BitstreamError as exc:
            raise BitstreamImportRefused('not a valid partial bitstream: %s'
                                         % exc)
        if info.device != manifest.device:
            raise BitstreamImportRefused(
                'bitstream for %s, but shell %s is on %s' % (
                    info.device.name, shell_id, manifest.device.name))
        if not any(r.footprint == info.footprint for r in manifest.regions):
            raise BitstreamImportRefused(
                'footprint %s matches no region of shell %s (%s): it was '
                'built for another shell or region' % (
                    info.footprint.signature, shell_id, ', '.join(
                        '%s %s' % (r.name, r.footprint.signature)
                        for r in manifest.regions)))
        return info, manifest

    def _check_signer(self, props):
        """A signed image's signature record whole, and its signer's
        certificate within its dates now.  Glance's own verification
        (cursive, in the next task) checks the signature against the data,
        and only when all four properties are there; it never looks at the
        certificate's dates, which nova (with trusted certificates) and the
        board do at every boot: refused here, at import, the tenant learns
        it at once, not from a failed server.
        """
        if not sig.is_signed(props):
            return
        missing = [name for name in sig.PROPERTIES if not props.get(name)]
        if missing:
            raise BitstreamImportRefused(
                'the image is signed (%s) but lacks %s' % (
                    ', '.join(name for name in sig.PROPERTIES
                              if props.get(name)), ', '.join(missing)))
        # the importing user's view of the key manager, as Glance's
        # verifier reads it; not found: cursive's own error
        certificate = signature_utils.get_certificate(
            self.context, props[sig.CERTIFICATE_PROPERTY])
        if not certificate_utils.is_within_valid_dates(certificate):
            raise BitstreamImportRefused(
                'the signer certificate %s is valid from %s to %s, not now' % (
                    certificate.subject.rfc4514_string(),
                    certificate.not_valid_before_utc.isoformat(),
                    certificate.not_valid_after_utc.isoformat()))

    def revert(self, result, flow_failures=None, **kwargs):
        if self._staged is None:
            return  # not a bitstream: nothing of ours to undo
        inspected.forget(self.image_id)
        if self._refused:
            message = str(result.exception) if isinstance(
                result, taskflow_failure.Failure) else 'import refused'
            LOG.warning('image %s: bitstream import refused: %s',
                        self.image_id, message)
        else:
            # inspected, then a later task failed (the store's write, say,
            # on a full disk): Glance reverts the store's location but
            # leaves a glance-direct image importing, with its staged data
            # that nothing will import again
            message = '; '.join(
                str(failure.exception) for failure in
                (flow_failures or {}).values()) or 'import failed'
            LOG.warning('image %s: bitstream import failed after '
                        'inspection: %s', self.image_id, message)
        # The staged data goes first: once the refusal shows, nothing of
        # the refused data is left (the upload fuzz saw it for a moment).
        try:
            os.unlink(self._staged)
        except FileNotFoundError:
            pass
        # As Glance's own conversion plugin does: the image goes back to
        # queued, its stores to failed, and it says why.
        with self.action_wrapper as action:
            action.set_image_attribute(status='queued')
            if self.stores:
                action.remove_importing_stores(self.stores)
                action.add_failed_stores(self.stores)
            action.set_image_extra_properties({ERROR_PROPERTY: message[:255]})


def get_flow(**kwargs):
    """The plugin's flow (entry point glance.image_import.plugins).

    Derived properties are protected from users (property protections), so
    they are written with an admin view of the image, the way Glance's own
    copy-image import does; the import's lock on the image is honoured.
    """
    context = kwargs.get('context')
    task_id = kwargs.get('task_id')
    admin_repo = kwargs.get('admin_repo') or gateway.Gateway().get_repo(
        context.elevated())
    wrapper = api_image_import.ImportActionWrapper(
        admin_repo, kwargs.get('image_id'), task_id)
    return lf.Flow(kwargs.get('task_type')).add(_InspectBitstream(
        context, task_id, kwargs.get('task_type'), wrapper,
        [store for store in kwargs.get('backend') or [] if store]))
