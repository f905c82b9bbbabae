"""The goal, the extrapolated listing figures and the plot of the object-store benchmark, from results.json
(report.md is markdown.py's). Extrapolated figures are computed here, kept apart in results.json
("extrapolated") and labelled so wherever they are shown; they are never mixed with measured ones."""
from __future__ import annotations

import os

from bench.measure import fmt_seconds

GOAL_SECONDS = 1.0
LISTING_MODES = ("hudi-meta-listing", "spark-parquet")
LABELS = {"hudi-meta-mdt": "hudi-meta (metadata table)", "hudi-meta-listing": "hudi-meta (listing)",
          "spark-parquet": "spark.read.parquet"}
RFC15 = {"list_100k_s": 9.9, "mdt_planning_ms": (100, 500),
         "text": "RFC-15: an S3 LIST of 100k objects takes ~9.9 s; planning from the metadata table ~100-500 ms"}


def by_files(doc: dict) -> list[str]:
    return sorted(doc["tables"], key=lambda n: doc["tables"][n]["files"])


def goal_case(doc: dict) -> str:
    """The metadata-table case of the largest table, on the bucket of its .hoodie/ alone."""
    return f"{by_files(doc)[-1]}/hoodie/hudi-meta-mdt"


def _all_runs(res: dict) -> list[float]:
    return res["cold"]["samples"] + (res.get("warm") or {}).get("samples", [])


def targets(doc: dict) -> list[dict]:
    cid = goal_case(doc)
    name = doc["planning"][cid]["table"]
    files = doc["tables"][name]["files"]
    text = (f"planning at {files:,} files in under {GOAL_SECONDS:g} s of simulated store time with the metadata "
            "table, in every run (cold and warm) at every latency")
    per = {}
    for ms, res in doc["planning"][cid]["by_latency"].items():
        runs = _all_runs(res)
        per[ms] = {"met": max(runs) < GOAL_SECONDS, "max_s": max(runs), "cold_median_s": res["cold"]["summary"]["median"],
                   "runs": len(runs)}
    if not per:
        return [{"text": text, "met": None, "detail": "not measured", "per_latency": {}}]
    detail = "; ".join(f"{ms} ms: {'met' if p['met'] else 'missed'} (slowest of {p['runs']} runs "
                       f"{fmt_seconds(p['max_s'])}, cold median {fmt_seconds(p['cold_median_s'])})"
                       for ms, p in per.items())
    return [{"text": text, "met": all(p["met"] for p in per.values()), "case": cid, "detail": detail,
             "per_latency": per}]


def extrapolate(doc: dict) -> dict:
    """Listing figures of the tables whose data objects were not uploaded, from the largest real table's
    measured runs: its LIST requests of the data folders (and the table root) times the ratio of files (the
    pages of a listing grow with the objects, as do the partition folders of these shapes), every other
    request as it was; seconds as those requests x latency one after another, and as its measured wall time x the
    ratio. Also what a real upload would have cost the server (memory, PUT time, LIST scans)."""
    real = [n for n in by_files(doc) if doc["tables"][n]["objects"]]
    if not real:
        return {}
    src = real[-1]
    out: dict = {"from_table": src, "cases": {}}
    for target in by_files(doc):
        t = doc["tables"][target]
        if t["objects"] or t["files"] <= doc["tables"][src]["files"]:
            continue
        factor = t["files"] / doc["tables"][src]["files"]
        for mode in LISTING_MODES:
            case = doc["planning"].get(f"{src}/full/{mode}")
            if not case:
                continue
            lat_out = {}
            for ms, res in case["by_latency"].items():
                req = res["cold"]["requests"]
                by_op: dict[str, float] = {}
                for key, n in req["by_area_op"].items():
                    where, op = key.split(":", 1)
                    by_op[op] = by_op.get(op, 0) + n * (factor if key == "data:LIST" else 1)
                total = sum(by_op.values())
                lat_out[ms] = {"requests_by_op": {k: round(v) for k, v in by_op.items()}, "requests": round(total),
                               "requests_x_latency_s": total * float(ms) / 1000,
                               "wall_x_factor_s": res["cold"]["summary"]["median"] * factor}
            out["cases"][f"{target}/{mode}"] = {"table": target, "mode": mode, "factor": factor,
                                                "by_latency": lat_out}
        out.setdefault("why_not_real", {})[target] = _why_not_real(doc, src, t["files"])
    return out


