"""HFile v3 (HBase's format, as the metadata table stores it): writer and reader."""
from pyhudi.hfile.hfile import DEFAULT_BLOCK_SIZE, HFileFormatError, parse_hfile, read_hfile, write_hfile

__all__ = ["DEFAULT_BLOCK_SIZE", "HFileFormatError", "parse_hfile", "read_hfile", "write_hfile"]
