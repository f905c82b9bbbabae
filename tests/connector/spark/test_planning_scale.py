"""Planning from the metadata table makes a number of storage calls that does not grow with the
table: 2,000 partitions x 20 files plan with as many calls as 20 x 2, and never list a data
partition; listing storage instead takes at least one call per partition."""
import io
import uuid

import pyarrow as pa
import pyarrow.parquet as pq

from pyhudi.avro import schema as avro_schema
from pyhudi.table import file_names as filenames
from pyhudi.table import instant_metadata as im
from pyhudi.table import properties
from pyhudi.metadata import MetadataWriter
from pyhudi.storage import Storage
from pyhudi.table.timeline import Timeline


def _tiny_parquet() -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.table({"id": ["a"], "p": ["x"]}), buf)
    return buf.getvalue()


def _build(root: str, partitions: int, files: int) -> str:
    """A committed copy-on-write table with `files` base files in each of `partitions`
    partitions, and its metadata table's files partition."""
    storage, base = Storage.for_uri(root)
    schema = avro_schema.to_json(avro_schema.arrow_to_avro(pa.schema([("id", pa.string()), ("p", pa.string())]),
                                                           "scale", avro_schema.CREATE))
    props = properties.v8_defaults("scale", "COPY_ON_WRITE", ["id"], ["p"], None, schema, "SIMPLE", True, False)
    properties.save(storage, base, props)
    tl = Timeline.for_table(storage, base, props)
    inflight = tl.transition_to_inflight(tl.create_requested("commit"))
    t = inflight.requested_time
    data = _tiny_parquet()
    stats, listing = {}, {}
    for i in range(partitions):
        part = f"p=part{i:05d}"
        storage.mkdirs(f"{base}/{part}")
        with open(f"{base}/{part}/{filenames.PARTITION_METADATA}", "w") as f:
            f.write(filenames.partition_metadata_text(t, 1))
        for _ in range(files):
            fid = f"{uuid.uuid4()}-0"
            name = str(filenames.BaseFileName(fid, "0-0-0", t))
            with open(f"{base}/{part}/{name}", "wb") as f:
                f.write(data)
            stats.setdefault(part, []).append(im.write_stat(fileId=fid, path=f"{part}/{name}", prevCommit="null",
                                                            partitionPath=part, numWrites=1, numInserts=1,
                                                            fileSizeInBytes=len(data), totalWriteBytes=len(data)))
            listing.setdefault(part, []).append((name, len(data), None))
    tl.complete(inflight, im.encode(im.COMMIT, im.commit_metadata(stats, "BULK_INSERT", schema)))
    MetadataWriter(storage, base, props, partitions=["files"]).initialize(tl, listing)
    return base


def _plan(spark, path, **options):
    jvm = spark._jvm
    local = jvm.org.apache.hadoop.fs.Path(path).getFileSystem(spark._jsc.hadoopConfiguration())
    counting = jvm.io.hudimeta.metadata.CountingFileSystem(local)
    stats = jvm.io.hudimeta.spark.plan.PlanInspect.plan(counting, {"path": path, **options})
    return stats, [str(x) for x in counting.listings()]


def test_planning_storage_calls_do_not_grow(spark, tmp_path):
    small = _build(str(tmp_path / "small"), 20, 2)
    big = _build(str(tmp_path / "big"), 2000, 20)
    small_stats, small_calls = _plan(spark, small)
    big_stats, big_calls = _plan(spark, big)
    assert "listing=metadata" in big_stats and "partitions=2000/2000" in big_stats and "files=40000" in big_stats
    assert len(big_calls) == len(small_calls), (small_calls, big_calls)
    assert all("/.hoodie" in c for c in big_calls), big_calls
    listed_stats, listed_calls = _plan(spark, big, **{"hoodie.metadata.enable": "false"})
    assert "listing=storage" in listed_stats and "files=40000" in listed_stats
    assert len(listed_calls) >= 2000
    print(f"\nstorage listing calls to plan 2,000 x 20: metadata table {len(big_calls)}, "
          f"listing {len(listed_calls)}")
