"""hoodie.properties: Java Properties text, Hudi's checksum, table-version-8 defaults."""
from __future__ import annotations

import datetime as dt
import zlib

from pyhudi.storage import Storage

PROPS_FILE = "hoodie.properties"
BACKUP_FILE = "hoodie.properties.backup"
CHECKSUM_KEY = "hoodie.table.checksum"
TABLE_VERSION = 8

EVENT_TIME_MERGE_STRATEGY = "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5"
COMMIT_TIME_MERGE_STRATEGY = "ce9acb64-bde0-424c-9b91-f6ebba25356d"

REQUIRED_KEYS = ("hoodie.table.name", "hoodie.table.type", "hoodie.table.version")
TABLE_TYPES = ("COPY_ON_WRITE", "MERGE_ON_READ")


class TablePropertiesError(ValueError):
    pass


# ---- Java Properties text ------------------------------------------------------------------

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _logical_lines(text: str):
    """Join continuation lines (odd number of trailing backslashes) and drop comments."""
    pending = ""
    for raw in text.splitlines():
        line = raw.lstrip()
        if not pending and (not line or line[0] in "#!"):
            continue
        trailing = len(line) - len(line.rstrip("\\"))
        if trailing % 2 == 1:
            pending += line[:-1]
            continue
        yield pending + line
        pending = ""
    if pending:
        yield pending


def _unescape(s: str) -> str:
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c != "\\" or i + 1 == len(s):
            out.append(c)
            i += 1
            continue
        n = s[i + 1]
        if n == "u":
            out.append(chr(int(s[i + 2:i + 6], 16)))
            i += 6
            continue
        out.append(_ESCAPES.get(n, n))
        i += 2
    # \uXXXX escapes of characters beyond the BMP come as UTF-16 surrogate pairs: join them
    return "".join(out).encode("utf-16-be", "surrogatepass").decode("utf-16-be")


def _split_key(line: str) -> tuple[str, str]:
    i = 0
    while i < len(line):
        c = line[i]
        if c == "\\":
            i += 2
            continue
        if c in "=: \t\f":
            break
        i += 1
    key, rest = line[:i], line[i:].lstrip(" \t\f")
    if rest[:1] in ("=", ":"):
        rest = rest[1:].lstrip(" \t\f")
    return key, rest


def parse(text: str) -> dict[str, str]:
    props = {}
    for line in _logical_lines(text):
        key, value = _split_key(line)
        props[_unescape(key)] = _unescape(value)
    return props


def _escape(s: str, is_key: bool) -> str:
    out = []
    for i, c in enumerate(s):
        if c == " " and (is_key or i == 0):
            out.append("\\ ")
        elif c in "\\=:#!":
            out.append("\\" + c)
        elif c in "\t\n\r\f":
            out.append("\\" + {"\t": "t", "\n": "n", "\r": "r", "\f": "f"}[c])
        elif ord(c) < 0x20 or ord(c) > 0x7E:
            out.extend(f"\\u{b:04X}" for b in _utf16_units(c))
        else:
            out.append(c)
    return "".join(out)


def _utf16_units(c: str):
    data = c.encode("utf-16-be")
    return [int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2)]


def format_text(props: dict[str, str], now: dt.datetime | None = None, updated: bool = False) -> str:
    """Properties text as java.util.Properties.store writes it (keys sorted for stable diffs)."""
    now = now or dt.datetime.now(dt.timezone.utc)
    first = "#Updated at " if updated else "#Properties saved on "
    lines = [first + now.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
             "#" + now.strftime("%a %b %d %H:%M:%S UTC %Y")]
    lines += [f"{_escape(k, True)}={_escape(v, False)}" for k, v in sorted(props.items())]
    return "\n".join(lines) + "\n"


# ---- Hudi table config ----------------------------------------------------------------------

def checksum(props: dict[str, str]) -> int:
    """CRC32 of "<database>.<table>", the value Hudi stores under hoodie.table.checksum."""
    name = props.get("hoodie.table.name")
    if not name:
        raise TablePropertiesError("hoodie.table.name is required to compute hoodie.table.checksum")
    db = props.get("hoodie.database.name", "")
    return zlib.crc32(f"{db}.{name}".encode("utf-8"))


