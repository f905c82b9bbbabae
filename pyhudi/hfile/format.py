"""Constants of the HFile v3 layout that writer and reader share: sizes, versions, block magics,
the block header, checksum types and compression codecs."""
from __future__ import annotations

import struct

from pyhudi.errors import HudiError

# Hudi's `hoodie.hfile.block.size` default, also the block size of metadata-table log-block HFiles.
DEFAULT_BLOCK_SIZE = 1024 * 1024
HBASE_DEFAULT_BLOCK_SIZE = 64 * 1024
# HBase `hfile.index.block.max.size` and `hfile.index.block.min.entries` defaults.
DEFAULT_INDEX_BLOCK_MAX_SIZE = 128 * 1024
DEFAULT_INDEX_MIN_ENTRIES = 16

HUDI_COMPARATOR = "org.apache.hudi.io.storage.HoodieHBaseKVComparator"
HBASE_KV_COMPARATOR = "org.apache.hadoop.hbase.KeyValue$KVComparator"

MAJOR_VERSION = 3
MINOR_VERSION = 3
TRAILER_SIZE = 4096

# Block header: magic, on-disk size without header, uncompressed size, previous block of the same
# kind, checksum type, bytes per checksum, on-disk size of header + payload (checksums excluded).
BLOCK_HEADER = struct.Struct(">8siiqbii")
HEADER_SIZE = BLOCK_HEADER.size  # 33
BYTES_PER_CHECKSUM = 16384
CHECKSUM_NULL, CHECKSUM_CRC32, CHECKSUM_CRC32C = 0, 1, 2

LATEST_TIMESTAMP = (1 << 63) - 1
TYPE_PUT = 4
TYPE_MAXIMUM = 255

DATA = b"DATABLK*"
ENCODED_DATA = b"DATABLKE"
LEAF_INDEX = b"IDXLEAF2"
BLOOM_CHUNK = b"BLMFBLK2"
META = b"METABLKc"
INTERMEDIATE_INDEX = b"IDXINTE2"
ROOT_INDEX = b"IDXROOT2"
FILE_INFO = b"FILEINF2"
GENERAL_BLOOM_META = b"BLMFMET2"
DELETE_FAMILY_BLOOM_META = b"DFBLMET2"
TRAILER_MAGIC = b'TRABLK"$'
KNOWN_MAGICS = (DATA, ENCODED_DATA, LEAF_INDEX, BLOOM_CHUNK, META, INTERMEDIATE_INDEX, ROOT_INDEX,
                FILE_INFO, GENERAL_BLOOM_META, DELETE_FAMILY_BLOOM_META)

# File-info keys HBase fills in itself.
KEY_VALUE_VERSION = b"KEY_VALUE_VERSION"
MAX_MEMSTORE_TS_KEY = b"MAX_MEMSTORE_TS_KEY"
AVG_KEY_LEN = b"hfile.AVG_KEY_LEN"
AVG_VALUE_LEN = b"hfile.AVG_VALUE_LEN"
CREATE_TIME_TS = b"hfile.CREATE_TIME_TS"
LASTKEY = b"hfile.LASTKEY"
MAX_TAGS_LEN = b"hfile.MAX_TAGS_LEN"
RESERVED_PREFIX = b"hfile."
PB_MAGIC = b"PBUF"

# Compression.Algorithm ordinals as stored in the trailer.
CODECS = {"LZO": 0, "GZ": 1, "NONE": 2, "SNAPPY": 3, "LZ4": 4, "BZIP2": 5, "ZSTD": 6}
CODEC_NAMES = {v: k for k, v in CODECS.items()}
WRITABLE_CODECS = ("GZ", "NONE")


class HFileFormatError(HudiError, ValueError):
    """Malformed or unsupported HFile bytes."""



def codec_name(compression: str | None) -> str:
    """The trailer's codec name for a writer's compression option (gz/gzip/none, any case)."""
    name = (compression or "none").upper()
    if name == "GZIP":
        name = "GZ"
    if name not in WRITABLE_CODECS:
        raise ValueError(f"unsupported HFile compression {compression!r}; valid values: gz, none")
    return name
