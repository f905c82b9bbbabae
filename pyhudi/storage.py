"""Storage access for the writer, over pyarrow.fs (local disk, HDFS, S3).

Only what the write protocol needs: whole-file and ranged reads (metadata-table lookups read
only the HFile blocks they need), whole-file writes, listing one directory, and an atomic
create-if-absent used to publish completed instants and to take locks. Each store does the
create-if-absent with its own conditional primitive (docs/architecture.md, "The seams"): link(2)
on local disk, rename on HDFS (it refuses an existing target), a PUT with `If-None-Match: *` on S3. A
store with none of these is refused for commits rather than given an exists-then-write race.
"""
from __future__ import annotations

import os
import posixpath
import struct
import uuid
import zlib
from dataclasses import dataclass

import pyarrow.fs as pafs

from pyhudi import object_store
from pyhudi.errors import HudiError

HADOOP_CRC_CHUNK = 512  # bytes a checksum of Hadoop's .crc files covers (file.bytes-per-checksum)


class StorageError(HudiError, OSError):
    pass


class AlreadyExists(StorageError):
    pass


@dataclass(frozen=True)
class Entry:
    name: str
    size: int
    is_dir: bool
    mtime_ns: int | None = None  # when the file system reports it


class Storage:
    """A table's storage: paths are absolute within the file system `fs`."""

    def __init__(self, fs: pafs.FileSystem, local: bool, uri: str | None = None,
                 s3: object_store.S3Settings | None = None):
        self.fs = fs
        self.local = local
        self.uri = uri  # the URI the storage was opened with, as Spark and the connector take it
        self.s3 = s3  # how to reach the bucket, on S3: its conditional PUT goes through boto3

    @classmethod
    def for_uri(cls, uri: str) -> tuple["Storage", str]:
        """(storage, path) for a local path or a URI such as s3a://bucket/table, hdfs://nn/table."""
        if uri.startswith("file:") and not uri.startswith("file://"):
            uri = uri[len("file:"):]  # Hadoop's form of a local path (Spark's catalog locations)
        if "://" not in uri:
            return cls(pafs.LocalFileSystem(), True), os.path.abspath(uri)
        if uri.split("://", 1)[0].lower() in object_store.SCHEMES:
            settings, path = object_store.settings_for(uri)
            return cls(object_store.filesystem(settings), False, uri, settings), path
        fs, path = pafs.FileSystem.from_uri(uri)
        return cls(fs, isinstance(fs, pafs.LocalFileSystem), uri), path

    def exists(self, path: str) -> bool:
        return self.fs.get_file_info(path).type != pafs.FileType.NotFound

    def is_dir(self, path: str) -> bool:
        return self.fs.get_file_info(path).type == pafs.FileType.Directory

    def read(self, path: str) -> bytes:
        try:
            with self.fs.open_input_stream(path) as f:
                return f.read()
        except FileNotFoundError as e:
            raise FileNotFoundError(f"{path} does not exist") from e

    def size(self, path: str) -> int:
        info = self.fs.get_file_info(path)
        if info.type == pafs.FileType.NotFound:
            raise FileNotFoundError(f"{path} does not exist")
        return info.size

    def read_range(self, path: str, offset: int, length: int) -> bytes:
        """`length` bytes from `offset` (fewer at the end of the file): a ranged GET on S3."""
        try:
            with self.fs.open_input_file(path) as f:
                return f.read_at(length, offset)
        except FileNotFoundError as e:
            raise FileNotFoundError(f"{path} does not exist") from e

    def write(self, path: str, data: bytes) -> None:
        """Write a whole file, replacing it (readers of the old content see it whole or not at all
        on local disk, where we go through a rename)."""
        if self.s3 is None:  # an object store has no folders to make: a marker object would cost requests
            self.fs.create_dir(posixpath.dirname(path), recursive=True)
        if self.local:
            tmp = f"{path}.{uuid.uuid4().hex}.tmp"
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
            _refresh_hadoop_crc(path, data)
            return
        try:
            with self.fs.open_output_stream(path) as f:
                f.write(data)
        except OSError as e:
            if self.s3 is None:
                raise
            raise StorageError(f"could not write s3://{path} after {self.s3.attempts + 1} attempts: {e}; a "
                               "store that throttles (503 SlowDown) or fails asks for a retry later, or more "
                               "attempts (fs.s3a.attempts.maximum)") from e

    def create_if_absent(self, path: str, data: bytes) -> None:
        """Publish `data` at `path` atomically; AlreadyExists if something is there."""
        if self.local:
            self.fs.create_dir(posixpath.dirname(path), recursive=True)
            self._link_if_absent(path, data)
        elif self.fs.type_name == "hdfs":
            self.fs.create_dir(posixpath.dirname(path), recursive=True)
            self._rename_if_absent(path, data)
        elif self.s3 is not None:
            self._put_if_absent(path, data)
        else:
            raise StorageError(f"{self.fs.type_name} storage has no atomic create-if-absent, which commits and "
                               "locks rely on; keep the table on local disk, HDFS or S3")

    def _link_if_absent(self, path: str, data: bytes) -> None:
        tmp = f"{path}.{uuid.uuid4().hex}.tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        try:
            os.link(tmp, path)  # link(2) fails if the target exists: no overwrite window
        except FileExistsError as e:
            raise AlreadyExists(f"{path} already exists") from e
        finally:
            os.unlink(tmp)

    def _put_if_absent(self, path: str, data: bytes) -> None:
        assert self.s3 is not None
        try:
            written = object_store.put_if_absent(self.s3, path, data)
        except ImportError as e:
            raise StorageError(str(e)) from e
        if not written:
            raise AlreadyExists(f"s3://{path} already exists")

    def _rename_if_absent(self, path: str, data: bytes) -> None:
        tmp = posixpath.join(posixpath.dirname(path), f".{posixpath.basename(path)}.{uuid.uuid4().hex}.tmp")
        with self.fs.open_output_stream(tmp) as f:
            f.write(data)
        try:
            self.fs.move(tmp, path)  # HDFS rename fails when the target exists
        except OSError as e:
            self.delete(tmp)
            if self.exists(path):
                raise AlreadyExists(f"{path} already exists") from e
            raise

    def list(self, path: str) -> list[Entry]:
        """Entries of one directory; [] when it does not exist."""
        selector = pafs.FileSelector(path, allow_not_found=True, recursive=False)
        return [Entry(i.base_name, i.size or 0, i.type == pafs.FileType.Directory, i.mtime_ns)
                for i in self.fs.get_file_info(selector)]

    def delete(self, path: str) -> None:
        info = self.fs.get_file_info(path)
        if info.type == pafs.FileType.Directory:
            self.fs.delete_dir(path)
        elif info.type != pafs.FileType.NotFound:
            self.fs.delete_file(path)

    def mkdirs(self, path: str) -> None:
        self.fs.create_dir(path, recursive=True)


def _refresh_hadoop_crc(path: str, data: bytes) -> None:
    """Hadoop's local file system (Apache Hudi's on local disk) keeps a `.<name>.crc` beside each file it writes
    and refuses to read the file when it no longer matches: a file pyhudi replaces gets its checksums anew, as
    Hadoop's ChecksumFileSystem writes them ("crc\\0", 512 bytes a chunk, then each chunk's CRC32)."""
    folder, name = os.path.split(path)
    crc = os.path.join(folder, f".{name}.crc")
    if not os.path.exists(crc):
        return
    sums = b"".join(struct.pack(">I", zlib.crc32(data[i:i + HADOOP_CRC_CHUNK]))
                    for i in range(0, len(data), HADOOP_CRC_CHUNK))
    tmp = f"{crc}.{uuid.uuid4().hex}.tmp"
    with open(tmp, "wb") as f:
        f.write(b"crc\x00" + struct.pack(">i", HADOOP_CRC_CHUNK) + sums)
    os.replace(tmp, crc)
