"""A running Apache Hudi: one worker process (its own JVM, pyspark 3.5, the release's bundle) per release,
asked for SQL, reads and writes by the code that runs pyhudi beside it."""
from __future__ import annotations

import json
import os
import subprocess
import tempfile
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from apache_hudi import install
from apache_hudi.releases import NEWEST, release

WORKER = Path(__file__).resolve().parent / "worker.py"


class HudiError(RuntimeError):
    """Apache Hudi refused a request: its exception's message and causes."""


class ApacheHudi:
    """`with ApacheHudi("1.2.0") as hudi: hudi.sql("CALL show_commits(path => '/t')")`"""

    def __init__(self, version: str = NEWEST):
        self.release = release(version)
        self._scratch = Path(tempfile.mkdtemp(prefix=f"apache-hudi-{version}-"))
        self._proc: subprocess.Popen | None = None
        self._answers = None

    def start(self) -> ApacheHudi:
        exe, jar = install.python(), install.bundle_jar(self.release)
        read_end, write_end = os.pipe()
        log = open(self._scratch / "worker.log", "wb")
        self._proc = subprocess.Popen(
            [str(exe), str(WORKER), "--jar", str(jar), "--warehouse", str(self._scratch / "warehouse"),
             "--answers", str(write_end)],
            stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT, pass_fds=(write_end,),
            env=_worker_env(exe), cwd=self._scratch, text=True)
        os.close(write_end)
        self._answers = os.fdopen(read_end)
        self._receive()
        return self

    def __enter__(self) -> ApacheHudi:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        if self._proc and self._proc.poll() is None:
            try:
                self._proc.stdin.write(json.dumps({"op": "stop"}) + "\n")
                self._proc.stdin.close()
                self._proc.wait(timeout=60)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
        self._proc = None

    def version(self) -> dict:
        return self._ask({"op": "version"})

    def sql(self, statement: str) -> pa.Table:
        """The rows a statement (or CALL) returns."""
        out = self._out()
        self._ask({"op": "sql", "sql": statement, "out": str(out)})
        return _load(out)

    def read(self, path: str, where: str | None = None, **options: str) -> pa.Table:
        """`spark.read.format("hudi").options(**options).load(path)`, filtered by a SQL condition if given."""
        out = self._out()
        self._ask({"op": "read", "path": str(path), "options": options, "where": where, "out": str(out)})
        return _load(out)

    def write(self, path: str, rows: pa.Table, mode: str = "append", **options: str) -> None:
        """`df.write.format("hudi").options(**options).mode(mode).save(path)` of these rows."""
        source = self._scratch / f"input-{uuid.uuid4().hex}.parquet"
        pq.write_table(rows, source)
        try:
            self._ask({"op": "write", "path": str(path), "input": str(source), "options": options, "mode": mode})
        finally:
            source.unlink()

    def metadata_files(self, path: str, enabled: bool = True) -> dict:
        """{partition: {file: size}} through Hudi's HoodieBackedTableMetadata: from the metadata table, or
        (enabled=False) from storage as Hudi lists it."""
        return self._ask({"op": "metadata_files", "path": str(path), "enabled": enabled})["partitions"]

    def column_stats(self, path: str, files: list, columns: list) -> dict:
        """{file: {column: [min, max, nulls, values]}} through Hudi's getColumnStats; files as (partition, name)."""
        return self._ask({"op": "column_stats", "path": str(path), "files": files, "columns": columns})["stats"]

    def record_index(self, path: str, keys: list) -> dict:
        """{key: [partition, file id]} through Hudi's record-index reader, for the keys it holds."""
        return self._ask({"op": "record_index", "path": str(path), "keys": keys})["locations"]

    def bloom_filters(self, path: str, files: list) -> dict:
        """Hudi's bloom filters of (partition, name, keys) files: {"missing": {file: keys}, "absent": [file]}."""
        return self._ask({"op": "bloom_filters", "path": str(path), "files": files})

    def register(self, path: str, name: str | None = None) -> str:
        """A catalog name for the table at `path` in this session (most procedures take only `table =>`).
        Hudi's CREATE TABLE rewrites hoodie.properties (its create schema, in its own field order); the file is
        put back as it was, so registering leaves the table untouched."""
        base = Path(path).resolve()
        name = name or "t_" + uuid.uuid5(uuid.NAMESPACE_URL, str(base)).hex[:16]
        kept = _files_of(base / ".hoodie", ("hoodie.properties", "hoodie.properties.backup"))
        try:
            self.sql(f"CREATE TABLE IF NOT EXISTS {name} USING hudi LOCATION '{base}'")
        finally:
            _put_back(base / ".hoodie", kept)
        return name

    def log_tail(self, lines: int = 40) -> str:
        log = self._scratch / "worker.log"
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:]) if log.exists() else ""

    def _out(self) -> Path:
        return self._scratch / f"result-{uuid.uuid4().hex}.arrow"

    def _ask(self, request: dict) -> dict:
        if self._proc is None:
            self.start()
        self._proc.stdin.write(json.dumps(request) + "\n")
        self._proc.stdin.flush()
        return self._receive()

    def _receive(self) -> dict:
        line = self._answers.readline()
        if not line:
            raise HudiError(f"Apache Hudi {self.release.version}'s worker ended; its log:\n{self.log_tail()}")
        answer = json.loads(line)
        if not answer.pop("ok"):
            raise HudiError(answer["error"])
        return answer


def _files_of(folder: Path, names: tuple) -> dict:
    """These files and the checksum files Hadoop's local file system keeps beside them: name -> bytes or None."""
    every = [n for name in names for n in (name, f".{name}.crc")]
    return {n: (folder / n).read_bytes() if (folder / n).exists() else None for n in every}


def _put_back(folder: Path, kept: dict) -> None:
    for name, data in kept.items():
        if data is None:
            (folder / name).unlink(missing_ok=True)
        else:
            (folder / name).write_bytes(data)


def _load(path: Path) -> pa.Table:
    with pa.memory_map(str(path)) as source:
        table = pa.ipc.open_file(source).read_all()
    path.unlink()
    return table


def _worker_env(exe: Path) -> dict:
    """The worker's Spark runs its Python workers on the harness's interpreter, not the caller's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYSPARK", "SPARK_", "PYTHONPATH"))}
    env["PYSPARK_PYTHON"] = env["PYSPARK_DRIVER_PYTHON"] = str(exe)
    return env
