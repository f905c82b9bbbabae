"""Spark SQL on hudi-meta tables: CREATE TABLE with Hudi's table properties, CTAS, INSERT INTO / INSERT OVERWRITE
(static and dynamic partitions), UPDATE, DELETE, MERGE INTO, ALTER TABLE ADD COLUMNS, SHOW PARTITIONS, TRUNCATE.
A script runs on copy-on-write and merge-on-read tables, partitioned and not; after each statement the rows
equal an in-test model, hudi-rs reads the same rows, and every DML statement made exactly one instant;
UPDATE, DELETE and MERGE answer with the rows they changed, as Delta Lake's do. Bad DML
fails with an error naming the fix and leaves the table's files as they were."""
from pathlib import Path

import pyarrow as pa
import pytest

from pyhudi.log import HeaderKey, read_log_file
from pyhudi.log.avro_content import decode_avro_content, decode_avro_records
from tests.table_checks import unchanged_after

COLUMNS = ("id", "name", "ts", "city")


def _location(spark, table):
    ident = spark._jvm.org.apache.spark.sql.catalyst.TableIdentifier.apply(table)
    return spark._jsparkSession.sessionState().catalog().getTableMetadata(ident).location().getPath()


def _instants(path):
    """Completed instants on the active timeline."""
    timeline = Path(path) / ".hoodie" / "timeline"
    return sorted(p.name for p in timeline.iterdir() if p.is_file() and "_" in p.name.split(".")[0])


def _rows(spark, table, columns=COLUMNS):
    return {r["id"]: tuple(r[c] for c in columns)
            for r in spark.sql(f"SELECT {', '.join(columns)} FROM {table}").collect()}


def _hudi_rs(path, columns=COLUMNS):
    from hudi import HudiTableBuilder
    batches = HudiTableBuilder.from_base_uri(path).build().read()
    if not batches:
        return {}
    return {row["id"]: tuple(row.get(c) for c in columns) for row in pa.Table.from_batches(batches).to_pylist()}


class Script:
    """Runs statements on one table, checking rows and instants after each against the model."""

    def __init__(self, spark, sql, table, partitioned):
        self.spark, self.sql, self.table, self.partitioned = spark, sql, table, partitioned
        self.model, self.instants, self.columns = {}, 0, COLUMNS

    def run(self, statement, model, instants=1, counts=None):
        """`counts`: the row the statement answers with (Delta's num_affected_rows ...), when it has one."""
        answer = self.sql(statement).collect()
        if counts is not None:
            assert [r.asDict() for r in answer] == [counts], statement
        self.model = model
        self.instants += instants
        path = _location(self.spark, self.table)
        assert _rows(self.spark, self.table, self.columns) == model, statement
        assert len(_instants(path)) == self.instants, statement
        assert _hudi_rs(path, self.columns) == model, statement


