"""The harness itself: both releases come up with the table version they write, registering a table in Hudi's
catalog leaves it untouched, and the validator names what a broken metadata table gets wrong."""
from __future__ import annotations

import shutil

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from apache_hudi.model import row, table
from apache_hudi.scenarios import Scenario, Step, options
from apache_hudi.validate import validate


def test_each_release_runs_its_bundle_on_spark_3_5(hudis):
    assert {v: h.version()["table_version"] for v, h in hudis.items()} == {"1.2.0": 9, "1.0.2": 8}
    assert {h.version()["spark"] for h in hudis.values()} == {"3.5.5"}


def test_a_failed_request_raises_hudis_message_and_the_session_goes_on(hudis, tmp_path):
    from apache_hudi.process import HudiError

    hudi = hudis["1.2.0"]
    with pytest.raises(HudiError, match="(?i)path does not exist|not a hudi table|hoodie"):
        hudi.read(str(tmp_path / "nothing-here"))
    assert hudi.sql("SELECT 41 + 1 AS answer").column("answer").to_pylist() == [42]


@pytest.fixture(scope="module")
def ours(runner, tmp_path_factory):
    """A MOR table pyhudi wrote, with the record index and bloom filters, after upserts and a delete."""
    path = str(tmp_path_factory.mktemp("validate") / "t")
    scenario = Scenario("validated", options("validated", "MERGE_ON_READ", hoodie__index__type="RECORD_INDEX",
                                             hoodie__metadata__record__index__enable="true",
                                             hoodie__metadata__index__bloom__filter__enable="true"),
                        (Step("insert", tuple(range(24))), Step("upsert", tuple(range(0, 30, 4))),
                         Step("delete", (5,))))
    runner.run(scenario, path)
    return path


def test_registering_a_table_in_hudis_catalog_leaves_hoodie_properties_as_they_were(hudis, ours):
    props = f"{ours}/.hoodie/hoodie.properties"
    before = open(props, "rb").read()
    name = hudis["1.0.2"].register(ours)
    commits = hudis["1.0.2"].sql(f"CALL show_commits(table => '{name}')")
    assert commits.num_rows == 3
    assert open(props, "rb").read() == before


@pytest.mark.parametrize("release", ["1.0.2", "1.2.0"])
def test_the_validator_finds_a_rewritten_base_file(hudis, ours, tmp_path, release):
    broken = str(tmp_path / "t")
    shutil.copytree(ours, broken)
    assert validate(hudis[release], broken, absent_keys=[5]) == []
    base = sorted(p for p in (tmp_path / "t").rglob("*.parquet") if ".hoodie" not in p.parts)[0]
    rows = pq.read_table(base)
    pq.write_table(rows.set_column(rows.schema.get_field_index("fare"), "fare", pc.add(rows.column("fare"), 1000.0)),
                   base, compression="snappy")
    problems = validate(hudis[release], broken)
    assert any(p.startswith(f"files: {base.parent.name}/{base.name}") for p in problems), problems
    assert any(p.startswith(f"column_stats: {base.name} fare") for p in problems), problems


def test_the_record_index_check_asks_hudi_for_every_key(hudis, ours):
    keys = [str(k) for k in range(30) if k in set(range(24)) | set(range(0, 30, 4)) and k != 5]
    locations = hudis["1.2.0"].record_index(ours, keys + ["5"])
    assert sorted(locations) == sorted(keys)  # every live key located, the deleted one not
    assert {p for p, _ in locations.values()} == {"sf", "la", "ny"}


def test_the_model_is_independent_of_both_readers():
    assert table([row(1, 2)]).to_pylist() == [{"id": 1, "name": "n1v2", "ts": 2, "city": "la", "fare": 2.5}]
