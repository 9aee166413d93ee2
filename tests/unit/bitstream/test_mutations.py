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

"""Real files, damaged: each damage ends in a precise BitstreamError."""
import re
import struct

import pytest

from nova_fpga import bitstream
from nova_fpga.bitstream import builder
from nova_fpga.bitstream import container
from nova_fpga.bitstream import convert
from nova_fpga.bitstream import errors
from nova_fpga.bitstream import footprint
from nova_fpga.bitstream import packets as pk
from tests.unit.bitstream import mutate
from tests.unit.bitstream import realfiles


def refused(data, kind):
    with pytest.raises(kind) as exc:
        bitstream.validate(data)
    return exc.value


@pytest.mark.parametrize('cut', [10, 60, 200, 341261, 682525 - 30])
def test_truncated_partial(cut):
    data = realfiles.read('pr_0_add.bit')[:cut]
    err = refused(data, errors.BitstreamError)
    assert isinstance(err, (errors.TruncatedError, errors.ContainerError))
    assert err.offset is not None


def test_truncated_bin_ends_without_desync():
    data = mutate.payload(realfiles.read('pr_0_add.bit'))
    err = refused(data[:-72], errors.TruncatedError)  # DESYNC + 16 NOPs gone
    assert 'without a DESYNC' in str(err)


def test_truncated_inside_frame_data_says_so():
    data = mutate.payload(realfiles.read('pr_0_add.bit'))
    err = refused(data[:200000], errors.TruncatedError)
    assert 'inside a packet' in str(err)


@pytest.mark.parametrize('name', ['pr_0_add.bit', 'prio.bit'])
def test_one_flipped_bit_in_a_frame_fails_the_crc_naming_word_and_span(name):
    data = realfiles.read(name)
    at = len(data) // 3
    err = refused(mutate.flip_bit(data, at, 5), errors.CrcError)
    message = str(err)
    found = re.search(r'CRC check word 0x([0-9A-F]{8}) does not match '
                      r'0x[0-9A-F]{8} computed over the register writes in '
                      r'bytes (\d+)-(\d+)', message)
    assert found, message
    word, start, end = int(found[1], 16), int(found[2]), int(found[3])
    assert start <= at <= end < err.offset
    # the named word is really the check word at that offset
    assert struct.unpack_from('>I', data, err.offset)[0] == word


def test_header_that_claims_more_data_than_the_file_has():
    data = realfiles.read('pr_0_add.bit')
    declared = container.parse_bit_header(data).payload_length
    err = refused(mutate.with_header(data, payload_length=declared + 4),
                  errors.TruncatedError)
    assert 'declares %d bytes' % (declared + 4) in str(err)


def test_header_that_claims_less_data_than_the_file_has():
    data = realfiles.read('pr_0_add.bit')
    declared = container.parse_bit_header(data).payload_length
    err = refused(mutate.with_header(data, payload_length=declared - 8),
                  errors.HeaderError)
    assert 'continues past' in str(err)


def test_header_length_not_whole_words():
    data = realfiles.read('pr_0_add.bit')
    declared = container.parse_bit_header(data).payload_length
    refused(mutate.with_header(data, payload_length=declared - 3),
            errors.HeaderError)


def test_wrong_sync_word():
    data = realfiles.read('pr_0_add.bit')
    at = data.index(mutate.SYNC)
    bad = data[:at] + struct.pack('>I', 0xAA995567) + data[at + 4:]
    err = refused(bad, errors.SyncError)
    assert '0xAA995567' in str(err) and err.offset == at


def test_sync_word_alone_proves_nothing():
    """A Zynq BOOT.bin carries AA995566 at 0x20 as a width-detection word."""
    boot = (struct.pack('<8I', *[0xEAFFFFFE] * 8) + mutate.SYNC
            + b'XNLX' + bytes(64))
    refused(boot, errors.ContainerError)
    # dummies and a sync, then no configuration packets at all
    words = [pk.DUMMY_WORD] * 8 + [
        pk.SYNC_WORD,
        pk.type1(pk.OP_WRITE, pk.Reg.CMD, 1),
        pk.Cmd.RCRC,
        pk.type1(pk.OP_WRITE, pk.Reg.CMD, 1),
        pk.Cmd.DESYNC,
        pk.NOP_WORD,
    ]
    err = refused(struct.pack('>%dI' % len(words), *words),
                  errors.PacketError)
    assert 'no IDCODE' in str(err)


