"""The Index seam: what a write asks of the index that tags its records, modelled on Apache Hudi's
`HoodieIndex` (isGlobal, canIndexLogFiles, tagLocation, updateLocation). One subclass per index type, each in
its own module; `pyhudi.write.index.of` picks one from the write's configuration. The write client asks the
index and never its type's name."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, ClassVar

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession

from pyhudi.table.file_slices import FileSlice
from pyhudi.write.config import WriteConfig

Hits = dict[tuple[str, str], str]  # (record key, partition) -> the file group holding it


@dataclass
class Lookup:
    """What tagging a batch asks of the write: the table, the keyed batch, the latest slices of the partitions
    it touches, and the bloom filters the metadata table holds of them (fetched only when asked)."""
    spark: SparkSession
    path: str
    options: dict[str, str]
    incoming: DataFrame
    slices: list[FileSlice]
    partitions: list[str] | None
    records: int
    mdt_filters: Callable[[], dict[str, dict[str, dict]]] = field(default=dict)


class Index:
    """An index type's facts and its part in a write (the defaults are those of an index that reads the
    table's keys from its files, partition by partition)."""
    name: ClassVar[str]  # its hoodie.index.type
    is_global: ClassVar[bool] = False  # a key lives in one partition of the whole table (Hudi's isGlobal)
    learns_positions: ClassVar[bool] = False  # finds keys by reading files, so learns their row positions
    hashes_keys: ClassVar[bool] = False  # a key's file group follows from its hash: no lookup, no placement
    tags_in_driver: ClassVar[bool] = False  # a small batch may be tagged in the driver (write.small_batch)

    def __init__(self, cfg: WriteConfig):
        self.cfg = cfg
        self.check()

    def check(self) -> None:
        """Refuses options this index cannot work with, before anything is written."""

    def can_index_log_files(self) -> bool:
        """Hudi's canIndexLogFiles: the index finds keys in log files, so merge-on-read inserts into existing
        file groups may go to their log files."""
        return False

    @property
    def inserts_to_logs(self) -> bool:
        return self.cfg.table_type == "MERGE_ON_READ" and self.can_index_log_files()

    @property
    def writes_positions(self) -> bool:
        """Log blocks carry record positions when the index learns them from the keys it reads (as Hudi: the
        bucket and record indexes read no base file, which the positions would cost a read of each)."""
        return self.cfg.record_positions and self.learns_positions

    @property
    def writes_key_summaries(self) -> bool:
        """Log blocks carry the key summaries (bloom filter, key range) this index looks keys up by."""
        return False

    @property
    def moves_records(self) -> bool:
        """Under a global index: an upsert whose partition changed moves its record there (Hudi's
        update.partition.path options), else it stays in the partition its key lives in."""
        return False

    def metadata_partitions(self) -> tuple[str, ...]:
        """The metadata-table partitions this index reads, which every write then keeps."""
        return ()

    def table_properties(self) -> dict[str, str]:
        """What a table created with this index records in hoodie.properties."""
        return {}

    # ---- planning ------------------------------------------------------------------------------------
    def keyed(self, spark: SparkSession, keyed: DataFrame) -> DataFrame:
        """The keyed batch with what this index adds to each row before the write reads it."""
        return keyed

    def located(self, spark: SparkSession, path: str, options: dict[str, str], props: dict[str, str],
                incoming: DataFrame) -> DataFrame | None:
        """(_hudi_k, _hudi_p, FG) of the batch's keys the index holds, looked up before the write knows which
        partitions it touches (None: this index learns that while tagging). Asked when the write looks for
        existing keys and the table has commits; `props`: its hoodie.properties."""
        return None

    def driver_hits(self, spark: SparkSession, path: str, options: dict[str, str], props: dict[str, str],
                    batch: pa.Table, finds: bool) -> tuple[bool, Hits | None]:
        """Whether a small batch may be tagged in the driver, and where the index holds its keys (None: the
        touched slices' keys are read there instead). `props`: the table's hoodie.properties; `finds`: the
        write looks for existing keys and the table has commits."""
        return True, None

    # ---- tagging (Hudi's tagLocation) ----------------------------------------------------------------
    def existing_keys(self, lookup: Lookup) -> DataFrame:
        """(_hudi_k, _hudi_p, FG) of the records the table holds where the batch may find its keys."""
        raise NotImplementedError

    def buckets(self, slices: list[FileSlice]) -> dict[tuple[str, int], str]:
        """(partition, bucket) -> file id of the slices' buckets, under an index that hashes keys."""
        return {}

    def place(self, spark: SparkSession, incoming: DataFrame, existing: dict[tuple[str, int], str],
              instant: str, fixed_ids: bool) -> DataFrame:
        """The batch tagged and placed at once (FG, OP), by an index that hashes keys to file groups."""
        raise NotImplementedError(f"{self.name} finds file groups by looking keys up, not by hashing them")

    def lookup_counts(self) -> dict[str, int] | None:
        """What the last lookup checked and skipped, for the write's log (None: nothing counted)."""
        return None

    def release(self) -> None:
        """Drops what the index cached for this write."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name})"

