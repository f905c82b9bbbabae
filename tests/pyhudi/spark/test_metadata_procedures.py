"""CALL validate_metadata_table and CALL repair_metadata_table (pyhudi's own procedures): the differences of a
broken column_stats partition as rows, then the partition (and partition_stats, which needs it) built again,
after which the check finds nothing."""
from tests.pyhudi.services.test_metadata_check import EVERY, _copy, _rewrite_base, table, wrong_min  # noqa: F401


def _call(spark, sql):
    df = spark.sql(sql)
    return df.columns, [r.asDict() for r in df.collect()]


def test_the_differences_as_rows_then_repaired(spark, table, tmp_path):  # noqa: F811
    path = _copy(table, tmp_path)
    _rewrite_base(path, "column_stats", wrong_min)
    columns, rows = _call(spark, f"CALL validate_metadata_table(path => '{path}', partition => 'column_stats')")
    assert columns == ["partition", "location", "difference", "metadata_value", "data_value"]
    assert rows and {(r["partition"], r["difference"], r["metadata_value"]) for r in rows} == {
        ("column_stats", "min of price", "-1000.0")}
    columns, rows = _call(spark, f"CALL repair_metadata_table(path => '{path}', partition => 'column_stats')")
    assert columns == ["partition", "rebuilt", "differences"]
    assert {r["partition"]: (r["rebuilt"], r["differences"]) for r in rows} == {
        p: (p in ("column_stats", "partition_stats"), 0) for p in EVERY}
    assert _call(spark, f"CALL validate_metadata_table(path => '{path}')")[1] == []
