"""hoodie.properties: Java Properties text, Hudi's checksum, table-version-8 defaults."""
from __future__ import annotations

import datetime as dt
import re
import zlib

from pyhudi.config import options
from pyhudi.errors import HudiError
from pyhudi.storage import Storage

PROPS_FILE = "hoodie.properties"
BACKUP_FILE = "hoodie.properties.backup"
TABLE_VERSION = 8

# Keys of hoodie.properties (Apache Hudi's HoodieTableConfig). Where a write option sets a
# property under the option's own key, the key comes from the option.
NAME = options.TABLE_NAME.key
DATABASE = options.DATABASE_NAME.key
TYPE = "hoodie.table.type"
VERSION = "hoodie.table.version"
INITIAL_VERSION = "hoodie.table.initial.version"
CHECKSUM_KEY = "hoodie.table.checksum"
TIMELINE_LAYOUT = "hoodie.timeline.layout.version"
TIMELINE_PATH = "hoodie.timeline.path"
HISTORY_PATH = "hoodie.timeline.history.path"
ARCHIVE_FOLDER = "hoodie.archivelog.folder"
RECORD_KEY_FIELDS = "hoodie.table.recordkey.fields"
PARTITION_FIELDS = "hoodie.table.partition.fields"
PRECOMBINE_FIELD = "hoodie.table.precombine.field"
ORDERING_FIELDS = options.ORDERING_FIELDS.key  # table version 9's name of the precombine field
KEYGEN_TYPE = "hoodie.table.keygenerator.type"
CREATE_SCHEMA = "hoodie.table.create.schema"
BASE_FILE_FORMAT = "hoodie.table.base.file.format"
MERGE_MODE = "hoodie.record.merge.mode"
MERGE_STRATEGY = "hoodie.record.merge.strategy.id"
PAYLOAD_CLASS = "hoodie.compaction.payload.class"
POPULATE_META_FIELDS = options.POPULATE_META_FIELDS.key
DROP_PARTITION_COLUMNS = options.DROP_PARTITION_COLUMNS.key
HIVE_STYLE = options.HIVE_STYLE.key
URL_ENCODE = options.URL_ENCODE.key
METADATA_PARTITIONS = "hoodie.table.metadata.partitions"
METADATA_PARTITIONS_INFLIGHT = "hoodie.table.metadata.partitions.inflight"

EVENT_TIME_MERGE_STRATEGY = "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5"
COMMIT_TIME_MERGE_STRATEGY = "ce9acb64-bde0-424c-9b91-f6ebba25356d"

REQUIRED_KEYS = (NAME, TYPE, VERSION)
TABLE_TYPES = ("COPY_ON_WRITE", "MERGE_ON_READ")


class TablePropertiesError(HudiError, ValueError):
    pass


class TableNotFoundError(TablePropertiesError):
    """Neither hoodie.properties nor its backup is there."""


class TableVersionError(HudiError, ValueError):
    """A write to a table of a version pyhudi reads but does not write (9: Apache Hudi 1.1 and later)."""


def check_writable(props: dict[str, str], where: str) -> dict[str, str]:
    """`props` when pyhudi may write the table they describe; else the error saying what to do. Every reader
    (hudi-meta, the timeline, index and metadata commands, the show_* procedures) reads versions 6, 8 and 9;
    only what would request an instant or change hoodie.properties asks this."""
    version = int(props.get(VERSION) or TABLE_VERSION)
    if version > TABLE_VERSION:
        raise TableVersionError(
            f"{where} is table version {version} (Apache Hudi 1.1 or later); pyhudi writes table version "
            f"{TABLE_VERSION} (Apache Hudi 1.0) and only reads it: write it with Apache Hudi, or downgrade it "
            f"there first: CALL downgrade_table(table => '<name>', to_version => 'EIGHT')")
    return props


