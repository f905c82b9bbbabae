"""df.write.format("hudi-meta") reaches pyhudi's write client through the py4j callback.

The write client itself is replaced by a fake that records its arguments and leaves a marker file:
these tests prove the wiring (every save mode, both of Spark's write paths), not the writer.
"""
import importlib
import shutil
from pathlib import Path

import pytest

import pyhudi
import pyhudi.spark.save_modes
from pyhudi.spark import bridge

FIXTURE = "sample_table_cow__v8_nonpartitioned"
OPTIONS = {"hoodie.table.name": "trips", "hoodie.datasource.write.recordkey.field": "id",
           "hoodie.datasource.write.precombine.field": "ts"}
ROWS = [(1, "a", 10), (2, "b", 20), (3, "c", 30)]


@pytest.fixture
def calls(monkeypatch):
    """Replaces the write client; returns the list of calls it received."""
    received = []

    def fake_write_dataframe(spark, df, path, options, mode):
        received.append({"spark": spark, "rows": sorted(map(tuple, df.collect())), "path": path,
                         "options": options, "mode": mode})
        Path(path).mkdir(parents=True, exist_ok=True)
        (Path(path) / f"_written_{mode}").touch()

    monkeypatch.setattr(pyhudi.spark.save_modes, "write_dataframe", fake_write_dataframe)
    return received


@pytest.fixture
def df(spark):
    return spark.createDataFrame(ROWS, "id int, name string, ts long")


@pytest.fixture
def existing_table(fixture_tables, tmp_path):
    """A copy of a real Hudi table, free to be written to."""
    target = tmp_path / "existing"
    shutil.copytree(fixture_tables[FIXTURE], target)
    return str(target)


def _is_registered(spark):
    return spark._jvm.io.hudimeta.spark.bridge.WriteClients.isRegistered()


@pytest.mark.parametrize("mode", ["append", "overwrite", "errorifexists", "ignore"])
def test_every_save_mode_reaches_the_write_client(spark, df, calls, tmp_path, mode):
    path = str(tmp_path / "new_table")
    df.write.format("hudi-meta").options(**OPTIONS).mode(mode).save(path)
    assert len(calls) == 1
    call = calls[0]
    assert (call["mode"], call["path"], call["options"]) == (mode, path, OPTIONS)
    assert call["rows"] == ROWS
    assert call["spark"]._jsparkSession.equals(spark._jsparkSession)
    assert (Path(path) / f"_written_{mode}").exists()


def test_default_mode_is_errorifexists_and_path_may_be_an_option(df, calls, tmp_path):
    path = str(tmp_path / "t")
    df.write.format("hudi-meta").option("path", path).option("hoodie.table.name", "t").save()
    expected = [("errorifexists", path, {"hoodie.table.name": "t"})]
    assert [(c["mode"], c["path"], c["options"]) for c in calls] == expected


@pytest.mark.parametrize("mode", ["append", "overwrite"])
def test_append_and_overwrite_write_into_an_existing_table(df, calls, existing_table, mode):
    df.write.format("hudi-meta").options(**OPTIONS).mode(mode).save(existing_table)
    assert [(c["mode"], c["path"], c["rows"]) for c in calls] == [(mode, existing_table, ROWS)]


@pytest.fixture
def written(monkeypatch):
    """Replaces the write below the save modes (pyhudi.spark.save_modes applies them: the connector passes every
    mode through); returns the paths written."""
    import pyhudi.services.inline

    received = []
    monkeypatch.setattr(pyhudi.services.inline, "write", lambda spark, path, options, df: received.append(path))
    return received


def test_errorifexists_on_an_existing_table_fails_without_writing(df, written, existing_table):
    from pyspark.errors import IllegalArgumentException

    with pytest.raises(IllegalArgumentException) as e:
        df.write.format("hudi-meta").options(**OPTIONS).mode("errorifexists").save(existing_table)
    assert str(e.value) == (f"table already exists at {existing_table}; use mode('append') to add to it or "
                            "mode('overwrite') to replace its contents")
    assert written == []


def test_ignore_on_an_existing_table_writes_nothing(df, written, existing_table):
    df.write.format("hudi-meta").options(**OPTIONS).mode("ignore").save(existing_table)
    assert written == []


@pytest.mark.parametrize("mode", ["errorifexists", "ignore"])
def test_errorifexists_and_ignore_write_a_new_table(df, written, tmp_path, mode):
    df.write.format("hudi-meta").options(**OPTIONS).mode(mode).save(str(tmp_path / "t"))
    assert written == [str(tmp_path / "t")]


@pytest.mark.parametrize("statement,mode,operation", [("INSERT INTO", "append", {"hoodie.datasource.write.operation":
                                                                                   "insert"}),
                                                     ("INSERT OVERWRITE", "overwrite", {})])