@pytest.mark.parametrize("kind", ["cow", "mor"])
@pytest.mark.parametrize("partitioned", [True, False], ids=["partitioned", "unpartitioned"])
def test_sql_script_is_one_instant_per_statement(spark, sql, kind, partitioned):
    t = f"dml_{kind}_{'p' if partitioned else 'u'}"
    sql(f"DROP TABLE IF EXISTS {t}")
    # a partition column goes last, as Spark and Hudi order them: (id, name, ts, city) both ways
    columns, by = ("id INT, name STRING, city STRING, ts BIGINT", "PARTITIONED BY (city)") if partitioned else \
        ("id INT, name STRING, ts BIGINT, city STRING", "")
    sql(f"CREATE TABLE {t} ({columns}) USING `hudi-meta` {by} "
        f"TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts', type = '{kind}')", table=t)
    s = Script(spark, sql, t, partitioned)
    assert _rows(spark, t) == {} and _instants(_location(spark, t)) == []  # CREATE TABLE makes no instant
    s.run(f"INSERT INTO {t} VALUES (1, 'a', 1, 'x'), (2, 'b', 1, 'y'), (3, 'c', 1, 'x')",
          {1: (1, "a", 1, "x"), 2: (2, "b", 1, "y"), 3: (3, "c", 1, "x")})
    s.run(f"UPDATE {t} SET name = upper(name), ts = ts + 1 WHERE id <= 2",
          {1: (1, "A", 2, "x"), 2: (2, "B", 2, "y"), 3: (3, "c", 1, "x")}, counts={"num_affected_rows": 2})
    s.run(f"DELETE FROM {t} WHERE name = 'B'", {1: (1, "A", 2, "x"), 3: (3, "c", 1, "x")},
          counts={"num_affected_rows": 1})
    source = ("SELECT * FROM VALUES (1, 'gone', 5, 'x', 'd'), (3, 'm', 5, 'x', 'u'), (4, 'n', 5, 'y', 'u'),"
              " (5, 'skip', 5, 'y', 'd') AS s(id, name, ts, city, op)")
    s.run(f"MERGE INTO {t} USING ({source}) s ON {t}.id = s.id "
          "WHEN MATCHED AND s.op = 'd' THEN DELETE "
          "WHEN MATCHED THEN UPDATE SET name = concat(s.name, '!'), ts = s.ts "
          "WHEN NOT MATCHED AND s.op = 'u' THEN INSERT *",
          {3: (3, "m!", 5, "x"), 4: (4, "n", 5, "y")},
          counts={"num_affected_rows": 3, "num_updated_rows": 1, "num_deleted_rows": 1, "num_inserted_rows": 1})
    s.run(f"MERGE INTO {t} t USING (SELECT 3 AS id, 'star' AS name, 6L AS ts, 'x' AS city) s ON t.id = s.id "
          "WHEN MATCHED THEN UPDATE SET *", {3: (3, "star", 6, "x"), 4: (4, "n", 5, "y")})
    if partitioned:
        s.run(f"INSERT OVERWRITE {t} PARTITION (city = 'y') SELECT 7, 'o', 1", {3: (3, "star", 6, "x"),
                                                                              7: (7, "o", 1, "y")})
        spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
        s.run(f"INSERT OVERWRITE {t} SELECT 8, 'p', 1, 'x'", {8: (8, "p", 1, "x"), 7: (7, "o", 1, "y")})
        spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
        shown = sorted(r[0] for r in spark.sql(f"SHOW PARTITIONS {t}").collect())
        assert shown == ["city=x", "city=y"]
    else:
        s.run(f"INSERT OVERWRITE {t} SELECT 7, 'o', 1, 'y'", {7: (7, "o", 1, "y")})
    s.columns = COLUMNS + ("extra",)
    s.run(f"ALTER TABLE {t} ADD COLUMNS (extra STRING)", {k: v + (None,) for k, v in s.model.items()})
    s.run(f"UPDATE {t} SET extra = 'e' WHERE id = 7", {k: v[:4] + ("e" if k == 7 else None,)
                                                      for k, v in s.model.items()})
    s.run(f"TRUNCATE TABLE {t}", {})


def test_create_table_as_select_is_one_write(spark, sql):
    sql("DROP TABLE IF EXISTS dml_ctas")
    sql("CREATE TABLE dml_ctas USING `hudi-meta` PARTITIONED BY (city) TBLPROPERTIES (primaryKey = 'id', "
        "preCombineField = 'ts') AS SELECT * FROM VALUES (1, 'a', 1L, 'x'), (2, 'b', 1L, 'y') AS v(id, name, ts, city)",
        table="dml_ctas")
    path = _location(spark, "dml_ctas")
    assert _rows(spark, "dml_ctas") == {1: (1, "a", 1, "x"), 2: (2, "b", 1, "y")} == _hudi_rs(path)
    assert [i.split(".")[1] for i in _instants(path)] == ["commit"]
    assert (Path(path) / "city=x").is_dir()  # Hudi's SQL tables are hive-style partitioned