# ---- Java Properties text ------------------------------------------------------------------

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_HEX = frozenset("0123456789abcdefABCDEF")


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
            digits = s[i + 2:i + 6]
            if len(digits) < 4 or any(d not in _HEX for d in digits):
                raise TablePropertiesError(f"malformed \\uxxxx encoding: {s[i:i + 6]!r}")  # as Java's Properties
            out.append(chr(int(digits, 16)))
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
    name = props.get(NAME)
    if not name:
        raise TablePropertiesError(f"{NAME} is required to compute {CHECKSUM_KEY}")
    db = props.get(DATABASE, "")
    return zlib.crc32(f"{db}.{name}".encode("utf-8"))


_JAVA_INT = re.compile(r"[+-]?\d+")  # what Java's Integer/Long.parseLong take (Unicode decimal digits too)
READ_VERSIONS = range(6, 10)  # the table versions the readers (and the connector's TableConfig) read


def _java_long(text: str) -> int | None:
    """Long.parseLong(text), None where it throws."""
    value = int(text) if _JAVA_INT.fullmatch(text) else None
    return value if value is not None and -(1 << 63) <= value < (1 << 63) else None


def validate(props: dict[str, str], where: str) -> None:
    """Apache Hudi's check of a loaded file (HoodieTableConfig.validateChecksum, asked by ConfigUtils
    .fetchConfigs only where the file has a checksum), then that it names a table this package reads."""
    stored = props.get(CHECKSUM_KEY)
    if stored is not None:
        if props.get(NAME) is None:
            raise TablePropertiesError(f"{where}: {CHECKSUM_KEY} is set but {NAME} is missing")
        crc_of = f"{props.get(DATABASE, '')}.{props[NAME]}"
        expected = zlib.crc32(crc_of.encode("utf-8"))
        if _java_long(stored) != expected:
            raise TablePropertiesError(f"{where}: {CHECKSUM_KEY}={stored} does not match {expected} (CRC32 of "
                                       f"'{crc_of}'): the file is corrupted or was edited by hand; restore it "
                                       "from hoodie.properties.backup")
    _check_table(props, where)


def _check_table(props: dict[str, str], where: str) -> None:
    missing = [k for k in REQUIRED_KEYS if not props.get(k, "").strip()]
    if missing:
        raise TablePropertiesError(f"{where}: missing required key(s) {', '.join(missing)}")
    if props[TYPE].strip() not in TABLE_TYPES:
        raise TablePropertiesError(f"{where}: {TYPE}={props[TYPE]!r} is not one of {', '.join(TABLE_TYPES)}")
    version = _java_long(props[VERSION].strip())
    if version is None:
        raise TablePropertiesError(f"{where}: {VERSION}={props[VERSION]!r} is not a number")
    if version not in READ_VERSIONS:
        raise TablePropertiesError(f"{where}: {VERSION} is {version}; pyhudi reads table versions "
                                   f"{READ_VERSIONS[0]} to {READ_VERSIONS[-1]}")
    if TIMELINE_LAYOUT in props and _java_long(props[TIMELINE_LAYOUT].strip()) is None:
        raise TablePropertiesError(f"{where}: {TIMELINE_LAYOUT}={props[TIMELINE_LAYOUT]!r} is not a number")


