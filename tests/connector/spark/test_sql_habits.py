"""Spark SQL as Apache Hudi users write it: INSERT INTO inserts (Hudi >= 0.14) unless
hoodie.spark.sql.insert.into.operation says otherwise, a static partition after ALTER TABLE ADD COLUMNS,
INSERT with a column list, SHOW PARTITIONS after DROP PARTITION, and a table name of the path's own."""
import pytest

def _rows(sql, query):
    return sorted(tuple(r) for r in sql(query).collect())


def _create(sql, tmp_path, name, columns, extra=""):
    sql(f"CREATE TABLE {name} ({columns}) USING `hudi-meta` {extra} LOCATION '{tmp_path / name}' "
        "TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts')", table=name)


def test_insert_into_inserts_and_the_hudi_key_switches_it(sql, tmp_path):
    """Apache Hudi 1.x: INSERT INTO is an insert (a key inserted twice is there twice); with
    hoodie.spark.sql.insert.into.operation=upsert the newer version replaces the row."""
    _create(sql, tmp_path, "ins_op", "id INT, name STRING, ts BIGINT")
    sql("INSERT INTO ins_op VALUES (1, 'a', 1)")
    sql("INSERT INTO ins_op VALUES (1, 'b', 2)")
    assert _rows(sql, "SELECT id, name FROM ins_op") == [(1, "a"), (1, "b")]
    sql("SET hoodie.spark.sql.insert.into.operation = upsert")
    sql("INSERT INTO ins_op VALUES (2, 'c', 1)")
    sql("INSERT INTO ins_op VALUES (2, 'd', 2)")
    assert [r for r in _rows(sql, "SELECT id, name FROM ins_op") if r[0] == 2] == [(2, "d")]
    sql("SET hoodie.spark.sql.insert.into.operation = merge")
    with pytest.raises(Exception, match="hoodie.spark.sql.insert.into.operation=merge is not valid"):
        sql("INSERT INTO ins_op VALUES (3, 'e', 1)")


def test_static_partition_after_add_columns_fills_the_right_columns(sql, tmp_path):
    """The partition value goes to the partition column, the query's columns to the others in order, though
    the added column comes after the partition column (it put 'la' into the new DOUBLE column)."""
    _create(sql, tmp_path, "static_p", "id INT, name STRING, ts BIGINT, city STRING", "PARTITIONED BY (city)")
    sql("INSERT INTO static_p VALUES (1, 'a', 1, 'sf'), (2, 'b', 1, 'la')")
    sql("ALTER TABLE static_p ADD COLUMNS (tip DOUBLE)")
    sql("INSERT OVERWRITE static_p PARTITION (city = 'la') SELECT 3, 'c', 2, 4.5")
    sql("INSERT INTO static_p PARTITION (city = 'ny') SELECT 4, 'd', 2, 1.25")
    assert _rows(sql, "SELECT id, name, ts, city, tip FROM static_p") == [
        (1, "a", 1, "sf", None), (3, "c", 2, "la", 4.5), (4, "d", 2, "ny", 1.25)]


def test_insert_with_a_column_list_casts_as_without_one(sql, tmp_path):
    _create(sql, tmp_path, "col_list", "id INT, name STRING, ts BIGINT, amount DOUBLE")
    sql("INSERT INTO col_list VALUES (1, 'x', 1, 1.5)")
    sql("INSERT INTO col_list (id, name, ts, amount) VALUES (2, 'y', 1, 2.5)")
    sql("INSERT INTO col_list (amount, id, ts, name) VALUES (3.5, 3, 1, 'z')")
    assert _rows(sql, "SELECT id, name, amount FROM col_list") == [(1, "x", 1.5), (2, "y", 2.5), (3, "z", 3.5)]


