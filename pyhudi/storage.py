"""Storage access for the writer, over pyarrow.fs (local disk, HDFS, S3).

Only what the write protocol needs: whole-file reads and writes, listing one directory, and an
atomic create-if-absent used to publish completed instants.
"""
from __future__ import annotations

import os
import posixpath
import uuid
from dataclasses import dataclass

import pyarrow.fs as pafs


class StorageError(OSError):
    pass


class AlreadyExists(StorageError):
    pass


@dataclass(frozen=True)
class Entry:
    name: str
    size: int
    is_dir: bool


class Storage:
    """A table's storage: paths are absolute within the file system `fs`."""

    def __init__(self, fs: pafs.FileSystem, local: bool):
        self.fs = fs
        self.local = local

    @classmethod
    def for_uri(cls, uri: str) -> tuple["Storage", str]:
        """(storage, path) for a local path or a URI such as s3://bucket/table, hdfs://nn/table."""
        if "://" not in uri:
            return cls(pafs.LocalFileSystem(), True), os.path.abspath(uri)
        fs, path = pafs.FileSystem.from_uri(uri)
        return cls(fs, isinstance(fs, pafs.LocalFileSystem)), path

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

    def write(self, path: str, data: bytes) -> None:
        """Write a whole file, replacing it (readers of the old content see it whole or not at all
        on local disk, where we go through a rename)."""
        self.fs.create_dir(posixpath.dirname(path), recursive=True)
        if self.local:
            tmp = f"{path}.{uuid.uuid4().hex}.tmp"
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
            return
        with self.fs.open_output_stream(path) as f:
            f.write(data)

    def create_if_absent(self, path: str, data: bytes) -> None:
        """Publish `data` at `path` atomically; AlreadyExists if something is there."""
        self.fs.create_dir(posixpath.dirname(path), recursive=True)
        if self.local:
            tmp = f"{path}.{uuid.uuid4().hex}.tmp"
            with open(tmp, "wb") as f:
                f.write(data)
            try:
                os.link(tmp, path)  # link(2) fails if the target exists: no overwrite window
            except FileExistsError as e:
                raise AlreadyExists(f"{path} already exists") from e
            finally:
                os.unlink(tmp)
            return
        if self.exists(path):
            raise AlreadyExists(f"{path} already exists")
        with self.fs.open_output_stream(path) as f:
            f.write(data)

    def list(self, path: str) -> list[Entry]:
        """Entries of one directory; [] when it does not exist."""
        selector = pafs.FileSelector(path, allow_not_found=True, recursive=False)
        return [Entry(i.base_name, i.size or 0, i.type == pafs.FileType.Directory)
                for i in self.fs.get_file_info(selector)]

    def delete(self, path: str) -> None:
        info = self.fs.get_file_info(path)
        if info.type == pafs.FileType.Directory:
            self.fs.delete_dir(path)
        elif info.type != pafs.FileType.NotFound:
            self.fs.delete_file(path)

    def mkdirs(self, path: str) -> None:
        self.fs.create_dir(path, recursive=True)