def _why_not_real(doc: dict, src: str, files: int) -> dict:
    """The server's measured costs at the real table, scaled to `files` objects."""
    entry = doc["tables"][src]["buckets"]["full"]
    rss = doc["server"]["rss_mib"]
    keys = list(rss)
    i = keys.index(f"after {src}/full")
    before = rss[keys[i - 1]] if i else rss.get("start")
    per_object_kib = ((rss[keys[i]] or 0) - (before or 0)) * 1024 / entry["upload"]["objects"]
    put_rate = entry["upload"]["objects"] / max(entry["upload"]["seconds"], 1e-9)
    costs = doc["server"]["list_cost"].get(entry["bucket"], [])
    list_ms = costs[0]["median_ms"] if costs else None
    factor = files / doc["tables"][src]["files"]
    return {"objects": files, "server_kib_per_object": round(per_object_kib, 2),
            "server_rss_gib": round(per_object_kib * files / 2**20, 1), "put_per_s": round(put_rate),
            "upload_minutes": round(files / put_rate / 60, 1), "list_ms_measured": list_ms,
            "list_ms_scaled": round(list_ms * factor, 1) if list_ms is not None else None}


# ---------------------------------------------------------------- plot


def _plot_series(doc: dict):
    """(label, mode, latency, [(files, median, min, max)], extrapolated)."""
    series = []
    for ms in map(lambda x: f"{x:g}", doc["latencies_ms"]):
        mdt = [(doc["tables"][c["table"]]["files"], c["by_latency"][ms]["cold"]["summary"])
               for c in doc["planning"].values() if c["layout"] == "hoodie" and ms in c["by_latency"]]
        series.append((f"{LABELS['hudi-meta-mdt']}, .hoodie/-only buckets", "hudi-meta-mdt", ms, mdt, False))
        for mode in cases_modes(doc):
            pts = [(doc["tables"][c["table"]]["files"], c["by_latency"][ms]["cold"]["summary"])
                   for c in doc["planning"].values()
                   if c["layout"] == "full" and c["mode"] == mode and ms in c["by_latency"]]
            series.append((LABELS[mode] + ("" if mode != "hudi-meta-mdt" else ", bucket with the data objects"),
                           mode, ms, pts, False))
            ext = [(doc["tables"][e["table"]]["files"], {"median": e["by_latency"][ms]["wall_x_factor_s"]})
                   for e in doc.get("extrapolated", {}).get("cases", {}).values()
                   if e["mode"] == mode and ms in e["by_latency"]]
            if ext and pts:
                series.append((LABELS[mode] + " (extrapolated)", mode, ms, [pts[-1]] + ext, True))
    return series


def cases_modes(doc: dict) -> list[str]:
    return list(dict.fromkeys(c["mode"] for c in doc["planning"].values() if c["layout"] == "full"))


def write_plot(doc: dict, out: str) -> str | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    colors = {"hudi-meta-mdt": "tab:blue", "hudi-meta-listing": "tab:orange", "spark-parquet": "tab:green"}
    styles = {ms: s for ms, s in zip(map(lambda x: f"{x:g}", doc["latencies_ms"]), ["o", "s", "^", "D", "v"])}
    dashes = {ms: d for ms, d in zip(map(lambda x: f"{x:g}", doc["latencies_ms"]), ["-", "--", ":", "-."])}
    fig, ax = plt.subplots(figsize=(11, 7))
    for label, mode, ms, pts, ext in _plot_series(doc):
        if not pts:
            continue
        xs = [p[0] for p in pts]
        ys = [p[1]["median"] for p in pts]
        lo = [p[1]["median"] - p[1].get("min", p[1]["median"]) for p in pts]
        hi = [p[1].get("max", p[1]["median"]) - p[1]["median"] for p in pts]
        face = "none" if ext else colors[mode]
        alpha = 0.55 if "data objects" in label else 1.0
        ax.errorbar(xs, ys, yerr=[lo, hi], color=colors[mode], marker=styles[ms], mfc=face, alpha=alpha,
                    linestyle=":" if ext else dashes[ms], capsize=3, label=f"{label}, {ms} ms")
    ax.axhline(GOAL_SECONDS, color="red", linewidth=1)
    ax.text(min(t["files"] for t in doc["tables"].values()), GOAL_SECONDS * 1.08,
            f"goal: {GOAL_SECONDS:g} s with the metadata table", color="red", fontsize=9)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("data files in the table")
    ax.set_ylabel("planning a full snapshot query, cold (s, median; bars: min-max)")
    ax.set_title("Planning on the S3 server with per-request latency: metadata table vs listing\n"
                 "hollow markers, dotted: extrapolated from the largest measured listing (not measured)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper left", ncol=2)
    fig.tight_layout()
    path = os.path.join(out, "planning_vs_files.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