def test_show_partitions_leaves_out_a_dropped_partition(sql, tmp_path):
    """Apache Hudi's SHOW PARTITIONS (TimelineUtils.getDroppedPartitions): a partition dropped by
    delete_partition is not listed, before the clean that deletes its files and after it, until a write
    puts rows there again."""
    _create(sql, tmp_path, "dropped", "id INT, ts BIGINT, city STRING", "PARTITIONED BY (city)")
    sql("INSERT INTO dropped VALUES (1, 1, 'sf'), (2, 1, 'la')")
    sql("ALTER TABLE dropped DROP PARTITION (city = 'sf')")
    assert _rows(sql, "SHOW PARTITIONS dropped") == [("city=la",)]
    sql("CALL run_clean(table => 'dropped', retain_commits => 1)")
    assert _rows(sql, "SHOW PARTITIONS dropped") == [("city=la",)]
    with pytest.raises(Exception, match="(?i)partition"):
        sql("ALTER TABLE dropped DROP PARTITION (city = 'sf')")
    sql("INSERT INTO dropped VALUES (3, 1, 'sf')")
    assert _rows(sql, "SHOW PARTITIONS dropped") == [("city=la",), ("city=sf",)]
    assert _rows(sql, "SELECT id, city FROM dropped") == [(2, "la"), (3, "sf")]


def test_the_hudi_format_name_points_to_hudi_meta(spark, sql, tmp_path):
    """format("hudi") / USING hudi without Apache Hudi's bundle: one line naming hudi-meta, not Spark's bare
    DATA_SOURCE_NOT_FOUND, and no catalog entry made."""
    from pyspark.errors import IllegalArgumentException

    hint = r"format 'hudi' is Apache Hudi's own Spark datasource.*format\('hudi-meta'\)"
    for attempt in (lambda: spark.read.format("hudi").load(str(tmp_path)),
                    lambda: spark.range(1).write.format("hudi").save(str(tmp_path / "w")),
                    lambda: sql(f"CREATE TABLE hudi_named (id INT) USING hudi LOCATION '{tmp_path / 'h'}'")):
        with pytest.raises(IllegalArgumentException, match=hint):
            attempt()
    assert "hudi_named" not in [t.name for t in spark.catalog.listTables()]


def test_cdc_read_of_a_catalog_table_has_the_cdc_columns(spark, sql, tmp_path):
    """.table(name) with CDC options and SQL WITH (...): the rows and columns a load(path) CDC read gives (the
    relation kept the snapshot's columns over CDC rows: count() 3, show() failed)."""
    sql(f"CREATE TABLE cdc_cat (id INT, v STRING, ts BIGINT) USING `hudi-meta` LOCATION '{tmp_path / 'c'}' "
        "TBLPROPERTIES (primaryKey = 'id', preCombineField = 'ts', 'hoodie.table.cdc.enabled' = 'true')",
        table="cdc_cat")
    sql("INSERT INTO cdc_cat VALUES (1, 'a', 1), (2, 'b', 1)")
    sql("UPDATE cdc_cat SET v = 'z' WHERE id = 1")
    cdc = {"hoodie.datasource.query.type": "incremental", "hoodie.datasource.query.incremental.format": "cdc",
           "hoodie.datasource.read.begin.instanttime": "0"}
    by_path = sorted(spark.read.format("hudi-meta").options(**cdc).load(str(tmp_path / "c")).collect())
    table = spark.read.options(**cdc).table("cdc_cat")
    assert table.columns == ["op", "ts_ms", "before", "after"] and sorted(table.collect()) == by_path
    assert [r.op for r in by_path] == ["i", "i", "u"]
    with_options = ", ".join(f"`{k}` = '{v}'" for k, v in cdc.items())
    assert sorted(sql(f"SELECT * FROM cdc_cat WITH ({with_options})").collect()) == by_path
    assert sql(f"SELECT op, after FROM cdc_cat WITH ({with_options}) WHERE op = 'u'").collect()[0].after == \
        '{"id": 1, "v": "z", "ts": 1}'
    assert "op" not in spark.table("cdc_cat").columns  # a read without the options keeps the table's columns


def test_describe_extended_and_show_create_table_show_the_hudi_properties(sql, tmp_path):
    _create(sql, tmp_path, "described", "id INT, ts BIGINT")
    sql("INSERT INTO described VALUES (1, 1)")
    described = {r[0]: r[1] for r in sql("DESCRIBE TABLE EXTENDED described").collect()}
    assert "hoodie.table.recordkey.fields=id" in described["Table Properties"]
    assert described["Provider"] == "hudi-meta"
    shown = sql("SHOW CREATE TABLE described").collect()[0][0]
    assert "USING hudi-meta" in shown and "'hoodie.table.type' = 'COPY_ON_WRITE'" in shown
    assert "'hoodie.table.precombine.field' = 'ts'" in shown
