"""report.md, the plot and the rich summary of the latency benchmark, from results.json."""
from __future__ import annotations

import os

from bench import results
from bench.measure import fmt_seconds

GOAL_RATIO = 1.3
GOAL_BIG, GOAL_SMALL = ("100k", 500), ("1k", 10)  # (size, commits)
# the goal is pyhudi's with its metadata table: with the default (SIMPLE) index and with the record index
GOAL_SYSTEMS = ("pyhudi-mdt-on", "pyhudi-ri", "pyhudi-mdt-off")
SHORT = {"pyhudi-mdt-on": "pyhudi mdt=on", "pyhudi-ri": "pyhudi rec-index", "pyhudi-mdt-off": "pyhudi mdt=off",
         "delta-rs": "delta-rs"}


def _case(doc: dict, size: str, system: str, commits) -> dict | None:
    return doc["sizes"].get(size, {}).get("cases", {}).get(system, {}).get(str(commits))


def _median(doc: dict, size: str, system: str, commits) -> float | None:
    c = _case(doc, size, system, commits)
    return c["summary"]["median"] if c else None


def _systems(doc: dict) -> list[str]:
    return [s for s in SHORT if any(s in e["cases"] for e in doc["sizes"].values())]


def targets(doc: dict) -> list[dict]:
    out = []
    for system in GOAL_SYSTEMS:
        text = (f"{SHORT[system]}: small-upsert time at {GOAL_BIG[0]} files and {GOAL_BIG[1]} commits within "
                f"{GOAL_RATIO}x of its time at {GOAL_SMALL[0]} files and {GOAL_SMALL[1]} commits"
                + (" (the issue's goal)" if system != "pyhudi-mdt-off" else " (shown for comparison)"))
        big = _median(doc, GOAL_BIG[0], system, GOAL_BIG[1])
        small = _median(doc, GOAL_SMALL[0], system, GOAL_SMALL[1])
        if big is None or small is None:
            out.append({"text": text, "system": system, "met": None,
                        "detail": f"this run did not measure both {GOAL_SMALL[0]} files / {GOAL_SMALL[1]} commits "
                                  f"and {GOAL_BIG[0]} files / {GOAL_BIG[1]} commits"})
            continue
        ratio = big / small
        detail = f"{fmt_seconds(big)} vs {fmt_seconds(small)}: {ratio:.2f}x"
        if ratio > GOAL_RATIO:
            detail += (f"; it would need <= {fmt_seconds(small * GOAL_RATIO)}, "
                       f"{fmt_seconds(big - small * GOAL_RATIO)} less than it took")
        out.append({"text": text, "system": system, "met": ratio <= GOAL_RATIO, "ratio": ratio, "detail": detail})
    return out


# ---------------------------------------------------------------- markdown


def _s(seconds) -> str:
    seconds = seconds or 0.0
    return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"


def _max_load(doc: dict) -> str:
    loads = [x for e in doc["sizes"].values() for by_c in e["cases"].values() for c in by_c.values()
             for x in (c.get("load_avg_1m") or []) if x is not None]
    return f"{max(loads):.2f}" if loads else "not recorded"


def _setup(doc: dict) -> list[str]:
    env, code = doc.get("env", {}), doc.get("code", {})
    pk = env.get("packages", {})
    warm = doc.get("jvm_warmup", {})
    return ["## Setup", "",
            f"- Machine: {env.get('cpu')}, {env.get('cores')} cores, {env.get('memory_gib')} GiB; "
            f"{env.get('platform')}; Python {env.get('python')}; Java {env.get('java')}",
            f"- Versions: pyhudi {pk.get('pyhudi')} (commit {env.get('pyhudi_commit')}), pyspark {pk.get('pyspark')}, "
            f"deltalake (delta-rs) {pk.get('deltalake')}, pyarrow {pk.get('pyarrow')}",
            f"- Code: commit {str(code.get('commit'))[:10]}, connector jar (source hash) "
            f"{str(code.get('connector_jar_sha256'))[:12]}; files differing from the commit: "
            f"{', '.join(code.get('modified') or []) or 'none'}",
            "- Spark: " + (", ".join(f"{k}={v}" for k, v in doc.get("spark_settings", {}).items()) or "not started"),
            f"- One process, one SparkSession; JVM warm-up: {warm.get('upserts_per_system')} untimed upsert(s) per "
            f"pyhudi system on a scratch tiny table ({warm.get('seconds')} s); every case: 1 untimed warm-up upsert, "
            "then the measured ones (median, min, max), each after an untimed `System.gc()` + `gc.collect()`. "
            "Storage: local disk, OS page cache warm.",
            f"- Machine load (1-minute load average before/after each case): max {_max_load(doc)}",
            *[f"- {n}: skipped, {why}" for n, why in doc.get("skipped", {}).items()], ""]


