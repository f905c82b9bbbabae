"""report.md, the plot and the rich summary of the planning benchmark, from results.json."""
from __future__ import annotations

import os

from bench import results
from bench.measure import fmt_seconds
from bench.planning import systems

BASELINE = "spark-parquet"
TARGET_SIZE = "100k"
TARGET_SPEEDUP = 10.0
TARGET_PARTITIONS_MS = 50.0
ALL_PARTITIONS = "getAllPartitions (MetadataFileListing.partitions, MDT open)"
OPEN = "open (TableConfig.load + Timeline.load + MetadataTable.open)"


def _median(doc, size, scen, system):
    try:
        return doc["sizes"][size]["cases"][scen][system]["summary"]["median"]
    except KeyError:
        return None


def targets(doc: dict) -> list[dict]:
    out = []
    ours, base = _median(doc, TARGET_SIZE, "full", "hudi-meta-mdt"), _median(doc, TARGET_SIZE, "full", BASELINE)
    text = (f"at {TARGET_SIZE} files, hudi-meta with the metadata table plans a full scan >= {TARGET_SPEEDUP:.0f}x "
            f"faster than spark.read.parquet discovery")
    if ours is None or base is None:
        out.append({"text": text, "met": None, "detail": f"size {TARGET_SIZE} not measured in this run"})
    else:
        ratio = base / ours
        out.append({"text": text, "met": ratio >= TARGET_SPEEDUP, "ratio": ratio,
                    "detail": f"{fmt_seconds(ours)} vs {fmt_seconds(base)}: {ratio:.2f}x"
                              + ("" if ratio >= TARGET_SPEEDUP else
                                 f"; short by {(1 - ratio / TARGET_SPEEDUP) * 100:.0f}% (hudi-meta would need "
                                 f"<= {fmt_seconds(base / TARGET_SPEEDUP)}, "
                                 f"{fmt_seconds(ours - base / TARGET_SPEEDUP)} less than it took)")})
    text = f"the metadata table's getAllPartitions under {TARGET_PARTITIONS_MS:.0f} ms at {TARGET_SIZE} files"
    look = doc["sizes"].get(TARGET_SIZE, {}).get("metadata_lookups", {}).get("jvm", {})
    if ALL_PARTITIONS not in look:
        out.append({"text": text, "met": None, "detail": f"size {TARGET_SIZE} not measured in this run"})
    else:
        ms = look[ALL_PARTITIONS]["summary"]["median"] * 1000
        open_ms = look[OPEN]["summary"]["median"] * 1000
        out.append({"text": text, "met": ms < TARGET_PARTITIONS_MS, "ms": ms, "cold_ms": open_ms + ms,
                    "detail": f"connector MetadataFileListing.partitions() {ms:.1f} ms on an opened metadata table; "
                              f"{open_ms + ms:.1f} ms including opening it (TableConfig, Timeline, MetadataTable.open)"})
    return out


# ---------------------------------------------------------------- markdown


def _s(seconds) -> str:
    seconds = seconds or 0.0
    return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"


def _max_load(doc: dict) -> str:
    loads = [x for e in doc["sizes"].values() for by_sys in e["cases"].values() for c in by_sys.values()
             for x in (c.get("load_avg_1m") or []) if x is not None]
    return f"{max(loads):.2f}" if loads else "not recorded"


def _fmt_files(case) -> str:
    f = case.get("files")
    if f is None:
        return "-"
    s = f"{f:,}"
    if case.get("files_expected") is not None and f != case["files_expected"]:
        s += f" (expected {case['files_expected']:,})"
    return s


