"""HFile v3 (HBase's format, as the metadata table stores it): writer and reader.

Modules, one concern each: format (constants, magics, HFileFormatError), crc32c, varint (Hadoop
vlongs), protobuf (varints and fields), cell (KeyValue cells, index-key shortening), block
(framing, compression, checksums), index (multi-level data-block index), trailer (trailer and
file-info messages), writer (HFileWriter, write_hfile), reader (parse_hfile, read_hfile).
"""
from pyhudi.hfile.format import DEFAULT_BLOCK_SIZE, HFileFormatError
from pyhudi.hfile.reader import parse_hfile, read_hfile
from pyhudi.hfile.writer import write_hfile

__all__ = ["DEFAULT_BLOCK_SIZE", "HFileFormatError", "parse_hfile", "read_hfile", "write_hfile"]
