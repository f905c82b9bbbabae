"""report.md, the plot and the rich summary of the streaming-ingest benchmark, from results.json."""
from __future__ import annotations

import os

from bench import results
from bench.measure import fmt_seconds


def _ok(doc: dict) -> dict:
    return {n: v for n, v in doc.get("variants", {}).items() if "error" not in v}


def targets(doc: dict) -> list[dict]:
    """The run's checks: every variant reads back what was written (no goal on times or files is set)."""
    out = []
    for name, v in doc.get("variants", {}).items():
        text = f"{v['label']}: rows read = keys inserted, sum(amount) = the latest amount of every key, hudi-rs agrees"
        if "error" in v:
            out.append({"text": text, "variant": name, "met": False,
                        "detail": f"the run failed at commit {v.get('failed_at_commit')}: {v['error'][:300]}"})
            continue
        c = v["check"]
        rs = ("hudi-rs not run" if c.get("hudi_rs_rows") is None and "error" not in v.get("hudi_rs", {}) else
              f"hudi-rs failed: {v['hudi_rs']['error'][:200]}" if "error" in v.get("hudi_rs", {}) else
              f"hudi-rs {c['hudi_rs_rows']:,}")
        detail = (f"{c.get('rows_read', 0):,} rows read ({c.get('distinct_keys_read', 0):,} distinct) of "
                  f"{c['keys_inserted']:,} keys inserted; sum(amount) {c.get('sum_amount_read', 0):,.2f} vs "
                  f"{c['expected_sum_amount']:,.2f}; {rs}")
        out.append({"text": text, "variant": name, "met": bool(c["ok"]), "detail": detail})
    return out


# ---------------------------------------------------------------- markdown


def _mib(n) -> str:
    return f"{(n or 0) / 2 ** 20:.1f} MiB"


def _read(v: dict, q: str) -> str:
    r = v.get("reads", {}).get(q, {})
    return f"failed: {r['error'][:120]}" if "error" in r else fmt_seconds(r.get("median"))


def _setup(doc: dict) -> list[str]:
    env, code, p = doc.get("env", {}), doc.get("code", {}), doc.get("params", {})
    pk = env.get("packages", {})
    warm = doc.get("jvm_warmup", {})
    return ["## Setup", "",
            f"- Machine: {env.get('cpu')}, {env.get('cores')} cores, {env.get('memory_gib')} GiB; "
            f"{env.get('platform')}; Python {env.get('python')}; Java {env.get('java')}",
            f"- Versions: pyhudi {pk.get('pyhudi')} (commit {env.get('pyhudi_commit')}), pyspark {pk.get('pyspark')}, "
            f"hudi-rs {pk.get('hudi')}, pyarrow {pk.get('pyarrow')}",
            f"- Code: commit {str(code.get('commit'))[:10]}, connector jar (source hash) "
            f"{str(code.get('connector_jar_sha256'))[:12]}; files differing from the commit: "
            f"{', '.join(code.get('modified') or []) or 'none'}",
            "- Spark: " + (", ".join(f"{k}={v}" for k, v in doc.get("spark_settings", {}).items()) or "not started"),
            f"- One process, one SparkSession; JVM warm-up: {warm.get('commits_per_variant')} untimed commit(s) of "
            f"50 + 50 rows per variant on scratch tables ({warm.get('seconds')} s). Storage: local disk.",
            "", "## Workload", "",
            f"{p.get('commits')} commits into a new merge-on-read table per variant: commit 1 inserts "
            f"{p.get('inserts'):,} new keys, every later one {p.get('inserts'):,} new keys + {p.get('updates'):,} "
            f"updates of distinct random keys of the earlier commits; the same rows for every variant (seed "
            f"{p.get('seed')}). Rows: `bench/datagen.py`'s 10 columns (UUID record key `id`, ordering field "
            f"`updated_at`, partition `day` limited to {p.get('partitions')} values, an update keeps its key's "
            "day). Each commit is `HudiTable(spark, path, options).upsert(df)` with `time.perf_counter` around "
            "that call only (the DataFrame from Arrow made before), table services as pyhudi's defaults run them "
            "inline (merge-on-read compaction after 5 delta commits, cleaning, archival, the metadata table); "
            "the commits that ran a compaction are read off the timeline.",
            "", f"Index: `hoodie.index.type={p.get('index_type')}`; log-file indexing: `{p.get('log_index_key')}=true` "
            "(ON) or absent (OFF). Options of every variant:", ""] + [
            f"- **{doc['variants'][n]['label'] if n in doc.get('variants', {}) else n}**: "
            + ", ".join(f"`{k}={v}`" for k, v in opts.items() if k not in ("hoodie.table.name",))
            for n, opts in p.get("options", {}).items() if n in doc.get("variants", {})] + [""]


