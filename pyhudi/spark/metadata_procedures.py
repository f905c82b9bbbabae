"""pyhudi's own CALL procedures on the metadata table (Apache Hudi has no procedure for either): every partition
checked against the data, as `pyhudi metadata validate` does, and the partitions that differ built again, as
`pyhudi metadata repair` does. `partition` names one metadata partition; without it, all of them."""
from __future__ import annotations

from typing import Any, Mapping

from pyhudi.services import metadata_check, metadata_repair

Row = dict[str, Any]


def validate_metadata_table(spark, path: str, args: Mapping[str, str]) -> list[Row]:
    """One row per difference (none when the metadata table agrees with the data)."""
    results = metadata_check.validate(path, _partitions(args), spark=spark)
    return [{"partition": d.partition, "location": d.where, "difference": d.what,
             "metadata_value": _text(d.metadata), "data_value": _text(d.actual)}
            for diffs in results.values() for d in diffs]


def repair_metadata_table(spark, path: str, args: Mapping[str, str]) -> list[Row]:
    """One row per partition of the metadata table after the repair: whether it was built again, and the number
    of differences the validator still finds."""
    rebuilt, after = metadata_repair.repair(path, _partitions(args), spark=spark)
    return [{"partition": part, "rebuilt": part in rebuilt, "differences": len(diffs)}
            for part, diffs in after.items()]


def _partitions(args: Mapping[str, str]) -> list[str] | None:
    named = (args.get("partition") or "").strip()
    return [p.strip() for p in named.split(",") if p.strip()] if named else None


def _text(value) -> str | None:
    return None if value is None else str(value)