def _tables(doc: dict) -> list[str]:
    L = ["Tables (`bench/latency/build.py`): hive-style partitions `p=partNNN` (100 at 1k, 20k and 100k files) "
         "of base files of 10 rows (`id` record key, `p`, `v` long, `x` double, `s` string, `ts` long precombine field) loaded by one "
         "bulk_insert commit, written directly with pyhudi's base-file writer (meta columns, Avro schema footer, "
         "zstd; no bloom filter: the writer's 60,000-entry filter is ~430 KB a file). Three tables over the same "
         "files (hard links): Hudi with its metadata table (files, column_stats, partition_stats, built by "
         "`MetadataWriter.initialize`), Hudi without one, Delta (`convert_to_deltalake`, partitioned by `pp` = `p`). "
         "Each run starts from copies of them. Prior commits are added as a writer leaves them: Hudi, one new "
         "50-row base file (the writer's base-file writer, bloom filter included) as a new file group per commit, "
         "partitions in turn, requested -> inflight -> completed, the metadata table committed at the instant and "
         "compacted + cleaned every hoodie.metadata.compact.max.delta.commits (10) as pyhudi's `_commit` does; "
         "Delta, a 50-row `write_deltalake(mode=\"append\")`. Commit counts are completed commits, the load "
         "included; the measured upserts count too (the table of the next count starts from there).", "",
         "| size | partitions x files | files | rows | build (untimed) |", "|---|---|---|---|---|"]
    for size, e in doc["sizes"].items():
        s, b = e["shape"], e["build"]
        bs = b.get("mdt-on", {}).get("build_seconds", {})
        ds = b.get("delta", {}).get("build_seconds", {})
        L.append(f"| {size} | {s['partitions']} x {s['files_per_partition']} | {s['files']:,} | {s['rows']:,} | "
                 f"load files {_s(bs.get('data_files'))} + commit {_s(bs.get('commit'))} + mdt=off copy "
                 f"{_s(bs.get('mdt_off_copy'))} + metadata table {_s(bs.get('metadata_table'))}"
                 + (f"; delta convert {_s(ds.get('convert_to_deltalake'))}" if ds else "")
                 + (" (reused)" if b.get("mdt-on", {}).get("reused") else "") + " |")
    b0 = next(iter(doc["sizes"].values()), {}).get("batch", {})
    L += ["", f"The upsert: {b0.get('rows')} rows in one partition (`{b0.get('partition')}`): the "
          f"{b0.get('updates')} rows of {b0.get('update_files')} load files of it (seeded; whole files, so the "
          f"updates rewrite as many files at every size) with a greater `ts`, and {b0.get('inserts')} new keys; the "
          "same rows for every system at the same commit count. Timed: `time.perf_counter` around the write call "
          "only (the DataFrame / Arrow source made before).", ""]
    L += [f"- **{v['short']}**: {v['what']}" for v in doc.get("systems", {}).values()]
    return L + [""]


def _medians(doc: dict, sizes: list[str], commits: list[int]) -> list[str]:
    L = ["## Upsert time (median; min - max)", "", "| system | commits | " + " | ".join(
        f"{s} ({doc['sizes'][s]['shape']['files']:,} files)" for s in sizes) + " |",
         "|---|---|" + "---|" * len(sizes)]
    for system in _systems(doc):
        for c in commits:
            cells = []
            for size in sizes:
                case = _case(doc, size, system, c)
                sm = case["summary"] if case else None
                cells.append(f"{fmt_seconds(sm['median'])} ({fmt_seconds(sm['min'])} - {fmt_seconds(sm['max'])})"
                             if sm else "-")
            L.append(f"| {SHORT[system]} | {c} | " + " | ".join(cells) + " |")
    return L + [""]


def _ratios(doc: dict, sizes: list[str], commits: list[int]) -> list[str]:
    base_size, base_c = sizes[0], commits[0]
    L = [f"## Growth: each median over the same system's at {base_size} "
         f"({doc['sizes'][base_size]['shape']['files']:,} files) and {base_c} commits", "",
         "| system | commits | " + " | ".join(sizes) + " |", "|---|---|" + "---|" * len(sizes)]
    for system in _systems(doc):
        base = _median(doc, base_size, system, base_c)
        for c in commits:
            cells = [f"{m / base:.2f}x" if base and (m := _median(doc, s, system, c)) else "-" for s in sizes]
            L.append(f"| {SHORT[system]} | {c} | " + " | ".join(cells) + " |")
    L += ["", "## pyhudi vs delta-rs (pyhudi's median over delta-rs's, same size and commits)", ""]
    if "delta-rs" not in _systems(doc):
        return L + ["delta-rs was not measured in this run.", ""]
    L += ["| system | commits | " + " | ".join(sizes) + " |", "|---|---|" + "---|" * len(sizes)]
    for system in GOAL_SYSTEMS:
        for c in commits:
            cells = []
            for s in sizes:
                ours, theirs = _median(doc, s, system, c), _median(doc, s, "delta-rs", c)
                cells.append("-" if not ours or not theirs else
                             f"{ours / theirs:.2f}x ({'slower' if ours > theirs else 'faster'})")
            L.append(f"| {SHORT[system]} | {c} | " + " | ".join(cells) + " |")
    return L + [""]


