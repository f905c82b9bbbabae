import shutil
import zipfile

import pytest

from pyhudi import build, connector_jar


def test_jar_holds_the_service_entry_and_classes():
    jar = connector_jar()
    with zipfile.ZipFile(jar) as z:
        names = set(z.namelist())
        service = z.read("META-INF/services/org.apache.spark.sql.sources.DataSourceRegister").decode()
    assert "io.hudimeta.spark.source.HudiMetaSource" in service
    assert "io/hudimeta/spark/source/HudiMetaSource.class" in names
    assert not build.is_stale(build.source_root())


def test_stale_when_sources_change(tmp_path):
    src = tmp_path / "main"
    shutil.copytree(build.source_root(), src)
    jars = tmp_path / "jars"
    jars.mkdir()
    (jars / build.JAR_NAME).write_bytes(b"")
    (jars / build.STAMP_NAME).write_text(build.sources_digest(src))
    assert not build.is_stale(src, jars)
    java = next(src.rglob("*.java"))
    java.write_text(java.read_text() + "\n// changed\n")
    assert build.is_stale(src, jars)


def test_clear_error_without_jdk(monkeypatch, tmp_path):
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-jdk"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(build.BuildError, match="no JDK 17\\+ found"):
        build.find_javac()


def test_short_name_resolves(spark, tmp_path):
    # Resolving "hudi-meta" must reach our provider (never "class not found"); reading a path
    # without a table is then a clear error from the connector.
    with pytest.raises(Exception) as err:
        spark.read.format("hudi-meta").load(str(tmp_path)).collect()
    text = str(err.value)
    assert "DATA_SOURCE_NOT_FOUND" not in text and "ClassNotFound" not in text
    assert "no Hudi table at" in text
