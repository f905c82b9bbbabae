"""Tables Apache Hudi writes here and now, read through hudi-meta: equal to the model and to Hudi's own reads;
what hudi-meta does not read yet (table version 9) is refused by name, never answered with wrong rows."""
from __future__ import annotations

import pytest

from apache_hudi.matrix import ALL, FEW, SOME
from apache_hudi.releases import NEWEST, TABLE_VERSION_8
from apache_hudi.scenarios import Scenario, Step, options


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_hudi_1_0_2_writes_and_we_read(runner, tmp_path, table_type):
    steps = [Step("insert", ALL, by=TABLE_VERSION_8), Step("upsert", SOME, by=TABLE_VERSION_8),
             Step("delete", FEW, by=TABLE_VERSION_8)]
    if table_type == "MERGE_ON_READ":
        steps += [Step("compact", by=TABLE_VERSION_8), Step("upsert", (1, 4), by=TABLE_VERSION_8)]
    scenario = Scenario(f"hudi_{table_type.lower()}", options(f"hudi_{table_type.lower()}", table_type),
                        tuple(steps))
    outcome = runner.run(scenario, str(tmp_path / "t"))
    assert outcome.differences == []
    assert outcome.steps == len(steps)
    if table_type == "MERGE_ON_READ":  # key 1, deleted then written again: Apache Hudi 1.0.2 fails its own table
        assert outcome.known and all("apache/hudi#19901" in k for k in outcome.known)


def test_a_table_version_9_table_is_refused_by_name_until_version_9_is_read(spark, hudis, tmp_path):
    from apache_hudi.model import row, table

    path = str(tmp_path / "v9")
    hudis[NEWEST].write(path, table([row(k, 1) for k in range(6)]),
                        **options("v9", "MERGE_ON_READ"), **{"hoodie.datasource.write.operation": "upsert"})
    assert "hoodie.table.version=9" in (tmp_path / "v9" / ".hoodie" / "hoodie.properties").read_text()
    try:
        rows = spark.read.format("hudi-meta").load(path).toArrow()
    except Exception as exc:  # refused: the message names the version
        assert "version 9" in str(exc) or "table version" in str(exc).lower(), str(exc)
    else:  # read: then it must be right
        from tests.canonical import canon

        assert canon(rows) == canon(hudis[NEWEST].read(path))


def test_a_key_hudi_wrote_twice_is_returned_twice_where_hudi_returns_it_once(spark, hudis, fixture_tables):
    """Apache Hudi 1.1's INSERT INTO wrote TXN-001 twice (two file groups; the record index names one). Both
    readers' full snapshots hold both rows; filtered on the key, Apache Hudi 1.2.0 prunes by its record index and
    returns one, hudi-meta returns both (io.hudimeta.index.RepeatedKeys; docs/format.md)."""
    path = fixture_tables["sample_table_cow__v9_timebasedkeygen_nonhivestyle"]
    hudi = hudis[NEWEST]
    assert hudi.read(path).column("txn_id").to_pylist().count("TXN-001") == 2
    assert spark.read.format("hudi-meta").load(path).where("txn_id = 'TXN-001'").count() == 2
    assert hudi.read(path, where="txn_id = 'TXN-001'").num_rows == 1


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_a_version_9_table_downgraded_by_hudi_is_written_by_pyhudi(spark, hudis, tmp_path, table_type):
    """What pyhudi's refusal of a version-9 write advises, done: Apache Hudi 1.2.0 writes a table at version 9,
    pyhudi refuses to write it (nothing changes), Hudi's own CALL downgrade_table(to_version => 'EIGHT') takes it
    to version 8, pyhudi upserts on it, and both Hudi 1.2.0 and hudi-meta read the rows the model holds."""
    from apache_hudi.model import row, table
    from pyhudi import HudiTable
    from pyhudi.table.properties import TableVersionError
    from tests.canonical import canon
    from tests.table_checks import unchanged_after

    hudi, path = hudis[NEWEST], str(tmp_path / "t")
    opts = options("downgraded", table_type)
    hudi.write(path, table([row(k, 1) for k in range(8)]), **opts, **{"hoodie.datasource.write.operation": "upsert"})
    ours = HudiTable(spark, path, opts)
    later = spark.createDataFrame(table([row(k, 2) for k in range(4, 12)]))
    unchanged_after(path, lambda: ours.upsert(later), "is table version 9")
    with pytest.raises(TableVersionError):
        ours.upsert(later)
    name = hudi.register(path)
    assert hudi.sql(f"CALL downgrade_table(table => '{name}', to_version => 'EIGHT')").to_pylist() == [
        {"result": True}]
    assert "hoodie.table.version=8" in (tmp_path / "t" / ".hoodie" / "hoodie.properties").read_text()
    ours.upsert(later)
    expected = canon(table([row(k, 1) for k in range(4)] + [row(k, 2) for k in range(4, 12)]))["rows"]
    data = ["id", "name", "ts", "city", "fare"]
    assert canon(hudi.read(path).select(data))["rows"] == expected
    assert canon(spark.read.format("hudi-meta").load(path).select(*data).toArrow())["rows"] == expected