def _runs(doc: dict) -> list[str]:
    L = ["## Every case", "",
         "| size | system | commits before the timed runs | runs | warm-up | prior commits added | partition check |",
         "|---|---|---|---|---|---|---|"]
    for size, e in doc["sizes"].items():
        for system, by_c in e["cases"].items():
            for c in by_c.values():
                chk, pr = c["partition_check"], c["prior"]
                L.append(f"| {size} | {SHORT[system]} | {', '.join(map(str, c['commits_before_runs']))} | "
                         f"{', '.join(fmt_seconds(x) for x in c['samples'])} | {fmt_seconds(c['warmup'])} | "
                         f"{pr['added']} ({_s(pr['seconds'])}) | "
                         + (f"OK ({chk['rows']:,} rows)" if chk["ok"] else f"**MISMATCH** {chk}") + " |")
    L += ["", "Partition check: after the timed runs, the upsert partition's rows equal its distinct keys and "
          "the last upsert's rows are all there with its `ts`. Row counts of the whole table after the last case "
          "(expected: the load's rows + 50 per later commit):", ""]
    for size, e in doc["sizes"].items():
        for system, r in e.get("row_counts", {}).items():
            L.append(f"- {size}, {SHORT[system]}: {r['rows']:,} rows after {r['commits']} commits — "
                     + ("as expected" if r["ok"] else f"**MISMATCH**, expected {r['expected']:,}"))
    return L + [""]


def write_markdown(doc: dict, out: str) -> str:
    sizes = list(doc["sizes"])
    commits = doc.get("params", {}).get("commits", [])
    L = ["# Write latency: one small upsert as the table grows — pyhudi (metadata table on / off) vs delta-rs", "",
         f"Command: `{doc.get('command')}` — started {doc.get('started_at')}, wall time {doc.get('wall_seconds')} s "
         "(table builds and prior commits included).", "", "## Goal", ""]
    for t in doc.get("targets", []):
        mark = {True: "**met**", False: "**missed**", None: "not measured"}[t["met"]]
        L.append(f"- {t['text']}: {mark} — {t['detail']}")
    L += [""] + _setup(doc) + _tables(doc)
    if sizes and commits:
        L += _medians(doc, sizes, commits) + _ratios(doc, sizes, commits) + _runs(doc)
    L += ["![median upsert time vs data files, a line per system and commit count](upsert_vs_files.png)", ""]
    return results.write_report(out, L)


# ---------------------------------------------------------------- plot


def write_plot(doc: dict, out: str) -> str | None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes, commits = list(doc["sizes"]), doc.get("params", {}).get("commits", [])
    if not sizes:
        return None
    colors = {"pyhudi-mdt-on": "#d62728", "pyhudi-ri": "#9467bd", "pyhudi-mdt-off": "#ff7f0e", "delta-rs": "#2ca02c"}
    markers = {"pyhudi-mdt-on": "o", "pyhudi-ri": "D", "pyhudi-mdt-off": "s", "delta-rs": "^"}
    styles = [":", "--", "-", "-."]
    fig, ax = plt.subplots(figsize=(9, 5.5))
    for system in _systems(doc):
        for k, c in enumerate(commits):
            pts = [(doc["sizes"][s]["shape"]["files"], case["summary"]) for s in sizes
                   if (case := _case(doc, s, system, c))]
            if not pts:
                continue
            xs, sm = [p[0] for p in pts], [p[1] for p in pts]
            ax.errorbar(xs, [m["median"] for m in sm], yerr=[[m["median"] - m["min"] for m in sm],
                                                             [m["max"] - m["median"] for m in sm]],
                        label=f"{SHORT[system]}, {c} commits", color=colors[system], marker=markers[system],
                        linestyle=styles[k % len(styles)], capsize=3, linewidth=2 if system != "delta-rs" else 1.3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("data files in the table (load)")
    ax.set_ylabel("upsert time, s (median; bars: min - max)")
    ax.set_title("One 100-row upsert into one partition vs table size and commits (local[2])", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(out, "upsert_vs_files.png")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


# ---------------------------------------------------------------- rich summary


def summary_table(doc: dict):
    from rich.table import Table

    sizes, commits = list(doc["sizes"]), doc.get("params", {}).get("commits", [])
    table = Table(title="upsert time, median")
    table.add_column("system")
    table.add_column("commits", justify="right")
    for size in sizes:
        table.add_column(size, justify="right")
    for system in _systems(doc):
        for c in commits:
            table.add_row(SHORT[system], str(c), *[fmt_seconds(_median(doc, s, system, c)) for s in sizes],
                          style="bold red" if system == "pyhudi-mdt-on" else None)
        table.add_section()
    return table
