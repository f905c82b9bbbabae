"""SQL CALL procedures (io.hudimeta.spark.procedures -> pyhudi.spark.procedures): an unqualified `CALL name(...)`
reaches the session catalog, arguments go by Apache Hudi's names (or positions), rows come back under Hudi's
columns, and the procedures that act leave the timeline Hudi's would."""
import pytest

from pyhudi.services import rollback
from pyhudi.services.instant import ServiceTable

SCHEMA = "id string, ts long, region string, val string"


def _options(name, table_type="COPY_ON_WRITE"):
    return {"hoodie.table.name": name, "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
            "hoodie.datasource.write.table.type": table_type, "hoodie.compact.inline": "false",
            "hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false"}


def _write(spark, path, options, ids, ts):
    rows = [(f"k{i}", ts, ("eu", "us")[i % 2], f"v{i}-{ts}") for i in ids]
    spark.createDataFrame(rows, SCHEMA).write.format("hudi-meta").options(**options).mode("append").save(path)


def _read(spark, path):
    return {r["id"]: r["val"] for r in spark.read.format("hudi-meta").load(path).collect()}


def _instants(path, action=None):
    return [i for i in ServiceTable.open(path).timeline.instants() if action is None or i.action == action]


def _commit_times(path):
    return [i.requested_time for i in ServiceTable.open(path).timeline.completed(("commit", "deltacommit"))]


def _call(spark, sql):
    df = spark.sql(sql)
    return df.columns, [r.asDict() for r in df.collect()]


@pytest.fixture(scope="module")
def cow(spark, tmp_path_factory):
    """A copy-on-write table of two commits, in the session catalog as proc_cow."""
    path = str(tmp_path_factory.mktemp("proc") / "cow")
    options = _options("proc_cow")
    _write(spark, path, options, range(6), 1)
    _write(spark, path, options, [0, 1], 2)
    spark.sql("DROP TABLE IF EXISTS proc_cow")
    spark.sql(f"CREATE TABLE proc_cow USING `hudi-meta` LOCATION '{path}'")
    yield path, options
    spark.sql("DROP TABLE IF EXISTS proc_cow")


def test_show_commits_by_table_path_and_position(spark, cow):
    path, _ = cow
    columns, rows = _call(spark, "CALL show_commits(table => 'proc_cow', limit => 10)")
    assert columns == ["commit_time", "state_transition_time", "action", "total_bytes_written", "total_files_added",
                       "total_files_updated", "total_partitions_written", "total_records_written",
                       "total_update_records_written", "total_errors"]
    assert [r["commit_time"] for r in rows] == sorted(_commit_times(path), reverse=True)
    first, second = rows[1], rows[0]
    assert (first["total_records_written"], first["total_files_added"], first["total_partitions_written"]) == (6, 2, 2)
    assert second["total_files_updated"] == 2 and second["total_update_records_written"] == 2
    assert all(r["action"] == "commit" and r["state_transition_time"] and r["total_errors"] == 0 for r in rows)
    assert _call(spark, f"CALL show_commits(path => '{path}', limit => 1)")[1] == rows[:1]
    assert _call(spark, f"CALL system.show_commits(NULL, 1, '{path}')")[1] == rows[:1]  # Hudi's positions


def test_show_commit_files_lists_what_the_commit_wrote(spark, cow):
    path, _ = cow
    latest = _commit_times(path)[-1]
    columns, rows = _call(spark, f"CALL show_commit_files(table => 'proc_cow', instant_time => '{latest}')")
    assert columns == ["action", "partition_path", "file_id", "previous_commit", "total_records_updated",
                       "total_records_written", "total_bytes_written", "total_errors", "file_size"]
    assert sorted(r["partition_path"] for r in rows) == ["eu", "us"]
    assert all(r["previous_commit"] == _commit_times(path)[0] and r["file_size"] > 0 for r in rows)
    with pytest.raises(Exception, match="instant_time is required"):
        spark.sql("CALL show_commit_files(table => 'proc_cow')")


