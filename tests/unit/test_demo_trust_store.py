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

"""An emulated board's trust store, as the demo cloud provisions it: the
cloud's signing CA installed as a board image installs it, and the agent's
options pointing at it (localcloud.boards.Board)."""
from nova_fpga_devtools.localcloud import boards
from nova_fpga_devtools import pki


def test_the_trust_store_holds_exactly_the_trusted_cas(tmp_path):
    ca = pki.Authority(tmp_path / 'ca', name='demo CA')
    board = boards.Board(tmp_path, 'board1', 'rabbit://', trusted_cas=[
        ca.pem], signed_only=True)
    board.trust_store.mkdir(parents=True)
    (board.trust_store / 'withdrawn.pem').write_text('an old CA')
    board.install_trust_store()
    assert [p.name for p in board.trust_store.iterdir()] == ['ca.pem']
    assert (board.trust_store / 'ca.pem').read_bytes() == ca.pem.read_bytes()
    assert board.trust_store.stat().st_mode & 0o777 == 0o755
    assert (board.trust_store / 'ca.pem').stat().st_mode & 0o777 == 0o644
    conf = board.conf()
    assert conf[('agent', 'trusted_ca_dir')] == str(board.trust_store)
    assert conf[('agent', 'require_signed_bitstreams')] is True


def test_a_ca_made_before_is_kept(tmp_path):
    """The demo cloud's CA survives a resumed up: the boards' stores and
    the certificates it issued stay valid.
    """
    first = pki.Authority(tmp_path, name='demo CA')
    pem = first.pem.read_bytes()
    again = pki.Authority(tmp_path, name='demo CA')
    assert again.pem.read_bytes() == pem
