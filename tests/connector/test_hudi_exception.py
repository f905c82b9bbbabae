"""io.hudimeta.HudiException: one base for the connector's table, log and HFile errors."""
from __future__ import annotations

import pytest
from py4j.protocol import Py4JJavaError

ERRORS = ["table.HudiTableException", "table.CorruptTableException", "table.TableNotFoundException",
          "log.LogFormatException", "hfile.CorruptHFileException"]


def java_class(spark, name):
    loader = spark._jvm.java.lang.Thread.currentThread().getContextClassLoader()
    return spark._jvm.java.lang.Class.forName(f"io.hudimeta.{name}", False, loader)


@pytest.mark.parametrize("name", ERRORS)
def test_every_error_is_a_hudi_exception(spark, name):
    base = java_class(spark, "HudiException")
    assert base.getSuperclass().getName() == "java.lang.RuntimeException"
    assert base.isAssignableFrom(java_class(spark, name))


def test_corrupt_hfile_is_unchecked_and_keeps_its_message(spark, tmp_path):
    bogus = tmp_path / "bogus.hfile"
    bogus.write_bytes(b"not an hfile")
    with pytest.raises(Py4JJavaError) as err:
        spark._jvm.io.hudimeta.hfile.HFileInspect.open(str(bogus), spark._jsc.hadoopConfiguration())
    error = err.value.java_exception
    assert java_class(spark, "HudiException").isInstance(error)
    assert error.getMessage().startswith("not an HFile: ")
    assert error.getMessage().endswith("bogus.hfile has 12 bytes, fewer than the 4096-byte trailer")


def test_missing_table_is_a_hudi_exception(spark, tmp_path):
    jpath = spark._jvm.org.apache.hadoop.fs.Path(str(tmp_path))
    fs = jpath.getFileSystem(spark._jsc.hadoopConfiguration())
    with pytest.raises(Py4JJavaError) as err:
        spark._jvm.io.hudimeta.table.TableConfig.load(fs, jpath)
    assert java_class(spark, "HudiException").isInstance(err.value.java_exception)
    assert err.value.java_exception.getClass().getSimpleName() == "TableNotFoundException"
