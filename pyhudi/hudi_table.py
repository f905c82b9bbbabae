"""pyhudi.HudiTable: the Python API of the writer and the table services."""
from __future__ import annotations

from pyhudi.config import options as o
from pyhudi.services import inline


class HudiTable:
    """A Hudi table at `path`. Options are Apache Hudi's keys; those given here apply to every
    write, those given to a method to that write only. Each method returns the instant time of
    the commit it made."""

    def __init__(self, spark, path: str, options: dict[str, str] | None = None, **kwargs: str):
        self.spark = spark
        self.path = path
        self.options = {**(options or {}), **kwargs}

    def _write(self, operation: str, df, options: dict[str, str] | None) -> str:
        opts = {**self.options, **(options or {}), o.OPERATION.key: operation}
        return inline.write(self.spark, self.path, opts, df).instant

    def upsert(self, df, options=None) -> str:
        return self._write("upsert", df, options)

    def insert(self, df, options=None) -> str:
        return self._write("insert", df, options)

    def bulk_insert(self, df, options=None) -> str:
        return self._write("bulk_insert", df, options)

    def delete(self, df, options=None) -> str:
        """Deletes the records whose keys `df` holds (only the key and partition columns are used)."""
        return self._write("delete", df, options)

    def insert_overwrite(self, df, options=None) -> str:
        """Replaces the partitions `df` writes to with `df`'s records."""
        return self._write("insert_overwrite", df, options)

    def insert_overwrite_table(self, df, options=None) -> str:
        """Replaces the whole table's contents with `df`'s records."""
        return self._write("insert_overwrite_table", df, options)

    def delete_partition(self, partitions: list[str], options=None) -> str:
        """Drops whole partitions (given as partition paths, e.g. ["region=eu"])."""
        opts = {**(options or {}), o.PARTITIONS_TO_DELETE.key: ",".join(partitions)}
        return self._write("delete_partition", None, opts)

    # ---- table services (one block per service) --------------------------------------------
    # compaction
    def compact(self, instant: str | None = None, schedule_only: bool = False, options=None) -> list[str]:
        """Runs pending compactions (or `instant`), scheduling one when none is pending; returns their
        instant times (pyhudi.services.compaction)."""
        from pyhudi.services import compaction
        return compaction.compact(self.spark, self.path, {**self.options, **(options or {})}, instant=instant,
                                  schedule_only=schedule_only)

    # log compaction
    def log_compact(self, instant: str | None = None, schedule_only: bool = False, options=None) -> list[str]:
        """Runs pending log compactions (or `instant`), scheduling one when none is pending; returns their
        instant times (pyhudi.services.log_compaction)."""
        from pyhudi.services import log_compaction
        return log_compaction.log_compact(self.spark, self.path, {**self.options, **(options or {})},
                                          instant=instant, schedule_only=schedule_only)

    # clean
    def clean(self, options=None) -> str | None:
        """Deletes the file versions no reader needs any more, by hoodie.cleaner.policy; returns the clean's
        instant time, or None when there was nothing to clean (pyhudi.services.clean)."""
        from pyhudi.services import clean
        done = clean.clean(self.path, {**self.options, **(options or {})})
        return done.requested_time if done else None

    # archival
    def archive(self, options=None) -> list[str]:
        """Moves old instants from the active timeline into the timeline history, by hoodie.keep.min.commits
        and hoodie.keep.max.commits; returns the requested times of the archived instants
        (pyhudi.services.archival)."""
        from pyhudi.services import archival
        return [i.requested_time for i in archival.archive(self.path, {**self.options, **(options or {})})]

    # savepoint, restore
    def savepoint(self, instant: str | None = None, user: str = "", comments: str = "") -> str:
        """Savepoints the completed commit `instant` (default: the latest), so the table can be restored to
        it; returns its instant time (pyhudi.services.savepoint)."""
        from pyhudi.services import savepoint
        return savepoint.create(self.path, instant, user, comments).requested_time

    def savepoints(self) -> list[str]:
        """Instant times of the table's savepoints, oldest first."""
        from pyhudi.services import savepoint
        return [s.instant for s in savepoint.list_savepoints(self.path)]

    def delete_savepoint(self, instant: str) -> None:
        from pyhudi.services import savepoint
        savepoint.delete(self.path, instant)

    def restore(self, instant: str) -> str:
        """Restores the table to its savepoint at `instant`: every instant after it is rolled back; returns
        the restore's instant time (pyhudi.services.restore)."""
        from pyhudi.services import restore
        return restore.restore(self.path, instant, spark=self.spark).requested_time

    # clustering
    def cluster(self, instant: str | None = None, schedule_only: bool = False, options=None) -> list[str]:
        """Runs pending clusterings (or `instant`), scheduling one when none is pending; returns their
        instant times (pyhudi.services.clustering)."""
        from pyhudi.services import clustering
        return clustering.cluster(self.spark, self.path, {**self.options, **(options or {})}, instant=instant,
                                  schedule_only=schedule_only)


    def read(self, **read_options):
        return self.spark.read.format("hudi-meta").options(**read_options).load(self.path)
