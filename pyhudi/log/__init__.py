"""Hudi log files: blocks (Avro, Parquet, HFile data, delete, command), their headers and content."""
from pyhudi.log.log_format import (BlockType, DeleteRecord, HeaderKey, LogBlock, LogFormatError, avro_data_block,
                                   delete_block, encode_block, encode_blocks, hfile_data_block, parquet_data_block,
                                   read_blocks, read_log_file, rollback_block)

__all__ = ["BlockType", "DeleteRecord", "HeaderKey", "LogBlock", "LogFormatError", "avro_data_block", "delete_block",
           "encode_block", "encode_blocks", "hfile_data_block", "parquet_data_block", "read_blocks", "read_log_file",
           "rollback_block"]
