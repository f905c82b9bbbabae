"""Writes to tables with hoodie.table.cdc.enabled: every data write that rewrites a base file writes a
`.cdc` log file beside it holding exactly that file group's changes (one CDC data block, type 6, in the
records of the supplemental logging mode), names it in its write stat's cdcStats and in the metadata
table's files partition; snapshot reads (the connector and hudi-rs) never see the change data, the CDC
query of each commit returns the changes the blocks hold, cleaning and rollback remove the files."""
import json
from pathlib import Path

import pyarrow as pa
import pytest

from pyhudi import HudiTable
from pyhudi.log import BlockType, HeaderKey, read_log_file
from pyhudi.log.avro_content import decode_avro_content, decode_avro_records
from pyhudi.services import rollback
from pyhudi.services.instant import ServiceTable
from pyhudi.table import instant_metadata as im
from pyhudi.write.config import WriteConfig, WriteOptionError

SCHEMA = "id long, ts long, p string, v string"
OPTS = {"hoodie.table.name": "c", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "p",
        "hoodie.table.cdc.enabled": "true", "hoodie.compact.inline": "false", "hoodie.clean.automatic": "false"}


def _cdc_files(path) -> set[str]:
    return {f.relative_to(path).as_posix() for f in Path(path).rglob(".*.cdc") if ".hoodie" not in f.parts}


def _blocks(path, rel):
    """(instant, schema field names, records) of each block of a CDC log file."""
    out = []
    for b in read_log_file(str(Path(path, rel))):
        assert b.block_type == BlockType.CDC_DATA
        assert set(b.header) == {HeaderKey.INSTANT_TIME, HeaderKey.SCHEMA}
        schema = json.loads(b.header[HeaderKey.SCHEMA])
        recs = decode_avro_records(decode_avro_content(b.content), b.header[HeaderKey.SCHEMA])
        out.append((b.header[HeaderKey.INSTANT_TIME], [f["name"] for f in schema["fields"]], recs))
    return out


def _commit(path, instant) -> dict:
    tl = ServiceTable.open(path).timeline
    inst = next(i for i in tl.completed() if i.requested_time == instant)
    return im.decode(tl.read(inst), layout_version=tl.layout)


def _snapshot(spark, path) -> dict:
    return {r.id: (r.ts, r.p, r.v) for r in spark.read.format("hudi-meta").load(path).collect()}


def _hudi_rs(path) -> dict:
    from hudi import HudiTableBuilder
    t = pa.Table.from_batches(HudiTableBuilder.from_base_uri(path).build().read())
    return {r["id"]: (r["ts"], r["p"], r["v"]) for r in t.to_pylist()}


def _change(op, instant, before, after):
    """A commit's change of one record, as a DATA_BEFORE_AFTER record holds it."""
    def image(r):
        return None if r is None else dict(zip(("id", "ts", "p", "v"), r))
    return {"op": op, "ts_ms": instant, "before": image(before), "after": image(after)}


def _key_of(change):
    return str((change["before"] or change["after"])["id"])


@pytest.mark.parametrize("table_type,mode", [("COPY_ON_WRITE", "DATA_BEFORE_AFTER"),
                                             ("MERGE_ON_READ", "DATA_BEFORE_AFTER"),
                                             ("COPY_ON_WRITE", "DATA_BEFORE"), ("COPY_ON_WRITE", "op_key_only")])