def validate(props: dict[str, str], where: str) -> None:
    missing = [k for k in REQUIRED_KEYS if not props.get(k)]
    if missing:
        raise TablePropertiesError(f"{where}: missing required key(s) {', '.join(missing)}")
    if props["hoodie.table.type"] not in TABLE_TYPES:
        raise TablePropertiesError(f"{where}: hoodie.table.type={props['hoodie.table.type']!r} "
                                   f"is not one of {', '.join(TABLE_TYPES)}")
    if not props["hoodie.table.version"].isdigit():
        raise TablePropertiesError(f"{where}: hoodie.table.version={props['hoodie.table.version']!r} "
                                   "is not a number")
    stored = props.get(CHECKSUM_KEY)
    if stored is not None and stored != str(checksum(props)):
        raise TablePropertiesError(f"{where}: {CHECKSUM_KEY}={stored} does not match {checksum(props)} "
                                   "(CRC32 of '<database>.<table name>'): the file is corrupted or was "
                                   "edited by hand; restore it from hoodie.properties.backup")


def v8_defaults(table_name: str, table_type: str, record_key_fields: list[str],
                partition_fields: list[str], ordering_field: str | None, create_schema: str,
                key_generator_type: str, hive_style: bool, url_encode: bool,
                database: str = "default") -> dict[str, str]:
    """The properties Apache Hudi 1.0 writes when it creates a version-8 table."""
    event_time = ordering_field is not None
    props = {
        "hoodie.table.name": table_name,
        "hoodie.database.name": database,
        "hoodie.table.type": table_type,
        "hoodie.table.version": str(TABLE_VERSION),
        "hoodie.table.initial.version": str(TABLE_VERSION),
        "hoodie.timeline.layout.version": "2",
        "hoodie.timeline.path": "timeline",
        "hoodie.timeline.history.path": "history",
        "hoodie.archivelog.folder": "archived",
        "hoodie.table.recordkey.fields": ",".join(record_key_fields),
        "hoodie.table.keygenerator.type": key_generator_type,
        "hoodie.table.create.schema": create_schema,
        "hoodie.record.merge.mode": "EVENT_TIME_ORDERING" if event_time else "COMMIT_TIME_ORDERING",
        "hoodie.record.merge.strategy.id": EVENT_TIME_MERGE_STRATEGY if event_time else COMMIT_TIME_MERGE_STRATEGY,
        "hoodie.compaction.payload.class": ("org.apache.hudi.common.model.DefaultHoodieRecordPayload" if event_time
                                            else "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"),
        "hoodie.datasource.write.drop.partition.columns": "false",
        "hoodie.datasource.write.hive_style_partitioning": str(hive_style).lower(),
        "hoodie.datasource.write.partitionpath.urlencode": str(url_encode).lower(),
    }
    if partition_fields:
        props["hoodie.table.partition.fields"] = ",".join(partition_fields)
    if ordering_field:
        props["hoodie.table.precombine.field"] = ordering_field
    props[CHECKSUM_KEY] = str(checksum(props))
    return props


def load(storage: Storage, base_path: str) -> dict[str, str]:
    """Read and validate <base>/.hoodie/hoodie.properties (the backup when the main is gone)."""
    hoodie = f"{base_path}/.hoodie"
    for name in (PROPS_FILE, BACKUP_FILE):
        path = f"{hoodie}/{name}"
        if storage.exists(path):
            props = parse(storage.read(path).decode("latin-1"))
            validate(props, path)
            return props
    raise TablePropertiesError(f"no Hudi table at {base_path}: {hoodie}/{PROPS_FILE} not found")


def save(storage: Storage, base_path: str, props: dict[str, str], updated: bool = False) -> None:
    """Write hoodie.properties; an update first saves a backup, as Hudi does, so a crash
    between the two writes leaves a readable copy."""
    props = dict(props)
    props[CHECKSUM_KEY] = str(checksum(props))
    validate(props, "hoodie.properties")
    hoodie = f"{base_path}/.hoodie"
    text = format_text(props, updated=updated).encode("latin-1")
    if updated:
        storage.write(f"{hoodie}/{BACKUP_FILE}", text)
    storage.write(f"{hoodie}/{PROPS_FILE}", text)
    if updated:
        storage.delete(f"{hoodie}/{BACKUP_FILE}")
