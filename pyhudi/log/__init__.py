"""Hudi log files: blocks (Avro, Parquet, HFile data, delete, command), their headers and content.

Modules, lowest first: cursor (bounded reads, LogFormatError); avro_content, ordering and
delete_content (block contents); block (LogBlock, types, headers); framing (blocks as bytes);
builders (blocks from Python values); positions (the RECORD_POSITIONS header)."""
from pyhudi.log.block import BlockType, HeaderKey, LogBlock
from pyhudi.log.builders import avro_data_block, delete_block, hfile_data_block, parquet_data_block, rollback_block
from pyhudi.log.cursor import LogFormatError
from pyhudi.log.delete_content import DeleteRecord
from pyhudi.log.framing import encode_block, encode_blocks, read_blocks, read_log_file
from pyhudi.log.positions import decode_positions, encode_positions

__all__ = ["BlockType", "DeleteRecord", "HeaderKey", "LogBlock", "LogFormatError", "avro_data_block",
           "decode_positions", "delete_block", "encode_block", "encode_blocks", "encode_positions", "hfile_data_block",
           "parquet_data_block", "read_blocks", "read_log_file", "rollback_block"]
