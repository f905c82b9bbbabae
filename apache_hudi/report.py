"""The matrix run: every FULL scenario against both Apache Hudi releases, its results written as a table."""
from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "matrix.md"


def run(only: list[str]) -> int:
    from apache_hudi.matrix import FULL
    from apache_hudi.process import ApacheHudi
    from apache_hudi.releases import RELEASES
    from apache_hudi.scenarios import Outcome, Runner
    from pyhudi import spark_session

    spark = spark_session(**{"spark.master": "local[2]", "spark.ui.enabled": "false",
                             "spark.sql.shuffle.partitions": "2", "spark.sql.session.timeZone": "UTC"})
    hudis = {v: ApacheHudi(v).start() for v in RELEASES}
    work = Path(tempfile.mkdtemp(prefix="apache-hudi-matrix-"))
    rows = []
    try:
        runner = Runner(spark, hudis)
        for scenario in FULL:
            if only and not any(o in scenario.name for o in only):
                continue
            started = time.time()
            try:
                outcome = runner.run(scenario, str(work / scenario.name))
            except Exception as exc:  # one scenario's crash is its result, the others still run
                outcome = Outcome(scenario.name, differences=[f"the scenario crashed: {type(exc).__name__}: "
                                                              f"{str(exc).splitlines()[0][:300]}"])
            rows.append((scenario, outcome, time.time() - started))
            print(f"{scenario.name}: {'pass' if outcome.ok else 'FAIL'} ({len(outcome.checked)} checks)", flush=True)
            for line in outcome.differences:
                print(f"  {line}", flush=True)
    finally:
        for hudi in hudis.values():
            hudi.stop()
        shutil.rmtree(work, ignore_errors=True)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(_markdown(rows, list(hudis)))
    print(f"results: {RESULTS}")
    return 0 if all(o.ok for _, o, _ in rows) else 1


def _markdown(rows: list, releases: list[str]) -> str:
    head = ["# Apache Hudi checks the tables pyhudi writes", "",
            f"`python -m apache_hudi matrix`, {time.strftime('%Y-%m-%d')}, Apache Hudi {' and '.join(releases)} "
            "(hudi-spark3.5-bundle_2.12 on pyspark 3.5.5) beside pyhudi + hudi-meta. A step written by a release "
            "is Apache Hudi's write on our table (the mixed fleet). Per scenario: both readers against the model "
            "after every step, then read-optimized, time travel and incremental against ours, then Hudi's "
            "metadata-table reader against the files (apache_hudi/validate.py).", "",
            "| scenario | table | steps (writers) | Hudi reads ours | validator | checks | result | seconds |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    body = []
    for scenario, outcome, seconds in rows:
        writers = sorted({s.by for s in scenario.steps})
        reads = [d for d in outcome.differences if not d.startswith("validator")]
        validator = [d for d in outcome.differences if d.startswith("validator")]
        body.append(f"| {scenario.name} | {scenario.options['hoodie.datasource.write.table.type']} | "
                    f"{len(scenario.steps)} ({', '.join(writers)}) | {'pass' if not reads else 'FAIL'} | "
                    f"{'pass' if not validator else 'FAIL'} | {len(outcome.checked)} | "
                    f"{'pass' if outcome.ok else 'FAIL'} | {seconds:.0f} |")
    failures = [f"- {s.name}: {d}" for s, o, _ in rows for d in o.differences]
    known = [f"- {s.name}: {d}" for s, o, _ in rows for d in o.known]
    return "\n".join(head + body + ([""] + ["## Differences", ""] + failures if failures else [])
                     + (["", "## Apache Hudi's own known failures met (not counted; hudi-meta checked against the "
                         "model)", ""] + known if known else []) + [""])
