"""What a write checks of its rows before it requests an instant: every record has a key (Hudi's key
generators refuse a null or empty one), and the table's non-nullable columns are in the input and hold no
null. A failed check names the columns and shows a few of the rows, and leaves the table as it was."""
from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from pyhudi.config import options as o
from pyhudi.errors import HudiError
from pyhudi.write import small_batch
from pyhudi.write.config import WriteConfig
from pyhudi.write.schema_evolution import required_columns

SAMPLE = 3  # bad rows shown in the error


class InputError(HudiError, ValueError):
    """The input cannot be written as it is; the message names the columns and shows rows."""


@dataclass(frozen=True)
class Checked:
    """What a write learnt of its input before an instant: the nullable columns its rows must fill (`required`),
    whether it may go through the driver (`small`), whether its rows are left to be checked where the driver
    takes them (`deferred`), and the batch taken to the driver here (`taken`), when it was."""
    required: list[str]
    small: bool
    deferred: bool = False
    taken: pa.Table | None = None


def before_instant(cfg: WriteConfig, df: DataFrame, current: dict | None, exists: bool,
                   in_driver: bool) -> Checked:
    """Checks the input's columns, and its rows in one job: a small batch into an existing table is checked where
    the write takes it to the driver (no job here); a new table's is taken here and checked in Arrow - the job the
    write would run anyway - before the table is made. `in_driver`: the write's index may tag a small batch in the
    driver."""
    required = [c for c in columns(cfg, df, current) if df.schema[c].nullable]
    small = in_driver and small_batch.may_apply(cfg, df)
    if small and exists:
        return Checked(required, small, deferred=True)
    taken = small_batch.take(df, cfg) if small else None
    if taken is None:
        check(df, cfg.record_key_fields, required)
    else:
        refuse_arrow(taken, cfg.record_key_fields, required)
    return Checked(required, small, taken=taken)


def columns(cfg: WriteConfig, df: DataFrame, current: dict | None) -> list[str]:
    """Refuses an input without the columns the write needs; the table's non-nullable columns it must fill."""
    given = set(df.columns)
    missing = [c for c in cfg.record_key_fields + cfg.partition_fields if c not in given]
    if missing:
        raise InputError(f"column(s) {', '.join(missing)} named by the key/partition options are not in "
                         f"the input; its columns are: {', '.join(df.columns)}")
    if cfg.ordering_field and cfg.ordering_field not in given and cfg.operation != "delete":
        raise InputError(f"ordering field {cfg.ordering_field} ({o.PRECOMBINE_FIELD.key}) "
                         f"is not a column of the input; its columns are: {', '.join(df.columns)}")
    required = [] if cfg.operation == "delete" else required_columns(current)
    missing_required(required, df.columns)
    return required


def missing_required(required: list[str], columns: list[str]) -> None:
    """Refuses an input without a column the table may not leave null."""
    missing = [c for c in required if c not in columns]
    if missing:
        raise InputError(f"column(s) {', '.join(missing)} of the table may not be null and are not in the input "
                         f"(its columns: {', '.join(columns)}); add them, or write a table whose schema allows nulls")


def bad_row(key_fields: list[str], required: list[str]) -> Column:
    """True for a row that may not be written: a key field null, every key field empty, or a null in a
    non-nullable column."""
    empty = F.lit(True)
    bad = F.lit(False)
    for f in key_fields:
        bad = bad | F.col(f).isNull()
        empty = empty & (F.col(f).cast("string") == "")
    for c in required:
        bad = bad | F.col(c).isNull()
    return bad | empty


def arrow_bad_rows(batch: pa.Table, key_fields: list[str], required: list[str]) -> pa.Table:
    """The rows of an Arrow batch that `bad_row` would refuse."""
    bad = pa.array([False] * batch.num_rows, pa.bool_())
    empty = pa.array([True] * batch.num_rows, pa.bool_())
    for f in key_fields:
        text = pc.cast(batch.column(f), pa.string())
        bad = pc.or_(bad, pc.is_null(text))
        empty = pc.and_kleene(empty, pc.fill_null(pc.equal(text, ""), False))
    for c in required:
        bad = pc.or_(bad, pc.is_null(batch.column(c)))
    return batch.filter(pc.or_(bad, empty))


def refuse_arrow(batch: pa.Table, key_fields: list[str], required: list[str]) -> None:
    refuse(arrow_bad_rows(batch, key_fields, required).slice(0, SAMPLE).to_pylist(), key_fields, required)


def refuse(rows: list[dict], key_fields: list[str], required: list[str]) -> None:
    """Raises for the bad rows found (nothing when there are none)."""
    if not rows:
        return
    shown = "; ".join(str({c: r.get(c) for c in dict.fromkeys(key_fields + required)}) for r in rows[:SAMPLE])
    raise InputError(f"the input has rows with a null record key or an empty one ({', '.join(key_fields)})"
                     + (f" or a null in a non-nullable column ({', '.join(required)})" if required else "")
                     + f", e.g. {shown}; every record needs a key and the table's required values")


def check(df: DataFrame, key_fields: list[str], required: list[str]) -> None:
    """One job over the input: a few of its bad rows, refused."""
    refuse([r.asDict() for r in df.filter(bad_row(key_fields, required)).limit(SAMPLE).collect()],
           key_fields, required)
