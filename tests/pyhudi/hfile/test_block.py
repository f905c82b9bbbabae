"""Block framing: header, compression, CRC32C checksums."""
from __future__ import annotations

import pytest

from pyhudi.hfile import read_hfile, write_hfile
from pyhudi.hfile.block import frame_block, read_block
from pyhudi.hfile.format import BYTES_PER_CHECKSUM, CHECKSUM_CRC32C, DATA, HEADER_SIZE, HFileFormatError
from tests.pyhudi.hfile.hfile_checks import numbered_cells


@pytest.mark.parametrize("codec", ["GZ", "NONE"])
def test_framed_block_reads_back(codec):
    payload = bytes(range(256)) * 200  # more than one 16 KiB checksum chunk
    framed = b"pad" + frame_block(DATA, payload, 1234, codec)
    block = read_block(framed, 3, codec)
    assert (block.magic, block.prev_offset, block.payload) == (DATA, 1234, payload)
    assert (block.checksum_type, block.bytes_per_checksum) == (CHECKSUM_CRC32C, BYTES_PER_CHECKSUM)
    checksums = 4 * -(-(HEADER_SIZE + len(block.on_disk_payload)) // BYTES_PER_CHECKSUM)
    assert block.on_disk_size == len(framed) - 3 == HEADER_SIZE + len(block.on_disk_payload) + checksums


def test_corrupted_byte_fails_checksum():
    data = bytearray(write_hfile(numbered_cells(10)))
    data[40] ^= 1
    with pytest.raises(HFileFormatError, match="CRC32C"):
        read_hfile(bytes(data))
