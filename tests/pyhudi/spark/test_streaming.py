"""The streaming sink's exactly-once rule: a micro-batch id rides in its commit's extraMetadata under Hudi's
`_hudi_streaming_sink_checkpoint`; a batch the table already holds (a replay after a restart) is skipped, a later
one written; writeStream.format("hudi-meta") goes through it."""
import json
from pathlib import Path

import pytest

from pyhudi.spark import streaming
from pyhudi.storage import Storage
from pyhudi.table import instant_metadata as im
from pyhudi.table import properties
from pyhudi.table.timeline import Timeline

OPTIONS = {"hoodie.table.name": "s", "hoodie.datasource.write.recordkey.field": "id",
           "hoodie.datasource.write.precombine.field": "ts"}


def _commits(path):
    storage, base = Storage.for_uri(path)
    timeline = Timeline.for_table(storage, base, properties.load(storage, base))
    return [im.decode(timeline.read(i))["extraMetadata"] for i in timeline.completed(("commit",))]


def _rows(spark, path):
    return sorted((r["id"], r["v"]) for r in spark.read.format("hudi-meta").load(path).collect())


def test_a_replayed_batch_is_skipped(spark, tmp_path):
    path = str(tmp_path / "t")
    df = spark.createDataFrame([(1, 1, "a")], "id long, ts long, v string")
    assert streaming.write_batch(spark, df, path, OPTIONS, 0, "app-q")
    replay = spark.createDataFrame([(1, 2, "replayed")], "id long, ts long, v string")
    assert not streaming.write_batch(spark, replay, path, OPTIONS, 0, "app-q")
    assert streaming.write_batch(spark, replay, path, OPTIONS, 1, "app-q")
    checkpoints = [json.loads(m[streaming.SINK_CHECKPOINT_KEY]) for m in _commits(path)]
    assert checkpoints == [{"0": "app-q"}, {"1": "app-q"}]
    assert streaming.last_batch(path) == 1
    assert _rows(spark, path) == [(1, "replayed")]


@pytest.mark.parametrize("prefix", ["_", "x_"])
def test_options_with_the_commit_metadata_prefix_go_into_extra_metadata(spark, tmp_path, prefix):
    path = str(tmp_path / "t")
    df = spark.createDataFrame([(1, 1, "a")], "id long, ts long, v string")
    opts = {**OPTIONS, "hoodie.datasource.write.commitmeta.key.prefix": prefix, "x_source": "kafka", "_y": "1"}
    df.write.format("hudi-meta").options(**opts).mode("append").save(path)
    extra = _commits(path)[0]
    assert extra.get("x_source") == ("kafka" if prefix == "x_" else None)
    assert extra.get("_y") == ("1" if prefix == "_" else None)


def test_the_checkpoint_is_recorded_whatever_the_prefix(spark, tmp_path):
    """A user's own commit-metadata prefix stays as given; the sink's checkpoint is recorded besides."""
    path = str(tmp_path / "t")
    df = spark.createDataFrame([(1, 1, "a")], "id long, ts long, v string")
    opts = {**OPTIONS, "hoodie.datasource.write.commitmeta.key.prefix": "x_", "x_source": "kafka", "_y": "1"}
    assert streaming.write_batch(spark, df, path, opts, 7, "app-q")
    extra = _commits(path)[0]
    assert (extra.get("x_source"), extra.get("_y")) == ("kafka", None)
    assert json.loads(extra[streaming.SINK_CHECKPOINT_KEY]) == {"7": "app-q"} and streaming.last_batch(path) == 7


def test_write_stream_writes_each_micro_batch_once(spark, tmp_path):
    source, path = tmp_path / "src", str(tmp_path / "t")
    source.mkdir()
    for i in range(3):
        (source / f"{i}.json").write_text(json.dumps({"id": i, "ts": i, "v": f"v{i}"}) + "\n")
    stream = spark.readStream.schema("id long, ts long, v string").option("maxFilesPerTrigger", 1).json(str(source))

    def run():
        (stream.writeStream.format("hudi-meta").options(**OPTIONS)
         .option("checkpointLocation", str(tmp_path / "ck")).trigger(availableNow=True).start(path)
         .awaitTermination())

    run()
    assert _rows(spark, path) == [(0, "v0"), (1, "v1"), (2, "v2")]
    assert [sorted(json.loads(m[streaming.SINK_CHECKPOINT_KEY])) for m in _commits(path)] == [["0"], ["1"], ["2"]]
    run()  # nothing new: no commit
    assert len(_commits(path)) == 3
    assert Path(path, ".hoodie").is_dir()


def test_write_stream_refuses_other_output_modes(spark, tmp_path):
    stream = spark.readStream.format("rate").load().groupBy().count()
    with pytest.raises(Exception, match="outputMode"):
        (stream.writeStream.format("hudi-meta").options(**OPTIONS).outputMode("complete")
         .option("checkpointLocation", str(tmp_path / "ck")).start(str(tmp_path / "t")))
