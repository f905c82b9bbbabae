"""Secondary indexes in the metadata table (Apache Hudi 1.0, table version 8: the V1 layout): one
`secondary_index_<name>` partition per index, each entry keyed `escape(value) + "$" + escape(record key)`
with an empty payload (type 7, `isDeleted` false); a key whose value changes or that is deleted goes to a
delete block. Keys go to file groups by the Java hash of the whole key, as in the record index
(docs/format.md §7.5-7.6). What the files hold; the Spark jobs that write them are in
`pyhudi.write.secondary_index`."""
from __future__ import annotations

from pyhudi.errors import HudiError
from pyhudi.metadata import contents
from pyhudi.metadata.keys import SECONDARY_INDEX_PREFIX, is_secondary_index
from pyhudi.metadata.records import TYPE_SECONDARY_INDEX, MetadataRecord

SEPARATOR = "$"
ESCAPE = "\\"
NULL_VALUE = "\0"  # the value part of a null value's entries, as Apache Hudi 1.1 (table version 9) writes them


class SecondaryIndexNameError(HudiError, ValueError):
    pass


def partition_of(name: str) -> str:
    """The MDT partition of index `name` (`rider_idx` or `secondary_index_rider_idx`)."""
    part = name if name.startswith(SECONDARY_INDEX_PREFIX) else SECONDARY_INDEX_PREFIX + name
    if not is_secondary_index(part) or not all(c.isalnum() or c == "_" for c in part):
        raise SecondaryIndexNameError(f"{name!r} is not a valid index name: use letters, digits and '_'")
    return part


def escape(text: str) -> str:
    """`\\` before every `\\` and `$`, so the first unescaped `$` separates the value from the key."""
    return text.replace(ESCAPE, ESCAPE * 2).replace(SEPARATOR, ESCAPE + SEPARATOR)


def unescape(text: str) -> str:
    """Each `\\` stands for the character after it; a lone `\\` at the end stands for nothing (Apache Hudi's
    SecondaryIndexKeyUtils.unescapeSpecialChars)."""
    out, i = [], 0
    while i < len(text):
        if text[i] == ESCAPE:
            i += 1
        if i < len(text):
            out.append(text[i])
        i += 1
    return "".join(out)


def entry_key(value_text: str, record_key: str) -> str:
    return escape(value_text) + SEPARATOR + escape(record_key)


def value_prefix(value_text: str) -> str:
    """What every entry of one value starts with: its entry key with an empty record key."""
    return escape(value_text) + SEPARATOR


def split_key(key: str) -> tuple[str, str]:
    """(value text, record key) of an entry key."""
    i = 0
    while i < len(key):
        if key[i] == ESCAPE:
            i += 2
            continue
        if key[i] == SEPARATOR:
            return unescape(key[:i]), unescape(key[i + 1:])
        i += 1
    raise SecondaryIndexNameError(f"{key!r} is not a secondary-index key: it has no unescaped '$'")


def entry(key: str) -> MetadataRecord:
    return MetadataRecord(key, TYPE_SECONDARY_INDEX, secondary_index={"isDeleted": False})


def log_file(partition: str, keys: list[str], deletes: list[str], instant: str, compression: str) -> bytes:
    """A log file of one deltacommit: an HFile block of the entries added, a delete block of those gone
    (an entry the same commit adds again is not deleted)."""
    added = sorted(set(keys), key=lambda k: k.encode("utf-8"))
    kept = set(added)
    return contents.log_blocks(partition, [entry(k) for k in added],
                               [k for k in dict.fromkeys(deletes) if k not in kept], instant, compression)


def base_file(keys: list[str], file_name: str, compression: str) -> bytes:
    return contents.base_hfile([entry(k) for k in sorted(set(keys), key=lambda k: k.encode("utf-8"))], file_name,
                               compression)
