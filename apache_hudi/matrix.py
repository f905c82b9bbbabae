"""The scenarios Apache Hudi checks: LEAN runs in the tests, FULL is the matrix anyone can run,

    python -m apache_hudi matrix [--only NAME]      (results: apache_hudi/results/matrix.md)

Keys are the model's ints; key k lives in partition CITIES[k % 3] (apache_hudi.model)."""
from __future__ import annotations

from apache_hudi.releases import TABLE_VERSION_8 as V8
from apache_hudi.scenarios import Scenario, Step, options

ALL = tuple(range(30))
SOME = tuple(range(0, 40, 3))  # 10 updates, 4 inserts
FEW = (1, 2, 5)
RI = {"hoodie__index__type": "RECORD_INDEX", "hoodie__metadata__record__index__enable": "true"}
SERVICES = {"hoodie__cleaner__commits__retained": "1", "hoodie__keep__min__commits": "2",
            "hoodie__keep__max__commits": "3", "hoodie__compact__inline__max__delta__commits": "2"}


def _s(name, steps, table_type="COPY_ON_WRITE", partitioned=True, **extra) -> Scenario:
    return Scenario(name, options(name.replace("-", "_"), table_type, partitioned, **extra), tuple(steps))


COW_WRITES = _s("cow-writes", [Step("bulk_insert", ALL), Step("upsert", SOME), Step("delete", FEW),
                               Step("insert_overwrite", (0, 3, 6)), Step("insert", (50, 51)), Step("clean")])
MOR_RECORD_INDEX = _s("mor-record-index-hudi-writes", [
    Step("insert", ALL), Step("upsert", SOME), Step("delete", FEW), Step("compact"), Step("upsert", (7, 8, 9)),
    Step("upsert", (10, 11, 60), by=V8), Step("delete", (12,), by=V8), Step("upsert", (13, 14)),
    Step("delete_partition", partitions=("la",))], "MERGE_ON_READ", **RI)
MOR_UNPARTITIONED = _s("mor-unpartitioned-hudi-compacts", [
    Step("upsert", tuple(range(20))), Step("upsert", (1, 2, 3), by=V8), Step("delete", (4,)),
    Step("compact", by=V8), Step("upsert", (5, 6))], "MERGE_ON_READ", partitioned=False)


def _fleet(steps: int) -> list[Step]:
    """pyhudi and Apache Hudi 1.0.2 taking turns on one table: upserts, deletes, and services by either."""
    plan = [Step("insert", ALL)]
    for n in range(1, steps):
        by = V8 if n % 2 else "pyhudi"
        kind = n % 5
        if kind == 3:
            plan.append(Step("delete", (n % 30, (n + 7) % 30), by=by))
        elif kind == 4:
            plan.append(Step("compact", by=by))
        else:
            plan.append(Step("upsert", tuple(range(n % 10, 40, 4)), by=by))
    return plan + [Step("clean"), Step("archive", by=V8)]


MIXED_FLEET_SHORT = _s("mixed-fleet-v8-short", _fleet(8), "MERGE_ON_READ", **SERVICES)

COW_CDC = _s("cow-cdc", [Step("upsert", ALL), Step("upsert", SOME), Step("delete", FEW)],
             hoodie__table__cdc__enabled="true")

COW_GLOBAL_BLOOM = _s("cow-global-bloom", [Step("upsert", ALL), Step("upsert", SOME), Step("delete", FEW),
                                          Step("upsert", (1, 2), by=V8)], hoodie__index__type="GLOBAL_BLOOM")
# Apache Hudi reads, and writes on, a table whose index definitions and secondary index pyhudi wrote
MOR_SECONDARY_INDEX = _s("mor-secondary-index", [Step("upsert", ALL), Step("secondary_index"), Step("upsert", SOME),
                                                 Step("delete", FEW), Step("upsert", (3, 40), by=V8)],
                         "MERGE_ON_READ", **RI)
LEAN = (COW_WRITES, MOR_RECORD_INDEX, MOR_UNPARTITIONED, MIXED_FLEET_SHORT, COW_CDC)

FULL = LEAN + (
    _s("cow-unpartitioned", [Step("upsert", ALL), Step("upsert", SOME), Step("delete", FEW),
                             Step("insert_overwrite_table", (1, 2, 3, 4)), Step("upsert", (5, 6))], partitioned=False),
    _s("mor-simple-services", [Step("insert", ALL), Step("upsert", SOME), Step("upsert", (1, 2)),
                               Step("log_compact"), Step("compact"), Step("upsert", (3, 4)), Step("clean"),
                               Step("delete_partition", partitions=("ny",))], "MERGE_ON_READ", **SERVICES),
    _s("cow-global-simple", [Step("upsert", ALL), Step("upsert", SOME), Step("delete", FEW)],
       hoodie__index__type="GLOBAL_SIMPLE"),
    _s("cow-bloom", [Step("upsert", ALL), Step("upsert", SOME), Step("delete", FEW), Step("upsert", (1, 2), by=V8)],
       hoodie__index__type="BLOOM", hoodie__metadata__index__bloom__filter__enable="true",
       hoodie__bloom__index__use__metadata="true"),
    _s("mor-bucket", [Step("upsert", ALL), Step("upsert", SOME), Step("delete", FEW), Step("compact")],
       "MERGE_ON_READ", hoodie__index__type="BUCKET", hoodie__bucket__index__num__buckets="4"),
    _s("cow-record-index", [Step("upsert", ALL), Step("upsert", SOME), Step("delete", FEW),
                            Step("upsert", (2, 70), by=V8)], **RI),
    _s("cow-clustering", [Step("bulk_insert", tuple(range(10))), Step("bulk_insert", tuple(range(10, 20))),
                          Step("bulk_insert", tuple(range(20, 30))), Step("cluster"), Step("upsert", (1, 15)),
                          Step("clean")], **SERVICES),
    _s("cow-savepoint-restore", [Step("upsert", ALL), Step("upsert", SOME), Step("savepoint"), Step("upsert", FEW),
                                 Step("delete", (4,)), Step("restore"), Step("upsert", (9,))]),
    _s("mor-archival", [Step("upsert", ALL)] + [Step("upsert", (n, n + 1)) for n in range(8)] + [Step("archive")],
       "MERGE_ON_READ", **SERVICES),
    _s("mor-cdc", [Step("upsert", ALL), Step("upsert", SOME), Step("delete", FEW), Step("compact")], "MERGE_ON_READ",
       hoodie__table__cdc__enabled="true"),
    _s("mixed-fleet-v8", _fleet(22), "MERGE_ON_READ", **SERVICES),
    COW_GLOBAL_BLOOM,
    MOR_SECONDARY_INDEX,
)