def test_full_bitstream_presented_as_partial():
    data = mutate.with_header(realfiles.read('prio.bit'), partial_flag=True)
    err = refused(data, errors.HeaderError)
    assert 'PARTIAL=TRUE' in str(err) and 'full bitstream' in str(err)


def test_full_extent_without_set_up_block_is_still_full():
    """FAR 0 over every frame of the device is a full write by its extent,
    even in a stream shaped like a partial (no COR0/TIMER/WBSTAR/SWITCH).
    """
    whole_device = bitstream.validate(realfiles.read('prio.bit')).footprint
    data = builder.build_partial('7z020clg400', 'whole', 0x1, whole_device)
    info = bitstream.validate(mutate.with_header(data, partial_flag=False))
    assert not info.partial
    # the same stream one frame short is a partial
    short = footprint.Footprint((footprint.Block(0, 1010808 - 101),))
    data = builder.build_partial('7z020clg400', 'almost', 0x1, short)
    assert bitstream.validate(data).partial


@pytest.mark.parametrize('name', ['pr_0_add.bit', 'prio.bit'])
@pytest.mark.parametrize('pcap', [True, False])
def test_bin_in_both_byte_orders_gives_the_same_description(name, pcap):
    data = realfiles.read(name)
    bin_data = convert.to_bin(data, pcap=pcap)
    assert bin_data[:4] == b'\xff\xff\xff\xff'
    sync = b'\x66\x55\x99\xaa' if pcap else mutate.SYNC
    assert sync in bin_data[:64]
    whole, raw = bitstream.validate(data), bitstream.validate(bin_data)
    assert raw.container == ('bin-swapped' if pcap else 'bin')
    assert raw.footprint == whole.footprint
    assert raw.device == whole.device
    assert raw.partial == whole.partial
    assert raw.crc_checks == whole.crc_checks
    assert raw.design == '' and not raw.module_declared
    # converting the .bin again is the identity on its byte order
    assert convert.to_bin(bin_data, pcap=pcap) == bin_data


def test_pcap_bin_with_a_flipped_bit_fails_the_crc():
    bin_data = convert.to_bin(realfiles.read('pr_0_add.bit'))
    refused(mutate.flip_bit(bin_data, 300001), errors.CrcError)


@pytest.mark.parametrize('idcode,message', [
    (0x0362D093, 'xc7a35t (Artix-7): not a Zynq device'),
    (0x03651093, 'xc7k325t (Kintex-7): not a Zynq device'),
    (0x0BADC0DE, 'not a known Xilinx device'),
    (0x03722093, 'header names part 7z020clg400 but the IDCODE 0x03722093 '
                 'is xc7z010'),
])
def test_idcode_is_checked_against_devices_and_header(idcode, message):
    data = mutate.replace_word_after(realfiles.read('pr_0_add.bit'),
                                     mutate.IDCODE_WRITE, idcode)
    err = refused(data, errors.DeviceError)
    assert message in str(err)


def test_data_after_desync_is_refused():
    data = mutate.payload(realfiles.read('pr_0_add.bit')) + b'\x12\x34\x56\x78'
    err = refused(data, errors.PacketError)
    assert 'after DESYNC' in str(err)


def test_unknown_register_and_bad_header_word():
    data = mutate.payload(realfiles.read('pr_0_add.bit'))
    at = data.index(mutate.IDCODE_WRITE)
    bad = data[:at] + struct.pack('>I', pk.type1(pk.OP_WRITE, 0x15, 1)) \
        + data[at + 4:]
    assert 'unknown register 0x15' in str(refused(bad, errors.PacketError))
    bad = data[:at] + struct.pack('>I', 0x80000000) + data[at + 4:]
    assert 'not a packet header' in str(refused(bad, errors.PacketError))


def test_frames_that_are_not_whole_frames():
    data = mutate.payload(realfiles.read('pr_0_add.bit'))
    t2 = struct.pack('>I', pk.type2(pk.OP_WRITE, 23028))
    at = data.index(t2)
    bad = data[:at] + struct.pack('>I', pk.type2(pk.OP_WRITE, 23027)) \
        + data[at + 4:]
    err = refused(bad, errors.FootprintError)
    assert '101-word frames' in str(err)
