"""What the metadata-table writer's steps (initialize, commit, catch_up, compaction, clean, reader, state) work
with: the data table's storage, paths and properties, the two timelines, the MDT's settings, and the base-file
footers read so far. `MetadataWriter` holds one and hands it to each step, so no step knows the writer."""
from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from pyhudi.metadata.data_timeline import DataTimeline
from pyhudi.metadata.layout import is_supported, metadata_path
from pyhudi.metadata.stats import columns_to_index, read_footer
from pyhudi.storage import Storage
from pyhudi.table import properties
from pyhudi.table.timeline import InstantTimeGenerator, Timeline


@dataclass
class MdtContext:
    storage: Storage
    base_path: str
    data_props: dict[str, str]  # the data table's hoodie.properties, updated in place by the writer
    file_group_counts: dict[str, int]
    bloom_type: str
    compression: str
    max_columns_to_index: int
    mdt_path: str = ""
    times: InstantTimeGenerator | None = None  # one generator for both timelines
    footers: dict[tuple[str, str], tuple] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.base_path = self.base_path.rstrip("/")
        self.mdt_path = metadata_path(self.base_path)
        self.times = self.times or InstantTimeGenerator.for_table(self.storage, self.base_path)

    def data_timeline(self) -> Timeline:
        return Timeline.for_table(self.storage, self.base_path, self.data_props)

    def mdt_timeline(self) -> Timeline:
        tl = Timeline(self.storage, self.mdt_path, 2, "timeline")
        assert self.times is not None  # __post_init__ set it
        tl.times = self.times  # MDT times interleave with data times
        return tl

    def partition_dirs(self) -> list[str]:
        """The MDT partition folders on storage (built, being built, or left by a build that died)."""
        return sorted(e.name for e in self.storage.list(self.mdt_path) if e.is_dir and is_supported(e.name))

    def is_partitioned(self) -> bool:
        return bool([f for f in (self.data_props.get(properties.PARTITION_FIELDS) or "").split(",") if f.strip()])

    def columns(self, data: DataTimeline, schema: str | None = None) -> list[str] | None:
        """The columns `column_stats` indexes, from `schema` or the table's latest one."""
        schema = schema or data.latest_schema() or self.data_props.get(properties.CREATE_SCHEMA)
        if not schema:
            return None
        populate = self.data_props.get(properties.POPULATE_META_FIELDS, "true").lower() != "false"
        return columns_to_index(schema, populate, self.max_columns_to_index)

    def footer(self, partition: str, name: str) -> tuple[str, str | None, str | None]:
        """(column stats, bloom Base64, bloom type) from a Parquet base file's footer, cached."""
        if (partition, name) not in self.footers:
            path = posixpath.join(self.base_path, partition, name)  # join drops an empty partition
            self.footers[(partition, name)] = read_footer(self.storage.fs, path)
        return self.footers[(partition, name)]
