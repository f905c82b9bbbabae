"""Hadoop configurations broadcast once per content (io.hudimeta.conf.SharedConf): scans and record-index
lookups whose configuration holds the same properties share one broadcast; any changed property, and a
setting changed in the session between two reads, is broadcast afresh and reaches the executors."""
from __future__ import annotations


def shared(spark, conf):
    return spark._jvm.io.hudimeta.conf.SharedConf.of(spark._jsc.sc(), conf)


def test_equal_configurations_share_one_broadcast_and_a_change_makes_another(spark):
    jvm = spark._jvm
    conf = jvm.org.apache.hadoop.conf.Configuration(spark._jsc.hadoopConfiguration())
    conf.set("pyhudi.test.shared", "one")
    first = shared(spark, conf)
    assert shared(spark, jvm.org.apache.hadoop.conf.Configuration(conf)).id() == first.id()
    conf.set("pyhudi.test.shared", "two")
    second = shared(spark, conf)
    assert second.id() != first.id()
    assert first.value().value().get("pyhudi.test.shared") == "one"  # a copy was sent: later sets stay out
    assert second.value().value().get("pyhudi.test.shared") == "two"


def test_a_session_setting_changed_between_reads_reaches_the_next_scan(spark, tmp_path):
    """A Hadoop setting made in the session between two reads reaches the second read's tasks: with a counting
    file system set, the first read's base file opens are counted; with it unset, the second read's are not
    (a stale broadcast would still count them)."""
    from pyhudi.hudi_table import HudiTable

    path = str(tmp_path / "t")
    t = HudiTable(spark, path, {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id",
                                "hoodie.datasource.write.precombine.field": "ts"})
    t.insert(spark.createDataFrame([("a", 1, "x"), ("b", 2, "y")], "id string, ts long, v string"))
    counter = spark._jvm.io.hudimeta.metadata.CountingLocalFileSystem
    counting = {"fs.file.impl": "io.hudimeta.metadata.CountingLocalFileSystem", "fs.file.impl.disable.cache": "true"}
    opened = []
    for settings in (counting, {}):
        for k, v in counting.items():
            if k in settings:
                spark.conf.set(k, v)
            else:
                spark.conf.unset(k)
        counter.start()
        try:
            assert sorted(r.v for r in spark.read.format("hudi-meta").load(path).collect()) == ["x", "y"]
        finally:
            counter.stop()
            for k in counting:
                spark.conf.unset(k)
        opened.append([p for p in map(str, counter.opens()) if p.endswith(".parquet")])
    assert opened[0] and not opened[1], opened