def write_markdown(doc: dict, out: str) -> str:
    env = doc.get("env", {})
    pk = env.get("packages", {})
    L = ["# Query planning: hudi-meta (metadata table / listing) vs spark.read.parquet, delta-rs, pyiceberg", ""]
    L += [f"Command: `{doc.get('command')}` — started {doc.get('started_at')}, wall time "
          f"{doc.get('wall_seconds')} s (table builds included when they ran).", ""]
    L += ["## Targets", ""]
    for t in doc.get("targets", []):
        mark = {True: "**met**", False: "**missed**", None: "not measured"}[t["met"]]
        L.append(f"- {t['text']}: {mark} — {t['detail']}")
    L += [""]

    L += ["## Setup", ""]
    L += [f"- Machine: {env.get('cpu')}, {env.get('cores')} cores, {env.get('memory_gib')} GiB; {env.get('platform')}; "
          f"Python {env.get('python')}; Java {env.get('java')}",
          f"- Versions: pyhudi {pk.get('pyhudi')} (commit {env.get('pyhudi_commit')}), pyspark {pk.get('pyspark')}, "
          f"deltalake (delta-rs) {pk.get('deltalake')}, pyiceberg {pk.get('pyiceberg')}, pyarrow {pk.get('pyarrow')}",
          f"- Code: commit {str(doc.get('code', {}).get('commit'))[:10]}, connector jar (source hash) "
          f"{str(doc.get('code', {}).get('connector_jar_sha256'))[:12]}; files differing from the commit: "
          f"{', '.join(doc.get('code', {}).get('modified') or []) or 'none'}",
          "- Spark: " + ", ".join(f"{k}={v}" for k, v in doc.get("spark_settings", {}).items()),
          f"- One process, one SparkSession; JVM warm-up: {doc.get('jvm_warmup_seconds')} s of untimed plans on the "
          "smallest table; every case: 1 untimed warm-up plan, then the measured ones (median, min, max), each after an "
          "untimed `System.gc()` + Python `gc.collect()`. "
          "Storage: local disk, OS page cache warm (each case's warm-up touches the same files).",
          f"- Machine load (1-minute load average before/after each case; 2 cores, the run itself keeps about 1 busy): "
          f"max {_max_load(doc)}", ""]
    L += ["Tables (`bench/planning/build.py`): one set of tiny Parquet files (10 rows each, snappy) in 100 hive-style "
          "partitions `p=part000..part099`. Columns: the five `_hoodie_*` meta columns, `id` (record key), `p`, "
          "`v` (long, clustered: file k holds v = 10k..10k+9), `x` (double), `s` (string). The same files are:",
          "- a Hudi v8 copy-on-write table written by one bulk_insert commit (pyhudi formats: file names, "
          "`.hoodie_partition_metadata`, commit metadata with every write stat) with its metadata table "
          "(`files`, `column_stats` for the 3 indexed meta columns + 5 data columns, `partition_stats`), "
          "built by `MetadataWriter.initialize` from the listing and the footers' statistics;",
          "- the directory `spark.read.parquet` lists (`.hoodie` and `.hoodie_partition_metadata` are hidden to it);",
          "- a Delta table: hard links to the same files (same inodes) in a sibling tree, converted by "
          "`deltalake.convert_to_deltalake(..., partition_strategy=\"hive\")` with file statistics. Its directories "
          "are `pp=partNNN` and it is partitioned by `pp` (= `p`): delta-rs refuses a hive partition column that "
          "the files also hold (`Duplicate field name: 'p'`), and Hudi files keep `p`;",
          "- a pyiceberg table (format v2, SqlCatalog on sqlite, spec identity(p)) registering the Hudi table's own "
          "files with `Table.add_files` (partition values and metrics from the footers).", ""]
    L += ["| size | partitions x files | files | rows | data bytes | build (untimed) |", "|---|---|---|---|---|---|"]
    for size, e in doc["sizes"].items():
        s, b = e["shape"], e["build"]
        bs = b.get("build_seconds", {})
        L.append(f"| {size} | {s['partitions']} x {s['files_per_partition']} | {s['files']:,} | {s['rows']:,} | "
                 f"{b.get('bytes_data', 0):,} | "
                 + (f"{_s(bs.get('total'))}: hudi files {_s(bs.get('hudi_data_files'))} + commit "
                    f"{_s(bs.get('hudi_commit'))} + metadata table {_s(bs.get('hudi_metadata_table'))}; delta convert "
                    f"{_s(bs.get('delta_convert_to_deltalake'))}; iceberg add_files {_s(bs.get('iceberg_add_files'))}" if bs else "-")
                 + (" (reused)" if b.get("reused") else "") + " |")
    L += [""]

    L += ["What is timed (time.perf_counter around one call; `bench/planning/systems.py`):", ""]
    L += ["- Spark (hudi-meta, spark.read.parquet): `spark.read...load(path)`, `.where(cond)`, "
          "`df._jdf.queryExecution().executedPlan()`, then the scan node's file list without running a job: "
          "`BatchScanExec.inputPartitions()` (hudi-meta's planInputPartitions: listing, partition pruning, data "
          "skipping) / `FileSourceScanExec.selectedPartitions()` (partition pruning over the InMemoryFileIndex that "
          "`load` filled by listing every directory and inferring the partitions). Files planned: hudi-meta's "
          "`files=N` in the scan description; Parquet's `selectedPartitions().totalNumberOfFiles()`.",
          "- delta-rs: `DeltaTable(path)` + `dt.file_uris(file_pruning_predicate=...)` (partition values and, for "
          "`v`, the add actions' min/max statistics; the SQL predicate string form).",
          "- pyiceberg: `catalog.load_table(...)` + `table.scan(row_filter=...).plan_files()`.", ""]
    L += ["Scenarios: " + "; ".join(f"**{k}** = {v}" for k, v in doc.get("scenarios", {}).items()) + ".", ""]

    L += ["## Planning time (median; min - max in parentheses)", ""]
    for size, e in doc["sizes"].items():
        s = e["shape"]
        L += [f"### {size}: {s['files']:,} files, {e['reps']} measured runs per case", "",
              f"one partition: `p = '{s['one_partition']}'`; range: `v BETWEEN {s['range'][0]} AND {s['range'][1]}` "
              f"({e['expected']['range']['rows']} rows in {e['expected']['range']['files']} files)", "",
              "| scenario | system | median | min - max | vs spark.read.parquet | files planned |",
              "|---|---|---|---|---|---|"]
        for scen, by_sys in e["cases"].items():
            base = by_sys.get(BASELINE, {}).get("summary", {}).get("median")
            for name, c in by_sys.items():
                sm = c["summary"]
                ratio = f"{base / sm['median']:.1f}x faster" if base and sm["median"] < base else \
                    (f"{sm['median'] / base:.1f}x slower" if base and name != BASELINE else "-")
                L.append(f"| {scen} | {systems.SYSTEMS[name].short} | {fmt_seconds(sm['median'])} | "
                         f"{fmt_seconds(sm['min'])} - {fmt_seconds(sm['max'])} | {ratio} | {_fmt_files(c)} |")
        L += [""]
        hm = e["cases"].get("range", {}).get("hudi-meta-mdt", {}).get("details", {}).get("description")
        if hm:
            L += [f"hudi-meta (MDT) range-scan description: `{hm}`", ""]
        look = e.get("metadata_lookups")
        if look:
            L += [f"Metadata-table lookups ({look['reps']} runs for the connector, up to 3 for pyhudi; one "
                  f"partition = `{look['partition']}`):", "",
                  "| side | lookup | median | min - max | result |", "|---|---|---|---|---|"]
            for side, label in (("jvm", "connector (py4j)"), ("python", "pyhudi")):
                for name, r in look.get(side, {}).items():
                    sm = r["summary"]
                    L.append(f"| {label} | {name} | {fmt_seconds(sm['median'])} | {fmt_seconds(sm['min'])} - "
                             f"{fmt_seconds(sm['max'])} | {r['result']} |")
            L += [""]
        rc = e.get("row_counts")
        if rc:
            ok = all(v == rc["expected"][s] for s, c in rc["counts"].items() for v in c.values())
            pairs = "; ".join(f"{scen}: {', '.join(systems.SYSTEMS[n].short for n in c)}" for scen, c in rc["counts"].items())
            L += [f"Row counts (untimed check that the plans lose no rows, for the plans of at most "
                  f"{rc.get('max_files', 0):,} files — {pairs}): "
                  + ("every one returned the expected rows." if ok else
                     "**MISMATCH** " + str(rc["counts"]) + " expected " + str(rc["expected"])), ""]
    L += ["![planning time vs files (full scan, one partition, range), log-log](planning_vs_files.png)", ""]
    return results.write_report(out, L)