def test_show_fsview_latest_from_the_connectors_view(spark, cow):
    path, _ = cow
    columns, rows = _call(spark, f"CALL show_fsview_latest(path => '{path}')")
    assert columns[:7] == ["partition", "file_id", "base_instant", "data_file", "data_file_size", "num_delta_files",
                           "total_delta_file_size"] and len(columns) == 13
    assert sorted(r["partition"] for r in rows) == ["eu", "us"]
    assert all(r["base_instant"] == _commit_times(path)[-1] and r["data_file"].endswith(".parquet")
               and r["data_file_size"] > 0 and r["num_delta_files"] == 0 for r in rows)
    _, eu = _call(spark, "CALL show_fsview_latest(table => 'proc_cow', partition_path => 'e*')")
    assert [r["partition"] for r in eu] == ["eu"]


def test_metadata_table_procedures(spark, cow):
    path, _ = cow
    columns, stats = _call(spark, f"CALL show_metadata_table_stats(path => '{path}')")
    assert columns == ["stat_key", "stat_value"]
    stats = {r["stat_key"]: r["stat_value"] for r in stats}
    assert stats["partitionCount"] == "2" and int(stats["files.baseFileCount"]) + int(stats["files.logFileCount"]) > 0
    columns, diff = _call(spark, "CALL validate_metadata_table_files(table => 'proc_cow')")
    assert columns == ["partition", "file_name", "is_present_in_fs", "is_present_in_metadata", "fs_size",
                       "metadata_size"]
    assert diff == []  # in agreement
    _, every = _call(spark, "CALL validate_metadata_table_files(table => 'proc_cow', verbose => true)")
    assert len(every) == 4 and all(r["is_present_in_fs"] and r["is_present_in_metadata"] for r in every)


def test_savepoint_clean_and_rollbacks(spark, cow):
    path, options = cow
    before = _read(spark, path)
    saved = _commit_times(path)[-1]
    assert _call(spark, "CALL create_savepoint(table => 'proc_cow')")[1] == [{"create_savepoint_result": True}]
    assert [i.requested_time for i in _instants(path, "savepoint") if i.is_completed] == [saved]
    with pytest.raises(Exception, match="is savepointed"):
        spark.sql(f"CALL rollback_to_instant(table => 'proc_cow', instant_time => '{saved}')")
    _write(spark, path, options, [2, 3], 3)
    latest = _commit_times(path)[-1]
    # the latest commit goes, with its data: a read shows the rows before it
    assert _call(spark, f"CALL rollback_to_instant(table => 'proc_cow', instant_time => '{latest}')")[1] == \
        [{"rollback_result": True}]
    assert latest not in _commit_times(path) and [i for i in _instants(path, "rollback") if i.is_completed]
    assert _read(spark, path) == before
    assert _call(spark, "CALL validate_metadata_table_files(table => 'proc_cow')")[1] == []
    # a clean keeping one commit deletes the first commit's replaced files
    _write(spark, path, options, [4, 5], 4)
    columns, rows = _call(spark, f"CALL run_clean(path => '{path}', retain_commits => 1)")
    assert columns[:3] == ["start_clean_time", "time_taken_in_millis", "total_files_deleted"]
    assert len(rows) == 1 and rows[0]["total_files_deleted"] >= 1
    assert [i.requested_time for i in _instants(path, "clean") if i.is_completed] == [rows[0]["start_clean_time"]]
    # back to the savepoint: the commit after it is gone
    assert _call(spark, f"CALL rollback_to_savepoint(table => 'proc_cow', instant_time => '{saved}')")[1] == \
        [{"rollback_savepoint_result": True}]
    assert _read(spark, path) == before and _commit_times(path)[-1] == saved


def test_rollback_to_instant_of_a_commit_the_metadata_table_compacted(spark, tmp_path):
    path = str(tmp_path / "t")
    options = _options("proc_rb")
    _write(spark, path, options, range(2), 1)
    before = _read(spark, path)
    _write(spark, path, options, range(4), 2)
    first, latest = _commit_times(path)
    with pytest.raises(Exception, match="roll back the later commits first"):
        spark.sql(f"CALL rollback_to_instant(path => '{path}', instant_time => '{first}')")
    mdt = ServiceTable.open(path).metadata_writer()
    assert mdt.compact_if_needed(1) and rollback._merged_by_compaction(mdt, latest)  # so it is built again
    spark.sql(f"CALL rollback_to_instant(path => '{path}', instant_time => '{latest}')").collect()
    assert _read(spark, path) == before and _commit_times(path) == [first]
    assert _call(spark, f"CALL validate_metadata_table_files(path => '{path}')")[1] == []  # built again