def test_cdc_table_properties_make_sql_writes_log_changes(spark, sql):
    """TBLPROPERTIES ('hoodie.table.cdc.enabled' = 'true'), as in Apache Hudi's SQL: the table records it and an
    UPDATE, which rewrites the file group, writes its change to a CDC log file (docs/cdc.md)."""
    sql("DROP TABLE IF EXISTS dml_cdc")
    sql("CREATE TABLE dml_cdc (id INT, name STRING, ts BIGINT) USING `hudi-meta` TBLPROPERTIES (primaryKey = 'id', "
        "preCombineField = 'ts', 'hoodie.table.cdc.enabled' = 'true', "
        "'hoodie.table.cdc.supplemental.logging.mode' = 'OP_KEY_ONLY')", table="dml_cdc")
    sql("INSERT INTO dml_cdc VALUES (1, 'a', 1), (2, 'b', 1)")
    sql("UPDATE dml_cdc SET name = 'b2' WHERE id = 2")
    path = _location(spark, "dml_cdc")
    props = (Path(path) / ".hoodie" / "hoodie.properties").read_text()
    assert "hoodie.table.cdc.enabled=true" in props and "supplemental.logging.mode=OP_KEY_ONLY" in props
    cdc, = [f for f in Path(path).iterdir() if f.name.endswith(".cdc")]
    block, = read_log_file(str(cdc))
    assert decode_avro_records(decode_avro_content(block.content), block.header[HeaderKey.SCHEMA]) == [{"op": "u", "record_key": "2"}]
    assert _rows(spark, "dml_cdc", ("id", "name", "ts")) == {1: (1, "a", 1), 2: (2, "b2", 1)}


def test_dml_errors_name_the_fix_and_leave_the_table(spark, sql, tmp_path):
    sql("DROP TABLE IF EXISTS dml_err")
    sql("CREATE TABLE dml_err (id INT, name STRING, ts BIGINT, city STRING) USING `hudi-meta` PARTITIONED BY (city) "
        f"TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts') LOCATION '{tmp_path / 'err'}'", table="dml_err")
    sql("INSERT INTO dml_err VALUES (1, 'a', 1, 'x')")
    path = _location(spark, "dml_err")
    unchanged_after(path, lambda: sql("UPDATE dml_err SET id = 2 WHERE id = 1"), "cannot set the primary key column id")
    unchanged_after(path, lambda: sql("UPDATE dml_err SET city = 'y'"),
                    "hoodie.record.index.update.partition.path=true")
    unchanged_after(path, lambda: sql("MERGE INTO dml_err t USING (SELECT 'a' AS name) s ON t.name = s.name "
                                      "WHEN MATCHED THEN DELETE"), "must join on its primary key")
    unchanged_after(path, lambda: sql("MERGE INTO dml_err t USING (SELECT 1 AS id, 'z' AS city) s ON t.id = s.id "
                                      "WHEN MATCHED THEN UPDATE SET city = s.city").collect(),
                    "to another partition")
    unchanged_after(path, lambda: sql("INSERT INTO dml_err VALUES (1, 'a', 1, 'x', 'more')"), "gives 5 column")
    with pytest.raises(Exception, match="needs a primary key"):
        sql("CREATE TABLE dml_nokey (id INT) USING `hudi-meta`", table="dml_nokey")
    # a table whose hoodie.properties names no record key (as keyless Apache Hudi tables): DML is refused
    props = Path(path) / ".hoodie" / "hoodie.properties"
    props.write_text("\n".join(line for line in props.read_text().splitlines()
                               if not line.startswith("hoodie.table.recordkey.fields")) + "\n")
    sql("DROP TABLE dml_err")  # an external table: its files stay
    sql(f"CREATE TABLE dml_err USING `hudi-meta` LOCATION '{path}'", table="dml_err")
    for statement in ("UPDATE dml_err SET name = 'b'", "DELETE FROM dml_err WHERE id = 1",
                      "MERGE INTO dml_err t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE"):
        unchanged_after(path, lambda st=statement: sql(st), "needs a primary key")


def test_explain_of_dml_writes_nothing_and_a_dml_matching_nothing_counts_zero(spark, sql):
    """The DML's write runs when its command does: EXPLAIN shows the write and leaves the table as it was."""
    t = "dml_explained"
    sql(f"CREATE TABLE {t} (id INT, name STRING, ts BIGINT) USING `hudi-meta` "
        "TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts')", table=t)
    sql(f"INSERT INTO {t} VALUES (1, 'a', 1)")
    path = _location(spark, t)
    before = _instants(path)
    plan = sql(f"EXPLAIN UPDATE {t} SET name = 'b' WHERE id = 1").collect()[0][0]
    assert "RowCounts update" in plan and "hoodie.datasource.write.operation=upsert" in plan
    sql(f"EXPLAIN DELETE FROM {t} WHERE id = 1").collect()
    assert _instants(path) == before and _rows(spark, t, ("id", "name", "ts")) == {1: (1, "a", 1)}
    assert sql(f"DELETE FROM {t} WHERE id = 5").collect()[0].asDict() == {"num_affected_rows": 0}
