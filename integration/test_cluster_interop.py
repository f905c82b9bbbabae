"""The write/read interop scenario with executors in separate processes (local-cluster)."""
import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import PROJECT


def test_interop_in_local_cluster(tmp_path):
    import pyspark

    env = {**os.environ, "SPARK_HOME": os.path.dirname(pyspark.__file__), "PYTHONPATH": str(PROJECT)}
    done = subprocess.run([sys.executable, str(Path(__file__).parent / "cluster_interop.py"), str(tmp_path)],
                          env=env, cwd=str(PROJECT), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-4000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["executors"] == 2
    for table_type in ("COPY_ON_WRITE", "MERGE_ON_READ"):
        assert result[table_type] == {"rows": 2940, "connector_ok": True, "hudi_rs_ok": True}, result
    # keys below 2000 of every 7th up to 2199: 286 in the index, found where the driver finds them
    assert result["record_index"] == {"driver": 286, "found_as_driver": True, "shuffles": 1}, result