def test_compaction_of_a_merge_on_read_table(spark, tmp_path):
    path = str(tmp_path / "mor")
    options = _options("proc_mor", "MERGE_ON_READ")
    _write(spark, path, options, range(4), 1)
    _write(spark, path, options, [0, 1], 2)  # updates: log files
    expected = _read(spark, path)
    columns, scheduled = _call(spark, f"CALL run_compaction(op => 'schedule', path => '{path}')")
    assert columns == ["timestamp", "operation_size", "state"]
    assert [r["state"] for r in scheduled] == ["REQUESTED"] and scheduled[0]["operation_size"] == 2
    assert _call(spark, f"CALL show_compaction(path => '{path}')")[1] == scheduled
    _, ran = _call(spark, f"CALL run_compaction('run', NULL, '{path}')")  # runs the pending plan
    assert ran == [{**scheduled[0], "state": "COMPLETED"}]
    assert [i.requested_time for i in _instants(path, "commit")] == [scheduled[0]["timestamp"]]
    assert _read(spark, path) == expected
    _, fsview = _call(spark, f"CALL show_fsview_latest(path => '{path}')")
    assert all(r["base_instant"] == scheduled[0]["timestamp"] and r["num_delta_files"] == 0 for r in fsview)


def test_clustering_sorts_into_a_replacecommit(spark, tmp_path):
    path = str(tmp_path / "t")
    options = _options("proc_cl")
    for ts in (1, 2):
        _write(spark, path, options, [ts * 10 + i for i in range(2)], ts)  # new file groups each time
    expected = _read(spark, path)
    columns, rows = _call(spark, f"CALL run_clustering(path => '{path}', order => 'val', "
                                 "show_involved_partition => true)")
    assert columns == ["timestamp", "input_group_size", "state", "involved_partitions"]
    assert len(rows) == 1 and rows[0]["state"] == "COMPLETED" and rows[0]["involved_partitions"] == "eu,us"
    assert [i.requested_time for i in _instants(path, "replacecommit")] == [rows[0]["timestamp"]]
    assert _read(spark, path) == expected


def test_an_unknown_procedure_names_the_known_ones(spark):
    with pytest.raises(Exception, match="no procedure show_comits; the procedures are: .*show_commits"):
        spark.sql("CALL show_comits(path => '/tmp/t')")
    with pytest.raises(Exception, match="give the table"):
        spark.sql("CALL show_commits(limit => 1)")


@pytest.mark.parametrize("procedure", ["run_compaction", "run_clustering"])
def test_a_bad_op_is_refused_by_name_whatever_the_table(spark, cow, procedure):
    """A misspelt op is the error, on a copy-on-write table too (run_compaction said it was not merge-on-read);
    one line of pyspark's own exception, the table as it was."""
    from pyspark.errors import IllegalArgumentException

    path, _ = cow
    before = _instants(path)
    with pytest.raises(IllegalArgumentException) as e:
        spark.sql(f"CALL {procedure}(op => 'runn', path => '{path}')").collect()
    assert str(e.value) == ("op => 'runn': use 'schedule', 'execute' or 'scheduleAndExecute' (or 'run')")
    assert _instants(path) == before


def test_savepoint_and_table_procedures_the_cli_has(spark, tmp_path):
    """show_savepoints, delete_savepoint, show_table_properties and archive_commits, as CALL."""
    path = str(tmp_path / "t")
    options = {**_options("proc_more"), "hoodie.metadata.enable": "false"}  # no metadata-table bound on archival
    for ts in range(1, 6):
        _write(spark, path, options, range(3), ts)
    first, second = _commit_times(path)[:2]
    for t in (first, second):
        spark.sql(f"CALL create_savepoint(path => '{path}', commit_time => '{t}')").collect()
    assert _call(spark, f"CALL show_savepoints(path => '{path}')") == (
        ["savepoint_time"], [{"savepoint_time": second}, {"savepoint_time": first}])
    assert _call(spark, f"CALL delete_savepoint(path => '{path}', instant_time => '{first}')")[1] == [
        {"delete_savepoint_result": True}]
    assert _call(spark, f"CALL delete_savepoint(path => '{path}', instant_time => '{first}')")[1] == [
        {"delete_savepoint_result": False}]
    assert [r["savepoint_time"] for r in _call(spark, f"CALL show_savepoints(path => '{path}')")[1]] == [second]
    spark.sql(f"CALL delete_savepoint(path => '{path}', instant_time => '{second}')").collect()
    columns, rows = _call(spark, f"CALL show_table_properties(path => '{path}', limit => 100)")
    props = {r["key"]: r["value"] for r in rows}
    assert columns == ["key", "value"] and props["hoodie.table.name"] == "proc_more"
    assert len(_call(spark, f"CALL show_table_properties(path => '{path}')")[1]) == 10
    commits = len(_commit_times(path))
    assert _call(spark, f"CALL archive_commits(path => '{path}', min_commits => 2, max_commits => 3, "
                        "retain_commits => 1)")[1] == [{"result": 0}]
    assert len(_commit_times(path)) == 2 < commits  # the active timeline keeps min_commits
    assert sorted(_read(spark, path)) == ["k0", "k1", "k2"]


