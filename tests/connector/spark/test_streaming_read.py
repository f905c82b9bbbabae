"""readStream.format("hudi-meta"): offsets are commit times; each micro-batch is the incremental query of the
commits since the last one, so a restarted query reads only what was committed meanwhile; startOffset=latest
skips what is there."""
from pyhudi import HudiTable

OPTIONS = {"hoodie.table.name": "r", "hoodie.datasource.write.recordkey.field": "id",
           "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.table.type": "MERGE_ON_READ",
           "hoodie.compact.inline": "false"}


def _rows(spark, *rows):
    return spark.createDataFrame(list(rows), "id long, ts long, v string")


def _stream(spark, path, checkpoint, **options):
    got = []
    (spark.readStream.format("hudi-meta").options(**options).load(path).writeStream
     .foreachBatch(lambda df, _: got.append(sorted((r["id"], r["v"]) for r in df.collect())))
     .option("checkpointLocation", checkpoint).trigger(availableNow=True).start().awaitTermination())
    return got


def test_streaming_read_returns_each_commit_once(spark, tmp_path):
    path, ck = str(tmp_path / "t"), str(tmp_path / "ck")
    table = HudiTable(spark, path, OPTIONS)
    table.upsert(_rows(spark, (1, 1, "a"), (2, 1, "b")))
    table.upsert(_rows(spark, (2, 2, "b2"), (3, 2, "c")))
    assert _stream(spark, path, ck) == [[(1, "a"), (2, "b2"), (3, "c")]]
    table.upsert(_rows(spark, (1, 3, "a3"), (4, 3, "d")))
    assert _stream(spark, path, ck) == [[(1, "a3"), (4, "d")]]  # only the commit made since
    assert _stream(spark, path, ck) == []


def test_streaming_read_from_latest_skips_existing_commits(spark, tmp_path):
    path = str(tmp_path / "t")
    table = HudiTable(spark, path, OPTIONS)
    table.upsert(_rows(spark, (1, 1, "a")))
    ck = str(tmp_path / "ck")
    started = _stream(spark, path, ck, **{"hoodie.datasource.streaming.startOffset": "latest"})
    assert all(batch == [] for batch in started)  # (latest, latest]: nothing
    table.upsert(_rows(spark, (5, 2, "e")))
    assert _stream(spark, path, ck) == [[(5, "e")]]


def test_streaming_read_in_cdc_format_returns_each_change(spark, tmp_path):
    path, ck = str(tmp_path / "t"), str(tmp_path / "ck")
    table = HudiTable(spark, path, OPTIONS)
    table.upsert(_rows(spark, (1, 1, "a")))
    got = []
    stream = (spark.readStream.format("hudi-meta").option("hoodie.datasource.query.incremental.format", "cdc")
              .load(path))
    assert stream.columns == ["op", "ts_ms", "before", "after"]

    def run():
        (stream.writeStream.foreachBatch(lambda df, _: got.extend(sorted((r.op, r.before, r.after)
                                                                           for r in df.collect())))
         .option("checkpointLocation", ck).trigger(availableNow=True).start().awaitTermination())

    run()
    assert got == [("i", "null", '{"id": 1, "ts": 1, "v": "a"}')]  # Apache Hudi's image text
    table.upsert(_rows(spark, (1, 2, "b")))
    got.clear()
    run()
    assert got == [("u", '{"id": 1, "ts": 1, "v": "a"}', '{"id": 1, "ts": 2, "v": "b"}')]