def _table(doc: dict) -> list[str]:
    p = doc.get("params", {})
    edge = min(p.get("edge", 20), p.get("commits") or 20)
    L = ["## Results", "",
         f"| variant | commit median | p90 | max | first {edge} / last {edge} median | compactions | base files | "
         "log files | data bytes | `.hoodie` bytes | snapshot read | read-optimized read | check |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for v in doc.get("variants", {}).values():
        if "error" in v:
            L.append(f"| {v['label']} | failed at commit {v.get('failed_at_commit')}: {v['error'][:200]} |"
                     + " |" * 12)
            continue
        s, f, c = v["commit_summary"], v["files"], v["check"]
        L.append(f"| {v['label']} | {fmt_seconds(s['median'])} | {fmt_seconds(s['p90'])} | {fmt_seconds(s['max'])} | "
                 f"{fmt_seconds(s['first_median'])} / {fmt_seconds(s['last_median'])} ({s['growth']:.2f}x) | "
                 f"{s['compactions']} | {f['base_files']:,} | {f['log_files']:,} | {_mib(f['data_bytes'])} | "
                 f"{_mib(f['hoodie_bytes'])} | {_read(v, 'snapshot')} | {_read(v, 'read_optimized')} | "
                 + ("OK" if c["ok"] else "**FAILED**") + " |")
    L += ["", "Commit latency: seconds of each `upsert` call (inline services included), median / 90th percentile "
          f"/ max over all commits; growth: the last {edge} commits' median over the first {edge}'s. Files: base "
          "(`.parquet`) and log files in the partition folders at the end (older file slices that cleaning has not "
          "removed yet included); data bytes are theirs, `.hoodie` (timeline, metadata table) apart. Reads: "
          "`spark.read.format(\"hudi-meta\")` full scan, `count(*)` and `sum(amount)`, median of "
          f"{p.get('read_runs')} after an untimed one; read-optimized reads base files only.", ""]
    compacted = [v["label"] for v in _ok(doc).values() if v["commits"][-1].get("services", {}).get("commit")]
    if compacted:
        L += [f"The last commit of {', '.join(compacted)} ran a compaction (every "
              "hoodie.compact.inline.max.delta.commits): the reads after it found no log file in the latest "
              "slices, so its snapshot read is a read of base files only, like the read-optimized one.", ""]
    return L


def _details(doc: dict) -> list[str]:
    L = ["## Details", "", "| variant | commits without compaction, median | file groups (latest slices) | "
         "log files in latest slices (max per slice) | read-optimized rows | hudi-rs snapshot count | ingest wall time | "
         "load average (1 min) before / after |", "|---|---|---|---|---|---|---|---|"]
    for v in _ok(doc).values():
        s, sl, rs = v["commit_summary"], v.get("slices") or {}, v.get("hudi_rs", {})
        ro = v["reads"].get("read_optimized", {})
        slices = (f"{sl['file_groups']:,} ({sl['with_base_file']:,} with a base file)" if "file_groups" in sl
                  else f"- ({sl.get('error', '')[:80]})")
        logs = f"{sl['log_files']:,} ({sl['max_log_files']})" if "log_files" in sl else "-"
        rs_cell = (f"{rs['rows']:,} ({fmt_seconds(rs['seconds'])})" if "rows" in rs
                   else f"failed: {rs.get('error', '')[:120]}")
        ro_cell = f"{ro['rows']:,}" if "rows" in ro else "failed"
        L.append(f"| {v['label']} | {fmt_seconds(s['median_without_compaction'])} | {slices} | {logs} | "
                 f"{ro_cell} | {rs_cell} | {v['ingest_seconds']:.0f} s | "
                 + " / ".join(str(x) for x in v.get("load_avg_1m") or []) + " |")
    return L + [""]


def _comparison(doc: dict) -> list[str]:
    ok = _ok(doc)
    pairs = [(a, b) for a, b in (("on", "off"), ("on-parquet", "off-parquet"), ("on-mdt", "off")) if a in ok and b in ok]
    if not pairs:
        return []
    L = ["## ON over OFF", "", "| block format | commit median | last-20 median | data files | data bytes | snapshot read |",
         "|---|---|---|---|---|---|"]
    for a, b in pairs:
        x, y = ok[a], ok[b]

        def r(f, x=x, y=y):
            u, w = f(x), f(y)
            return f"{u / w:.2f}x" if u is not None and w else "-"

        L.append(f"| {'parquet' if 'parquet' in a else 'avro'}{', filters in the metadata table' if 'mdt' in a else ''} | {r(lambda v: v['commit_summary']['median'])} | "
                 f"{r(lambda v: v['commit_summary']['last_median'])} | {r(lambda v: v['files']['data_files'])} | "
                 f"{r(lambda v: v['files']['data_bytes'])} | {r(lambda v: v['reads']['snapshot'].get('median'))} |")
    return L + [""]


def write_markdown(doc: dict, out: str) -> str:
    p = doc.get("params", {})
    L = [f"# Streaming ingest: {p.get('commits')} commits of {p.get('inserts'):,} inserts + {p.get('updates'):,} "
         "updates into a merge-on-read table, log-file indexing on and off", "",
         f"Command: `{str(doc.get('command')).strip()}` — started {doc.get('started_at')}, wall time {doc.get('wall_seconds')} s.",
         "", "## Checks", ""]
    for t in doc.get("targets", []):
        mark = {True: "**OK**", False: "**FAILED**", None: "not measured"}[t["met"]]
        L.append(f"- {t['text']}: {mark} — {t['detail']}")
    L += [""] + _table(doc) + _comparison(doc) + _details(doc) + _setup(doc)
    L += ["![commit latency over the commits, a line per variant](commit_latency.png)", ""]
    return results.write_report(out, L)


# ---------------------------------------------------------------- plot


def write_plot(doc: dict, out: str) -> str | None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ok = _ok(doc)
    if not ok:
        return None
    colors = {"on": "#d62728", "off": "#1f77b4", "on-parquet": "#ff7f0e", "off-parquet": "#17becf", "on-mdt": "#2ca02c"}
    fig, ax = plt.subplots(figsize=(10, 5.5))
    for name, v in ok.items():
        xs = [c["commit"] for c in v["commits"]]
        ys = [c["seconds"] for c in v["commits"]]
        ax.plot(xs, ys, label=v["label"], color=colors.get(name), linewidth=1, alpha=0.85)
        comp = [(c["commit"], c["seconds"]) for c in v["commits"] if c.get("services", {}).get("commit")]
        if comp:
            ax.scatter([c[0] for c in comp], [c[1] for c in comp], color=colors.get(name), s=10, marker="o")
    ax.set_xlabel("commit")
    ax.set_ylabel("upsert time, s (dots: commits that ran a compaction)")
    p = doc.get("params", {})
    ax.set_title(f"{p.get('inserts'):,} inserts + {p.get('updates'):,} updates per commit, merge-on-read, "
                 f"{p.get('index_type')} index (local[2])", fontsize=10)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(out, "commit_latency.png")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


# ---------------------------------------------------------------- rich summary


def summary_table(doc: dict):
    from rich.table import Table

    table = Table(title="streaming ingest")
    for col in ("variant", "commit median", "p90", "max", "first/last median", "base files", "log files",
                "data MiB", "snapshot read", "RO read", "check"):
        table.add_column(col, justify="left" if col == "variant" else "right")
    for v in doc.get("variants", {}).values():
        if "error" in v:
            table.add_row(v["label"], f"failed at commit {v.get('failed_at_commit')}", *[""] * 9)
            continue
        s, f = v["commit_summary"], v["files"]
        table.add_row(v["label"], fmt_seconds(s["median"]), fmt_seconds(s["p90"]), fmt_seconds(s["max"]),
                      f"{fmt_seconds(s['first_median'])} / {fmt_seconds(s['last_median'])}", str(f["base_files"]),
                      str(f["log_files"]), f"{f['data_bytes'] / 2 ** 20:.1f}", _read(v, "snapshot"),
                      _read(v, "read_optimized"), "OK" if v["check"]["ok"] else "FAILED")
    return table