def test_sql_insert_goes_through_the_v2_table(spark, calls, existing_table, statement, mode, operation):
    """INSERT into a view of the table plans a V2 write: the table's V1Write hands the data over (INSERT INTO
    as Apache Hudi 1.x runs it, an insert)."""
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW hudi_insert_target USING `hudi-meta` "
              f"OPTIONS (path '{existing_table}', `hoodie.table.name` 'trips')")
    try:
        spark.sql(f"{statement} hudi_insert_target SELECT 7 AS id, 'x' AS name")
    finally:
        spark.catalog.dropTempView("hudi_insert_target")
    # by position, as Spark inserts: the columns left out are null
    assert [(c["mode"], c["path"], c["options"], [r[:2] for r in c["rows"]]) for c in calls] == [
        (mode, existing_table, {"hoodie.table.name": "trips", **operation}, [(7, "x")])]
    assert set(calls[0]["rows"][0][2:]) == {None}


@pytest.mark.parametrize("raised, caught", [
    (ValueError("bad record key in row 42"), "IllegalArgumentException"),
    (NotImplementedError("bad record key in row 42"), "UnsupportedOperationException"),
    (RuntimeError("bad record key in row 42"), "QueryExecutionException")])
def test_write_client_errors_reach_the_caller_as_one_line(df, monkeypatch, tmp_path, raised, caught):
    """pyspark's own exception of the error's kind, its text the message alone: not a Py4JJavaError of
    thousands of characters with the Python traceback inside a Java stack trace."""
    from pyspark import errors

    def failing_write_dataframe(spark, df, path, options, mode):
        raise raised

    monkeypatch.setattr(pyhudi.spark.save_modes, "write_dataframe", failing_write_dataframe)
    with pytest.raises(getattr(errors, caught)) as e:
        df.write.format("hudi-meta").mode("append").save(str(tmp_path / "t"))
    assert str(e.value) == "bad record key in row 42"


def test_a_reported_failure_prints_no_traceback(df, monkeypatch, tmp_path, capsys, caplog):
    """py4j logs every failed callback with its traceback at ERROR: the caller has the error already, so
    pyhudi's reported ones stay out of the log (the traceback is on the pyhudi logger at DEBUG)."""
    import logging

    def failing_write_dataframe(spark, df, path, options, mode):
        raise ValueError("bad record key in row 42")

    monkeypatch.setattr(pyhudi.spark.save_modes, "write_dataframe", failing_write_dataframe)
    with caplog.at_level(logging.DEBUG):
        with pytest.raises(Exception, match="bad record key in row 42"):
            df.write.format("hudi-meta").mode("append").save(str(tmp_path / "t"))
    assert [r.name for r in caplog.records if r.exc_info] == ["pyhudi"]
    assert "Traceback" not in capsys.readouterr().err


def test_sql_and_call_errors_are_one_line(spark, existing_table):
    from pyspark.errors import IllegalArgumentException

    with pytest.raises(IllegalArgumentException) as e:
        spark.sql(f"CALL run_clustering(path => '{existing_table}', op => 'no-such-op')").collect()
    assert "\n" not in str(e.value) and len(str(e.value)) < 300 and "no-such-op" in str(e.value)
    spark.sql(f"CREATE TABLE bridge_errors USING `hudi-meta` LOCATION '{existing_table}'")
    try:
        spark.conf.set("hoodie.datasource.write.operaton", "upsert")
        with pytest.raises(IllegalArgumentException) as e:
            spark.sql("INSERT INTO bridge_errors SELECT * FROM bridge_errors")
        assert "unknown option hoodie.datasource.write.operaton" in str(e.value) and "\n" not in str(e.value)
    finally:
        spark.conf.unset("hoodie.datasource.write.operaton")
        spark.sql("DROP TABLE bridge_errors")


def test_without_a_registered_client_the_error_names_pyhudi(spark, df, calls, tmp_path):
    bridge.unregister(spark)
    try:
        with pytest.raises(Exception) as e:
            df.write.format("hudi-meta").mode("append").save(str(tmp_path / "t"))
        message = str(e.value)
        assert "writing needs the pyhudi write client" in message
        assert "import pyhudi" in message and "pyhudi.register(spark)" in message
        assert calls == []
    finally:
        pyhudi.register(spark)


def test_importing_pyhudi_registers_with_the_active_session(spark):
    bridge.unregister(spark)
    try:
        assert not _is_registered(spark)
        importlib.reload(pyhudi)  # runs the package's import-time registration again
        assert _is_registered(spark)
    finally:
        pyhudi.register(spark)


def test_register_needs_a_session(monkeypatch):
    from pyspark.sql import SparkSession

    monkeypatch.setattr(SparkSession, "getActiveSession", classmethod(lambda cls: None))
    with pytest.raises(RuntimeError, match=r"no active SparkSession; pass one: pyhudi.register\(spark\)"):
        pyhudi.register()


def test_reads_keep_the_tables_own_schema(spark, existing_table):
    table_schema = spark.read.format("hudi-meta").load(existing_table).schema
    same = spark.read.schema(table_schema).format("hudi-meta").load(existing_table)
    assert same.count() == spark.read.format("hudi-meta").load(existing_table).count()
    with pytest.raises(Exception, match="a Hudi table is read with its own schema"):
        spark.read.schema("id int").format("hudi-meta").load(existing_table).collect()


def test_reading_a_path_without_a_table_still_fails_clearly(spark, tmp_path):
    with pytest.raises(Exception, match="no Hudi table at"):
        spark.read.format("hudi-meta").load(str(tmp_path / "nothing"))
