"""The errors of the metadata-table package."""
from pyhudi.errors import HudiError


class MetadataRecordError(HudiError, ValueError):
    """A record, key or value the metadata table cannot hold, or bytes that do not decode."""


class MetadataTableError(HudiError, RuntimeError):
    """An operation on the metadata table that cannot be done in its current state."""
