"""Read options are Apache Hudi's keys: a misspelt hoodie.* key fails with the nearest known key, an
unsupported Hudi read option fails by name, a write option passed to a read is left alone."""
import pytest

from pyhudi import HudiTable

OPTS = {"hoodie.table.name": "r", "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts"}


@pytest.fixture(scope="module")
def table(spark, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("read-options") / "t")
    HudiTable(spark, path, OPTS).insert(spark.createDataFrame([("a", 1), ("b", 2)], "id string, ts long"))
    return path


def _read(spark, path, **options):
    return spark.read.format("hudi-meta").options(**options).load(path)


def test_a_misspelt_key_names_the_nearest(spark, table):
    with pytest.raises(Exception, match="unknown option hoodie.datasource.query.typ.*did you mean "
                                        "hoodie.datasource.query.type"):
        _read(spark, table, **{"hoodie.datasource.query.typ": "incremental"}).collect()


def test_an_unsupported_read_option_is_refused(spark, table):
    with pytest.raises(Exception, match="hoodie.datasource.read.incr.path.glob is an Apache Hudi option hudi-meta "
                                        "does not support yet"):
        _read(spark, table, **{"hoodie.datasource.read.incr.path.glob": "*/2025/*"}).collect()


def test_write_options_do_not_change_a_read(spark, table):
    rows = _read(spark, table, **OPTS, **{"hoodie.upsert.shuffle.parallelism": "4"}).select("id").collect()
    assert sorted(r.id for r in rows) == ["a", "b"]
