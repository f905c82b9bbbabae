"""The errors of the metadata-table package."""
from pyhudi.errors import HudiError


class MetadataRecordError(HudiError, ValueError):
    """A record, key or value the metadata table cannot hold, or bytes that do not decode."""


class MetadataTableError(HudiError, RuntimeError):
    """An operation on the metadata table that cannot be done in its current state."""


class MetadataDamagedError(MetadataTableError):
    """A file of the metadata table a completed instant wrote does not read: the partition must be built again."""


def damaged(mdt_path: str, partition: str, name: str, problem: object) -> MetadataDamagedError:
    """The error naming the damaged file and the repair (the same words as the connector's MetadataDamage)."""
    base = mdt_path.rsplit("/.hoodie/metadata", 1)[0]
    return MetadataDamagedError(f"metadata table partition '{partition}' is damaged: {name} ({problem}); repair it "
                                f"with: pyhudi metadata repair {base} --partition {partition}")