def test_metadata_table_listing_procedures(spark, cow):
    path, _ = cow
    from pathlib import Path

    assert _call(spark, f"CALL show_metadata_table_partitions(path => '{path}')") == (
        ["partition"], [{"partition": "eu"}, {"partition": "us"}])
    columns, rows = _call(spark, f"CALL show_metadata_table_files(path => '{path}', partition => 'eu')")
    assert columns == ["file_path"] and [r["file_path"] for r in rows] == sorted(
        p.name for p in Path(path, "eu").glob("*.parquet"))
    assert len(_call(spark, f"CALL show_metadata_table_files(path => '{path}', partition => 'eu', limit => 1)")[1]) == 1
    with pytest.raises(Exception, match="lists no partition 'asia'"):
        spark.sql(f"CALL show_metadata_table_files(path => '{path}', partition => 'asia')").collect()


def test_the_metadata_table_is_deleted_and_created_again_by_call(spark, tmp_path):
    """delete_metadata_table and create_metadata_table, as `pyhudi metadata delete|create`: reads stay right
    without it, the rebuilt one lists the same files, a second create is refused."""
    from pathlib import Path

    path = str(tmp_path / "t")
    options = _options("proc_mdt")
    for ts in (1, 2):
        _write(spark, path, options, range(4), ts)
    listed = _call(spark, f"CALL show_metadata_table_files(path => '{path}', partition => 'eu')")[1]
    (result,) = _call(spark, f"CALL delete_metadata_table(path => '{path}')")[1]
    assert result["result"].startswith("Deleted Metadata Table at") and not Path(path, ".hoodie", "metadata").exists()
    assert sorted(_read(spark, path)) == ["k0", "k1", "k2", "k3"]
    (result,) = _call(spark, f"CALL create_metadata_table(path => '{path}')")[1]
    assert result["result"].startswith(f"Created Metadata Table in {path}/.hoodie/metadata (duration=")
    assert _call(spark, f"CALL show_metadata_table_files(path => '{path}', partition => 'eu')")[1] == listed
    assert _call(spark, f"CALL validate_metadata_table_files(path => '{path}')")[1] == []
    with pytest.raises(Exception, match="not empty: .* has a metadata table"):
        spark.sql(f"CALL create_metadata_table(path => '{path}')").collect()


def test_the_connector_owns_the_procedures_pyhudi_runs_and_their_columns(spark, monkeypatch, tmp_path):
    """io.hudimeta.spark.procedures declares each procedure's parameters and result columns (Apache Hudi's); pyhudi
    runs those not computed in the JVM, and a row of its keyed by other columns than the declared ones (one more
    or one less) fails the CALL instead of reaching the caller with a column null or dropped."""
    from pyhudi.spark import procedures

    declared = {name: list(cols) for name, cols in
                spark._jvm.io.hudimeta.spark.procedures.HudiProcedures.pyhudiColumns().items()}
    assert sorted(declared) == sorted(procedures.PROCEDURES)
    assert declared["show_savepoints"] == ["savepoint_time"]
    for row in ({"savepoint_time": "1", "user": "u"}, {}):
        monkeypatch.setitem(procedures.PROCEDURES, "show_savepoints", lambda spark, path, args, row=row: [row])
        with pytest.raises(Exception, match=r"not by the procedure's columns \[savepoint_time\]"):
            spark.sql(f"CALL show_savepoints(path => '{tmp_path}')").collect()