def test_rewritten_file_groups_log_their_changes(spark, tmp_path, table_type, mode):
    path = str(tmp_path / "t")
    table = HudiTable(spark, path, {**OPTS, "hoodie.datasource.write.table.type": table_type,
                                    "hoodie.table.cdc.supplemental.logging.mode": mode})

    def rows(*rs):
        return spark.createDataFrame(list(rs), SCHEMA)

    first = table.insert(rows((1, 1, "x", "a"), (2, 1, "y", "b"), (3, 1, "x", "c")))
    assert _cdc_files(path) == set()  # new file groups: the base file is the change (Hudi infers it)
    props = dict(line.split("=", 1) for line in Path(path, ".hoodie/hoodie.properties").read_text().splitlines()
                 if "=" in line and not line.startswith("#"))
    assert (props["hoodie.table.cdc.enabled"], props["hoodie.table.cdc.supplemental.logging.mode"]) == \
        ("true", mode.upper())

    second = table.upsert(rows((3, 2, "x", "c2"), (4, 2, "x", "d")))  # x: 3 updated, 4 into the small group
    stale = table.upsert(rows((1, 0, "x", "stale"),))  # the update loses on ts: group x rewritten unchanged
    third = table.delete(rows((2, 3, "y", "b")))
    expected = {stale: [], second: [_change("u", second, (3, 1, "x", "c"), (3, 2, "x", "c2")),
                                    _change("i", second, None, (4, 2, "x", "d"))],
                third: [_change("d", third, (2, 1, "y", "b"), None)]}
    if table_type == "MERGE_ON_READ":  # the lone update and the delete go to log files (no CDC file: inferred)
        del expected[stale], expected[third]

    logged = {}
    for rel in _cdc_files(path):
        stat = next(s for p, s in im.write_stats(_commit(path, rel.split("_")[1].split(".")[0]))
                    if s.get("cdcStats"))
        assert stat["cdcStats"] == {rel: Path(path, rel).stat().st_size}
        assert stat["path"].endswith(".parquet") and stat["fileId"] in rel
        (instant, fields, recs), = _blocks(path, rel)
        logged.setdefault(instant, []).extend(recs)
        assert fields == {"DATA_BEFORE_AFTER": ["op", "ts_ms", "before", "after"],
                          "DATA_BEFORE": ["op", "record_key", "before"],
                          "OP_KEY_ONLY": ["op", "record_key"]}[mode.upper()]
    if mode.upper() == "DATA_BEFORE_AFTER":
        want = expected
    elif mode.upper() == "DATA_BEFORE":
        want = {t: [{"op": c["op"], "record_key": _key_of(c), "before": c["before"]} for c in cs]
                for t, cs in expected.items()}
    else:
        want = {t: [{"op": c["op"], "record_key": _key_of(c)} for c in cs] for t, cs in expected.items()}
    assert {t: sorted(cs, key=json.dumps) for t, cs in logged.items()} == \
        {t: sorted(cs, key=json.dumps) for t, cs in want.items()}

    # the metadata table lists the CDC files with the data files, with their sizes
    listing = ServiceTable.open(path).metadata_writer().files_listing()
    assert {f"{p}/{n}": size for p, names in listing.items() for n, size in names.items() if n.endswith(".cdc")} \
        == {rel: Path(path, rel).stat().st_size for rel in _cdc_files(path)}

    model = {1: (1, "x", "a"), 3: (2, "x", "c2"), 4: (2, "x", "d")}
    assert _snapshot(spark, path) == model == _hudi_rs(path)
    if mode.upper() == "DATA_BEFORE_AFTER":  # the CDC query of each commit returns the model's changes
        inserted = [_change("i", first, None, r) for r in ((1, 1, "x", "a"), (2, 1, "y", "b"), (3, 1, "x", "c"))]
        ranges = [(None, first, inserted), (first, second, expected[second])]
        if table_type == "COPY_ON_WRITE":  # (merge-on-read's delete went to a log file)
            ranges.append((second, third, expected[stale] + expected[third]))
        for begin, end, changes in ranges:
            assert _cdc_query(spark, path, begin, end) == sorted(changes, key=json.dumps), (begin, end)
        # the logged commits are read from their CDC files: the base files before them are not needed
        for older in list(Path(path, "x").glob(f"*_{first}.parquet")):  # group x: rewritten by `second`
            older.unlink()
        assert _cdc_query(spark, path, first, second) == sorted(expected[second], key=json.dumps)

    # a rollback of the last commit takes its CDC file with it
    before = _cdc_files(path)
    rollback.rollback_commit(path, third)
    assert _cdc_files(path) == {f for f in before if third not in f}


def _cdc_query(spark, path, begin, end) -> list[dict]:
    """The CDC rows of the commits in (begin, end], sorted."""
    cdc = (spark.read.format("hudi-meta").option("hoodie.datasource.query.type", "incremental")
           .option("hoodie.datasource.query.incremental.format", "cdc")
           .option("hoodie.datasource.read.begin.instanttime", _completion(path, begin) if begin else "0" * 17)
           .option("hoodie.datasource.read.end.instanttime", _completion(path, end)).load(path))
    return sorted(({"op": r.op, "ts_ms": r.ts_ms, "before": r.before and json.loads(r.before),
                    "after": r.after and json.loads(r.after)} for r in cdc.collect()), key=json.dumps)


def _completion(path, instant):
    name = next(p.name for p in Path(path, ".hoodie", "timeline").iterdir() if p.name.startswith(instant + "_"))
    return name.split("_")[1].split(".")[0]


def test_cleaning_removes_the_cdc_files_of_cleaned_slices(spark, tmp_path):
    path = str(tmp_path / "t")
    table = HudiTable(spark, path, {**OPTS, "hoodie.datasource.write.partitionpath.field": ""})
    for ts in range(1, 5):
        table.upsert(spark.createDataFrame([(1, ts, "x", f"v{ts}")], SCHEMA))
    assert len(_cdc_files(path)) == 3
    table.clean({"hoodie.cleaner.policy": "KEEP_LATEST_FILE_VERSIONS", "hoodie.cleaner.fileversions.retained": "1"})
    names = {f.name for f in Path(path).iterdir() if f.is_file()}
    assert len([n for n in names if n.endswith(".parquet")]) == 1
    assert [n for n in names if n.endswith(".cdc")] == [next(iter(_cdc_files(path)))]
    assert _snapshot(spark, path) == {1: (4, "x", "v4")} == _hudi_rs(path)


def test_cdc_is_fixed_when_the_table_is_created():
    base = {k: v for k, v in OPTS.items() if not k.startswith("hoodie.table.cdc")}
    without = {"hoodie.table.name": "c", "hoodie.table.type": "COPY_ON_WRITE"}
    with pytest.raises(WriteOptionError, match="change data capture is set when a table is created"):
        WriteConfig.from_options({**base, "hoodie.table.cdc.enabled": "true"}, without)
    with_cdc = {**without, "hoodie.table.cdc.enabled": "true",
                "hoodie.table.cdc.supplemental.logging.mode": "OP_KEY_ONLY"}
    with pytest.raises(WriteOptionError, match="hoodie.table.cdc.supplemental.logging.mode=DATA_BEFORE contradicts"):
        WriteConfig.from_options({**base, "hoodie.table.cdc.supplemental.logging.mode": "DATA_BEFORE"}, with_cdc)
    assert WriteConfig.from_options(base, with_cdc).cdc_mode == "OP_KEY_ONLY"  # later writes follow the table
    assert WriteConfig.from_options(base, without).cdc_mode is None
    with pytest.raises(WriteOptionError, match="valid values: OP_KEY_ONLY, DATA_BEFORE, DATA_BEFORE_AFTER"):
        WriteConfig.from_options({**OPTS, "hoodie.table.cdc.supplemental.logging.mode": "everything"})
