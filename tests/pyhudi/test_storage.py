"""Storage.create_if_absent, the commit point: atomic on each store, refused where it cannot be; Storage.write
keeps Hadoop's .crc of a local file it replaces.

S3 is tested against a real S3-compatible server (moto's, started as its own process), which honours
PutObject's If-None-Match like S3 does."""
import multiprocessing
import socket
import subprocess
import sys
import time
import uuid

import pyarrow.fs as pafs
import pytest

from pyhudi.errors import HudiError
from pyhudi.storage import AlreadyExists, Storage, StorageError

RACERS = 6


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def s3_uri(monkeypatch_module):
    boto3 = pytest.importorskip("boto3")  # a dev dependency: always installed by the README's command
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for var, value in (("AWS_ACCESS_KEY_ID", "test"), ("AWS_SECRET_ACCESS_KEY", "test"),
                       ("AWS_DEFAULT_REGION", "us-east-1"), ("AWS_EC2_METADATA_DISABLED", "true")):
        monkeypatch_module.setenv(var, value)
    endpoint = f"http://127.0.0.1:{port}"
    client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
    for _ in range(100):
        try:
            client.create_bucket(Bucket="tables")
            break
        except Exception:
            time.sleep(0.1)
    yield f"s3://tables/t?endpoint_override=127.0.0.1:{port}&scheme=http&region=us-east-1"
    server.terminate()
    server.wait()


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


def _uri_path(uri: str, name: str) -> str:
    base, _, query = uri.partition("?")
    return f"{base}/{name}?{query}"


def _race(uri: str, name: str, racer: int, start, results) -> None:
    storage, path = Storage.for_uri(_uri_path(uri, name) if uri.startswith("s3://") else f"{uri}/{name}")
    start.wait()
    try:
        storage.create_if_absent(path, f"racer {racer}".encode())
        results.put(racer)
    except AlreadyExists:
        results.put(None)


def _one_winner(uri: str) -> None:
    name = f"{uuid.uuid4().hex}.commit"
    ctx = multiprocessing.get_context("spawn")
    start, results = ctx.Barrier(RACERS), ctx.Queue()
    procs = [ctx.Process(target=_race, args=(uri, name, i, start, results)) for i in range(RACERS)]
    for p in procs:
        p.start()
    outcomes = [results.get(timeout=120) for _ in procs]
    for p in procs:
        p.join()
    winners = [o for o in outcomes if o is not None]
    assert len(winners) == 1, outcomes
    storage, path = Storage.for_uri(_uri_path(uri, name) if uri.startswith("s3://") else f"{uri}/{name}")
    assert storage.read(path) == f"racer {winners[0]}".encode()


def test_local_create_if_absent_has_one_winner(tmp_path):
    storage, path = Storage.for_uri(str(tmp_path / "a.commit"))
    storage.create_if_absent(path, b"first")
    with pytest.raises(AlreadyExists, match="already exists"):
        storage.create_if_absent(path, b"second")
    assert storage.read(path) == b"first"
    _one_winner(str(tmp_path))
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # no temporary left behind


def test_s3_create_if_absent_uses_the_conditional_put(s3_uri):
    storage, path = Storage.for_uri(_uri_path(s3_uri, "x/20250101000000000.commit"))
    storage.create_if_absent(path, b"first")
    with pytest.raises(AlreadyExists, match="already exists"):
        storage.create_if_absent(path, b"second")
    assert storage.read(path) == b"first"
    _one_winner(s3_uri)


def test_a_store_without_conditional_create_is_refused_for_commits(tmp_path):
    storage = Storage(pafs.SubTreeFileSystem(str(tmp_path), pafs.LocalFileSystem()), local=False)
    with pytest.raises(StorageError, match="no atomic create-if-absent") as err:
        storage.create_if_absent("a.commit", b"x")
    assert isinstance(err.value, HudiError)
    assert not (tmp_path / "a.commit").exists()


def test_a_file_hadoop_wrote_and_pyhudi_replaced_reads_in_hadoop(spark, tmp_path):
    """Hadoop's local file system (Apache Hudi's on local disk) writes a .crc beside each file and refuses a file
    that no longer matches it: a file pyhudi replaces gets its .crc anew (hoodie.properties on a table Hudi made)."""
    jvm = spark._jvm
    hpath = jvm.org.apache.hadoop.fs.Path(str(tmp_path / "hoodie.properties"))
    fs = hpath.getFileSystem(spark._jsc.hadoopConfiguration())
    out = fs.create(hpath, True)
    out.write(bytearray(b"written by hadoop\n" * 10))
    out.close()
    assert (tmp_path / ".hoodie.properties.crc").exists()
    storage, _ = Storage.for_uri(str(tmp_path))
    replaced = b"replaced by pyhudi\n" * 100  # several 512-byte chunks
    storage.write(str(tmp_path / "hoodie.properties"), replaced)
    stream = fs.open(hpath)
    buffer = jvm.java.io.ByteArrayOutputStream()
    jvm.org.apache.hadoop.io.IOUtils.copyBytes(stream, buffer, 4096, True)  # a stale .crc fails this read
    assert bytes(buffer.toByteArray()) == replaced
