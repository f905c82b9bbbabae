"""What pyhudi does with each Apache Hudi key: honoured, ignored with a warning where that cannot
change data or layout, refused as unsupported, or refused as unknown with the nearest key."""
import logging

import pytest

from pyhudi.config import HONOURED, HUDI_KEYS, UNKNOWN, UNSUPPORTED, WARN, OptionError, check, classify


def test_catalogue_holds_hudi_1x_keys_of_every_area():
    keys = HUDI_KEYS
    assert len(keys) > 900
    for key, group in [("hoodie.datasource.write.operation", "DataSourceWriteOptions"),
                       ("hoodie.datasource.query.type", "DataSourceReadOptions"),
                       ("hoodie.metadata.index.column.stats.enable", "HoodieMetadataConfig"),
                       ("hoodie.index.type", "HoodieIndexConfig"),
                       ("hoodie.compact.inline.max.delta.commits", "HoodieCompactionConfig"),
                       ("hoodie.clean.policy", "HoodieCleanConfig"),
                       ("hoodie.cleaner.policy", "HoodieCleanConfig"),  # Hudi's older name, still accepted
                       ("hoodie.keep.max.commits", "HoodieArchivalConfig"),
                       ("hoodie.clustering.inline", "HoodieClusteringConfig"),
                       ("hoodie.write.lock.provider", "HoodieLockConfig"),
                       ("hoodie.datasource.write.recordkey.field", "KeyGeneratorOptions"),
                       ("hoodie.parquet.max.file.size", "HoodieStorageConfig"),
                       ("hoodie.table.ordering.fields", "HoodieTableConfig"),  # 1.1
                       ("hoodie.datasource.hive_sync.mode", "HiveSyncConfigHolder")]:
        assert keys[key] == group, key
    assert all(k.startswith("hoodie.") for k in keys)


@pytest.mark.parametrize("key, kind", [
    ("hoodie.table.name", HONOURED),
    ("hoodie.datasource.write.storage.type", HONOURED),  # an alternative of the table type
    ("hoodie.metrics.on", WARN),
    ("hoodie.metrics.reporter.type", WARN),
    ("hoodie.datasource.hive_sync.enable", WARN),
    ("hoodie.datasource.meta.sync.enable", WARN),
    ("hoodie.write.commit.callback.on", WARN),
    ("hoodie.memory.merge.fraction", WARN),
    ("hoodie.embed.timeline.server", HONOURED),
    ("hoodie.embed.timeline.server.threads", WARN),
    ("hoodie.embed.timeline.server.port", HONOURED),
    ("hoodie.write.markers.type", WARN),
    ("hoodie.bloom.index.parallelism", WARN),
    ("hoodie.write.status.storage.level", WARN),
    ("hoodie.filesystem.view.type", HONOURED),
    ("hoodie.filesystem.view.remote.retry.enable", WARN),
    ("hoodie.datasource.query.type", WARN),
    ("hoodie.streamer.source.kafka.topic", WARN),
    ("hoodie.streamer.jdbc.extra.options.fetchsize", WARN),  # a Hudi prefix key
    ("hoodie.cleaner.policy", HONOURED),
    ("hoodie.write.lock.provider", HONOURED),
    ("hoodie.write.concurrency.mode", HONOURED),
    ("hoodie.write.lock.zookeeper.url", UNSUPPORTED),
    ("hoodie.clustering.plan.strategy.target.file.max.bytes", HONOURED),
    ("hoodie.clustering.plan.strategy.daybased.lookback.partitions", UNSUPPORTED),
    ("hoodie.parquet.block.size", UNSUPPORTED),
    ("hoodie.datasource.write.payload.class", HONOURED),  # the two payloads whose merging pyhudi does
    ("hoodie.datasource.write.record.merger.impls", UNSUPPORTED),
    ("hoodie.metadata.index.column.stats.column.list", UNSUPPORTED),
    ("hoodie.datasource.write.precombine.feild", UNKNOWN),
])
def test_classification(key, kind):
    assert classify(key)[0] == kind


def test_every_catalogued_key_has_a_verdict():
    kinds = {classify(k)[0] for k in HUDI_KEYS}
    assert kinds == {HONOURED, WARN, UNSUPPORTED}


def test_unsupported_key_message_is_exact():
    with pytest.raises(OptionError) as err:
        check({"hoodie.write.lock.zookeeper.url": "x", "path": "/x", "spark.sql.x": "1"})
    assert str(err.value) == "hoodie.write.lock.zookeeper.url is an Apache Hudi option pyhudi does not support yet"


def test_unknown_key_gets_the_nearest_known_one():
    with pytest.raises(OptionError) as err:
        check({"hoodie.datasource.write.precombine.feild": "ts"})
    assert str(err.value) == ("unknown option hoodie.datasource.write.precombine.feild: not an Apache Hudi option; "
                              "did you mean hoodie.datasource.write.precombine.field?")
    with pytest.raises(OptionError, match=r"^unknown option hoodie\.zzz: not an Apache Hudi option$"):
        check({"hoodie.zzz": "1"})


def test_pyhudi_own_keys_are_checked_too():
    check({"pyhudi.bloom.index.log.files.enable": "true"})
    with pytest.raises(OptionError) as err:
        check({"pyhudi.bloom.index.log.file.enable": "true"})
    assert str(err.value) == ("unknown option pyhudi.bloom.index.log.file.enable: not a pyhudi option; "
                              "did you mean pyhudi.bloom.index.log.files.enable?")


def test_every_problem_is_named_in_one_error():
    with pytest.raises(OptionError) as err:
        check({"hoodie.write.lock.zookeeper.url": "x", "hoodie.metadata.enabel": "true", "hoodie.table.name": "t"})
    assert str(err.value) == ("unknown option hoodie.metadata.enabel: not an Apache Hudi option; did you mean "
                              "hoodie.metadata.enable?; hoodie.write.lock.zookeeper.url is an Apache Hudi option "
                              "pyhudi does not support yet")


def test_ignored_keys_are_logged(caplog):
    with caplog.at_level(logging.WARNING, logger="pyhudi.config.recognise"):
        check({"hoodie.metrics.on": "true", "hoodie.upsert.shuffle.parallelism": "4", "hoodie.table.name": "t"})
    assert [r.getMessage() for r in caplog.records] == [
        "hoodie.metrics.on is an Apache Hudi option pyhudi ignores: metrics reporting, which pyhudi does not do"]


def test_keys_outside_hoodie_pass():
    check({"path": "/t", "as.of.instant": "x", "spark.sql.shuffle.partitions": "2", "__partition_columns": "[]"})


def test_the_connector_jar_carries_the_same_catalogue():
    """An installed package has no connector sources: the catalogue is then read from the jar."""
    import zipfile

    from conftest import PROJECT
    from pyhudi import build
    from pyhudi.config.recognise import CATALOGUE

    with zipfile.ZipFile(build.build(quiet=True)) as jar:
        assert jar.read(CATALOGUE) == (PROJECT / "connector/src/main/resources" / CATALOGUE).read_bytes()
