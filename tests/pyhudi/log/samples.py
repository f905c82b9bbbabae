"""Inputs shared by the pyhudi.log tests: the reference log files and a small writer schema."""
import pyarrow as pa

from conftest import FIXTURES
from pyhudi.avro import schema as A

LOGS = FIXTURES / "log-files"
INSTANT = "20250101120000000"


def fixture_log(kind: str) -> bytes:
    (path,) = [p for p in (LOGS / kind).iterdir() if p.name.startswith(".")]
    return path.read_bytes()


def writer_schema() -> str:
    data = pa.schema([("ts", pa.int64()), ("uuid", pa.string()), ("fare", pa.float64()),
                      ("tags", pa.map_(pa.string(), pa.int32()))])
    return A.to_json(A.with_meta_fields(A.arrow_to_avro(data, "trips")))


def records(n: int) -> list[dict]:
    return [{"_hoodie_commit_time": INSTANT, "_hoodie_commit_seqno": f"{INSTANT}_0_{i}",
             "_hoodie_record_key": f"k{i}", "_hoodie_partition_path": "", "_hoodie_file_name": "fg-0",
             "ts": i, "uuid": f"k{i}", "fare": i / 4, "tags": {"a": i} if i % 2 else None} for i in range(n)]
