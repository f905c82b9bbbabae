"""A table that lives: 120 small upserts with the table services on their defaults (merge-on-read:
inline compaction; both: cleaning and archival; copy-on-write: inline clustering switched on). After
every upsert the connector and hudi-rs read the expected rows; data files and active-timeline instants
stay bounded; the metadata table agrees with storage at the end."""
import random
from pathlib import Path

import pyarrow as pa
import pytest

from pyhudi.cli import main as cli
from pyhudi.hudi_table import HudiTable
from pyhudi.services.instant import ServiceTable
from pyhudi.table import file_names

SCHEMA = "id string, ts long, region string, val string"
UPSERTS = 120  # defaults: clean after 10 commits, archival past 30, compaction every 5


def _hudi_rs(path):
    from hudi import HudiTableBuilder
    t = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
    return dict(zip(t.column("id").to_pylist(), t.column("val").to_pylist()))


def _data_files(path):
    return sum(1 for p in Path(path).rglob("*") if ".hoodie" not in p.parts
               and (file_names.is_base(p.name) or file_names.is_log(p.name)))


@pytest.mark.parametrize("table_type", ["MERGE_ON_READ", "COPY_ON_WRITE"])
def test_a_hundred_and_twenty_upserts_with_services_on(spark, tmp_path, table_type):
    path = str(tmp_path / table_type)
    opts = {"hoodie.table.name": "life", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
            "hoodie.datasource.write.table.type": table_type, "hoodie.upsert.shuffle.parallelism": "2"}
    if table_type == "COPY_ON_WRITE":  # inserts fill the one small file per partition: clustering sorts it
        opts.update({"hoodie.clustering.inline": "true", "hoodie.clustering.plan.strategy.sort.columns": "val"})
    table = HudiTable(spark, path, opts)
    expected = {f"k{i:03d}": f"v{i}-0" for i in range(40)}
    table.insert(spark.createDataFrame([(k, 0, ("eu", "us")[int(k[1:]) % 2], v) for k, v in expected.items()],
                                       SCHEMA))
    rng = random.Random(7)
    files, instants = [], []
    for step in range(1, UPSERTS + 1):
        keys = rng.sample(sorted(expected), 3) + [f"n{step:03d}"]
        batch = [(k, step, ("eu", "us")[int(k[1:]) % 2], f"{k}-{step}") for k in keys]  # n<step>: a new key
        table.upsert(spark.createDataFrame(batch, SCHEMA))
        expected.update({k: v for k, _, _, v in batch})
        if step % 25 == 0:  # now and then a delete too
            gone = rng.choice(sorted(expected))
            table.delete(spark.createDataFrame([(gone, step, ("eu", "us")[int(gone[1:]) % 2], "")], SCHEMA))
            del expected[gone]
        got = {r["id"]: r["val"] for r in spark.read.format("hudi-meta").load(path).select("id", "val").collect()}
        assert got == expected, step
        assert _hudi_rs(path) == expected, step
        files.append(_data_files(path))
        instants.append(len(ServiceTable.open(path).timeline.instants()))
    # bounded: over the last 30 upserts no more than 1.5x the most seen between upserts 30 and 60 (without
    # cleaning the files, without archival the instants grow with every upsert: 2x more by the end)
    assert max(files[90:]) <= 1.5 * max(files[30:60]), files
    assert max(instants[90:]) <= 1.5 * max(instants[30:60]), instants
    assert max(instants) <= 60, instants
    assert cli(["metadata", "validate", path]) == 0
    timeline = ServiceTable.open(path).timeline
    actions = {i.action for i in timeline.completed()}
    assert "clean" in actions
    assert ("commit" in actions) if table_type == "MERGE_ON_READ" else ("replacecommit" in actions)
