"""Spark's save modes on a Hudi table: `df.write.format("hudi-meta").mode(...)`, and every write that comes
through the connector (the callback, SQL, the streaming sink), with Apache Hudi's meaning of each mode."""
from __future__ import annotations

import json

from pyhudi.config import options as o
from pyhudi.services import inline
from pyhudi.storage import Storage
from pyhudi.table import properties, write_stat
from pyhudi.write.client import HudiWriteError
from pyhudi.write.config import WriteOptionError

SAVE_MODES = ("append", "overwrite", "errorifexists", "ignore")


def write_dataframe(spark, df, path: str, options: dict[str, str], mode: str) -> write_stat.Counts | None:
    """Write `df` to the table at `path` with Hudi options, under a Spark SaveMode name
    ("append", "overwrite", "errorifexists", "ignore"), with Apache Hudi's meaning of each; what the commit
    did (None when the mode wrote nothing)."""
    mode = mode.lower()
    if mode not in SAVE_MODES:
        raise WriteOptionError(f"save mode {mode!r} is not valid; valid values: {', '.join(SAVE_MODES)}")
    options = {k: v for k, v in options.items() if k != "path"}
    by = options.pop("__partition_columns", None)  # df.write.partitionBy(...), as Spark passes it
    if by and json.loads(by):
        options.setdefault(o.PARTITION_FIELDS.key, ",".join(json.loads(by)))
    storage, base = Storage.for_uri(path)
    exists = properties.exists(storage, base)
    if exists and mode == "errorifexists":
        raise HudiWriteError(f"table already exists at {path}; use mode('append') to add to it or "
                             "mode('overwrite') to replace its contents")
    if exists and mode == "ignore":
        return None
    if mode == "overwrite":
        options[o.OPERATION.key] = "insert_overwrite_table"
        if exists:  # Hudi checks no option against the table's when the save mode is Overwrite
            options.pop(o.TABLE_NAME.key, None)
    return inline.write(spark, path, options, df)
