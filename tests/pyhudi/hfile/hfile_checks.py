"""What several HFile test modules share: the fixtures they read and how they look at a file."""
from __future__ import annotations

from pathlib import Path

from conftest import FIXTURES
from pyhudi.hfile.cell import parse_cells

HFILES = sorted((FIXTURES / "hfile").glob("*.hfile"))
V8_MDT_TABLE = "quickstart_trips_table_mor_avro__v8_trips_8i3u1d"
WRITER_KEYS = (b"KEY_VALUE_VERSION", b"MAX_MEMSTORE_TS_KEY")


def caller_file_info(contents) -> dict[bytes, bytes]:
    """The file-info entries a caller supplied (the writer adds hfile.* and the KeyValue keys)."""
    return {k: v for k, v in contents.file_info.items()
            if not k.startswith(b"hfile.") and k not in WRITER_KEYS}


def data_block_shape(contents):
    """(first row, cell count) of each data block, i.e. where the writer cut blocks."""
    with_mvcc = b"KEY_VALUE_VERSION" in contents.file_info
    shape = []
    for block in contents.data_blocks():
        cells = parse_cells(block.payload, with_mvcc, False)
        shape.append((cells[0][0], len(cells)))
    return shape


def mdt_base_files(base: Path) -> list[Path]:
    return sorted((base / ".hoodie" / "metadata").glob("*/*.hfile"))


def numbered_cells(n: int, value_size: int = 0) -> list[tuple[str, bytes]]:
    pad = b"v" * value_size
    return [(f"key-{i:09d}", f"value-{i:09d}".encode() + pad) for i in range(n)]
