"""Python workers run the driver's interpreter: a job started with a virtualenv's python that is not
activated must not fall back to `python3` from PATH (which may lack pyarrow) on executors."""
import os
import subprocess
import sys
import textwrap

from conftest import PROJECT

JOB = textwrap.dedent("""
    import pyhudi
    spark = pyhudi.spark_session(**{"spark.master": "local[1]", "spark.ui.enabled": "false"})
    df = spark.createDataFrame([("k1", 1, "a")], "id string, ts long, v string")
    # no small-batch write in the driver: the files are written by Python workers on executors
    pyhudi.HudiTable(spark, TABLE, {"hoodie.table.name": "t", "hoodie.datasource.write.recordkey.field": "id",
                                    "hoodie.datasource.write.precombine.field": "ts",
                                    "pyhudi.write.small.batch.max.records": "0"}).insert(df)
    print("ROWS", spark.read.format("hudi-meta").load(TABLE).count())
""")


def _run(tmp_path, extra_env):
    """The job with PATH's python3 replaced by an interpreter that has no site-packages (no pyarrow)."""
    stub = tmp_path / "bin"
    stub.mkdir(exist_ok=True)
    (stub / "python3").write_text(f"#!/bin/sh\nexec {sys.executable} -S \"$@\"\n")
    (stub / "python3").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "PYSPARK_PYTHON"}
    env.update(PATH=f"{stub}{os.pathsep}{env['PATH']}", PYTHONPATH=str(PROJECT), **extra_env)
    script = f"TABLE = {str(tmp_path / 't')!r}\n" + JOB
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)


def test_workers_run_the_driver_interpreter_by_default(tmp_path):
    done = _run(tmp_path, {})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "ROWS 1" in done.stdout


def test_an_explicit_worker_python_is_honoured(tmp_path):
    # the user's choice wins, even a bad one: PATH's python3 without site-packages fails on the worker
    done = _run(tmp_path, {"PYSPARK_PYTHON": "python3"})
    assert done.returncode != 0
    assert "No module named" in done.stderr
