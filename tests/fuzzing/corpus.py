"""The real files the fuzz tests mutate: log files, HFiles and instant files written by Apache Hudi
(and HBase) from tests/fixtures, chosen to cover every block type, both HFile flavours (HBase
with CRC32C checksums, Hudi-native with none) and both instant encodings (Avro container, JSON).

Each input is (name, bytes). Multi-block logs are made by appending real log files of one file
group, as a log file is: a sequence of complete blocks.
"""
from __future__ import annotations

from pathlib import Path

from conftest import FIXTURES

_V8 = "quickstart_trips_table_mor_avro__v8_trips_8i3u1d"
_V9 = "sample_table_mor_avro__v9_txns_simple_meta"
_V9_OVERWRITE = "sample_table_cow__v9_txns_simple_overwrite"


def _fixture_log(kind: str) -> bytes:
    (path,) = (FIXTURES / "log-files" / kind).glob(".*")
    return path.read_bytes()


def _files(base: str, pattern: str) -> list[Path]:
    return sorted(p for p in Path(base).rglob(pattern) if "__MACOSX" not in p.parts)


def _first(base: str, pattern: str, where=lambda p: True) -> Path:
    return next(p for p in _files(base, pattern) if where(p))


def _largest(base: str, pattern: str) -> Path:
    return max(_files(base, pattern), key=lambda p: (p.stat().st_size, str(p)))


def log_inputs(tables: dict[str, str]) -> list[tuple[str, bytes]]:
    """Avro, delete, Parquet, rollback and HFile (both flavours) blocks, alone and in sequence."""
    def data_log(table: str, block_type: bytes) -> bytes:
        return next(p.read_bytes() for p in _files(tables[table], ".*.log.*")
                    if "/.hoodie/" not in str(p) and p.read_bytes()[18:22] == block_type)

    avro, delete, rollback = (b"\x00\x00\x00\x03", b"\x00\x00\x00\x01", _fixture_log("valid_log_rollback"))
    return [
        ("log-avro", _fixture_log("valid_log_avro_data")),
        ("log-delete", _fixture_log("valid_log_delete")),
        ("log-parquet", _fixture_log("valid_log_parquet_data")),
        ("log-three-blocks", _fixture_log("valid_log_avro_data") + _fixture_log("valid_log_delete") + rollback),
        ("v8-avro-delete", data_log(_V8, avro) + data_log(_V8, delete)),
        ("v9-avro-delete-rollback", data_log(_V9, avro) + data_log(_V9, delete) + rollback),
        ("v8-mdt-files-hfile", _first(tables[_V8], ".files-*.log.*", lambda p: p.stat().st_size > 1000).read_bytes()),
        ("v9-mdt-record-index", _largest(tables[_V9_OVERWRITE], ".record-index-*.log.*").read_bytes()),
    ]


def hfile_inputs(tables: dict[str, str]) -> list[tuple[str, bytes]]:
    """HBase-written test files (GZ and NONE, one and three index levels, duplicate rows, empty)
    and metadata-table base files of both writers."""
    hfiles = FIXTURES / "hfile"
    return [
        ("hf-no-entry", (hfiles / "hudi_1_0_hbase_2_4_9_no_entry.hfile").read_bytes()),
        ("hf-non-unique", (hfiles / "hudi_1_0_hbase_2_4_9_16KB_GZ_200_20_non_unique.hfile").read_bytes()),
        ("hf-deep-index", (hfiles / "hudi_1_0_hbase_2_4_13_1KB_GZ_10000_large_keys_deep_index.hfile").read_bytes()),
        ("hf-none-codec", (hfiles / "hudi_1_0_hbase_2_4_9_16KB_NONE_5000.hfile").read_bytes()),
        ("v8-mdt-record-index", _largest(tables[_V8], "record-index-*.hfile").read_bytes()),
        ("v9-mdt-record-index", _largest(tables[_V9], "record-index-*.hfile").read_bytes()),
        ("v9-mdt-files", _largest(tables[_V9], "files-*.hfile").read_bytes()),
    ]


def instant_inputs(tables: dict[str, str]) -> list[tuple[str, bytes]]:
    """Avro instant files of layout 2 (commit metadata, plans) and JSON commit metadata of layout 1."""
    def timeline(table: str, suffix: str) -> bytes:
        files = [p for p in _files(tables[table], f"*{suffix}") if "/.hoodie/" in str(p) and p.stat().st_size > 0
                 and "/metadata/" not in str(p)]
        return files[0].read_bytes()

    meta = FIXTURES / "commit-metadata"
    return [
        ("v6-commit-json", (meta / "v6_commit.json").read_bytes()),
        ("v8-deltacommit-avro", (meta / "v8_deltacommit.avro").read_bytes()),
        ("v8-compaction-plan", timeline(_V8, ".compaction.requested")),
        ("v8-indexing", timeline(_V8, ".indexing")),
        ("v9-replacecommit", timeline("sample_table_cow__v9_txns_complex_nometa", ".replacecommit")),
        ("v9-clustering-plan", timeline("sample_table_cow__v9_txns_complex_nometa", ".clustering.requested")),
        ("v6-rollback", timeline("sample_table_mor_parquet__v6_nonpartitioned_rollback", ".rollback")),
        ("v6-replacecommit-json", timeline("sample_table_mor_parquet__v6_simplekeygen_nonhivestyle_overwritetable",
                                           ".replacecommit")),
    ]