def v8_defaults(table_name: str, table_type: str, record_key_fields: list[str],
                partition_fields: list[str], ordering_field: str | None, create_schema: str,
                key_generator_type: str, hive_style: bool, url_encode: bool,
                database: str = "default") -> dict[str, str]:
    """The properties Apache Hudi 1.0 writes when it creates a version-8 table. `partition_fields`
    are recorded as given (the custom key generator's keep their `:SIMPLE`/`:TIMESTAMP` type)."""
    event_time = ordering_field is not None
    props = {
        NAME: table_name,
        DATABASE: database,
        TYPE: table_type,
        VERSION: str(TABLE_VERSION),
        INITIAL_VERSION: str(TABLE_VERSION),
        TIMELINE_LAYOUT: "2",
        TIMELINE_PATH: "timeline",
        HISTORY_PATH: "history",
        ARCHIVE_FOLDER: "archived",
        RECORD_KEY_FIELDS: ",".join(record_key_fields),
        KEYGEN_TYPE: key_generator_type,
        CREATE_SCHEMA: create_schema,
        MERGE_MODE: "EVENT_TIME_ORDERING" if event_time else "COMMIT_TIME_ORDERING",
        MERGE_STRATEGY: EVENT_TIME_MERGE_STRATEGY if event_time else COMMIT_TIME_MERGE_STRATEGY,
        PAYLOAD_CLASS: ("org.apache.hudi.common.model.DefaultHoodieRecordPayload" if event_time
                        else "org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"),
        DROP_PARTITION_COLUMNS: "false",
        HIVE_STYLE: str(hive_style).lower(),
        URL_ENCODE: str(url_encode).lower(),
    }
    if partition_fields:
        props[PARTITION_FIELDS] = ",".join(partition_fields)
    if ordering_field:
        props[PRECOMBINE_FIELD] = ordering_field
    props[CHECKSUM_KEY] = str(checksum(props))
    return props


def exists(storage: Storage, base_path: str) -> bool:
    """A table is there once hoodie.properties is, or its backup (an update between its two writes), as the
    connector's TableConfig.exists sees it (the conformance tests' table_config.json pins both)."""
    hoodie = f"{base_path}/.hoodie"
    return storage.exists(f"{hoodie}/{PROPS_FILE}") or storage.exists(f"{hoodie}/{BACKUP_FILE}")


def load(storage: Storage, base_path: str) -> dict[str, str]:
    """<base>/.hoodie/hoodie.properties, or its backup when the main file is missing or cannot be used (a crash
    between an update's writes leaves the backup). A file stands when Apache Hudi reads it (ConfigUtils
    .fetchConfigs: it loads as Java Properties and its hoodie.table.checksum, if any, validates) and it names a
    table (validate), which Hudi does not ask: an empty or torn file without the checksum line is passed over
    here, read by Hudi. The connector's TableConfig reads the same file (the conformance tests'
    table_config.json)."""
    hoodie = f"{base_path}/.hoodie"
    problems: dict[str, str] = {}  # file -> why it cannot be used
    for name in (PROPS_FILE, BACKUP_FILE):
        path = f"{hoodie}/{name}"
        if not storage.exists(path):
            continue
        try:
            props = parse(storage.read(path).decode("latin-1"))
        except TablePropertiesError as e:
            problems[name] = f"{path} is not a valid properties file: {e}"
            continue
        try:
            validate(props, path)
            return props
        except TablePropertiesError as e:
            problems[name] = str(e)
    if not problems:
        raise TableNotFoundError(f"no Hudi table at {base_path}: {hoodie}/{PROPS_FILE} not found")
    if PROPS_FILE not in problems:
        raise TablePropertiesError(problems[BACKUP_FILE])
    tail = "is invalid too" if BACKUP_FILE in problems else "is missing: nothing to fall back to"
    raise TablePropertiesError(f"{problems[PROPS_FILE]} (and {BACKUP_FILE} {tail})")


def save(storage: Storage, base_path: str, props: dict[str, str], updated: bool = False) -> None:
    """Write hoodie.properties; an update first saves a backup, as Hudi does, so a crash
    between the two writes leaves a readable copy."""
    props = dict(props)
    props[CHECKSUM_KEY] = str(checksum(props))
    validate(props, PROPS_FILE)
    hoodie = f"{base_path}/.hoodie"
    text = format_text(props, updated=updated).encode("latin-1")
    if updated:
        storage.write(f"{hoodie}/{BACKUP_FILE}", text)
    storage.write(f"{hoodie}/{PROPS_FILE}", text)
    if updated:
        storage.delete(f"{hoodie}/{BACKUP_FILE}")