# ---------------------------------------------------------------- plot


def write_plot(doc: dict, out: str) -> str | None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = list(doc["sizes"])
    if not sizes:
        return None
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6), sharey=True)
    styles = {"hudi-meta-mdt": ("#d62728", "o", "-"), "hudi-meta-listing": ("#ff9896", "o", "--"),
              "spark-parquet": ("#1f77b4", "s", "-"), "delta-rs": ("#2ca02c", "^", "-"),
              "pyiceberg": ("#9467bd", "D", "-")}
    for ax, scen in zip(axes, systems.SCENARIOS):
        for name, sysd in systems.SYSTEMS.items():
            xs, ys, lo, hi = [], [], [], []
            for size in sizes:
                c = doc["sizes"][size]["cases"].get(scen, {}).get(name)
                if not c:
                    continue
                xs.append(doc["sizes"][size]["shape"]["files"])
                ys.append(c["summary"]["median"])
                lo.append(c["summary"]["median"] - c["summary"]["min"])
                hi.append(c["summary"]["max"] - c["summary"]["median"])
            if xs:
                color, marker, ls = styles[name]
                ax.errorbar(xs, ys, yerr=[lo, hi], label=sysd.short, color=color, marker=marker, linestyle=ls,
                            capsize=3, linewidth=2 if sysd.ours else 1.3)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("data files in the table")
        ax.set_title(systems.SCENARIOS[scen], fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("planning time, s (median; bars: min - max)")
    axes[0].legend(fontsize=8)
    fig.suptitle("Query planning time vs table size (local[2], warm cache)", fontsize=11)
    fig.tight_layout()
    path = os.path.join(out, "planning_vs_files.png")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


# ---------------------------------------------------------------- rich summary


def summary_table(doc: dict):
    from rich.table import Table

    sizes = list(doc["sizes"])
    table = Table(title="planning time, median (files planned)")
    table.add_column("scenario")
    table.add_column("system")
    for size in sizes:
        table.add_column(size, justify="right")
    for scen in systems.SCENARIOS:
        for name, sysd in systems.SYSTEMS.items():
            row = [scen, sysd.short]
            for size in sizes:
                c = doc["sizes"][size]["cases"].get(scen, {}).get(name)
                row.append("-" if not c else f"{fmt_seconds(c['summary']['median'])} ({c['files']:,})"
                           if c.get("files") is not None else fmt_seconds(c["summary"]["median"]))
            table.add_row(*row, style="bold red" if sysd.ours and name == "hudi-meta-mdt" else None)
        table.add_section()
    row = ["MDT", "getAllPartitions (connector)"]
    row2 = ["MDT", "open + getAllPartitions"]
    for size in sizes:
        look = doc["sizes"][size].get("metadata_lookups", {}).get("jvm", {})
        if ALL_PARTITIONS in look:
            row.append(fmt_seconds(look[ALL_PARTITIONS]["summary"]["median"]))
            row2.append(fmt_seconds(look[ALL_PARTITIONS]["summary"]["median"] + look[OPEN]["summary"]["median"]))
        else:
            row.append("-")
            row2.append("-")
    table.add_row(*row)
    table.add_row(*row2)
    return table
