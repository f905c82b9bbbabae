"""PNG plots (matplotlib, Agg backend): one bar chart per workload (median, min-max whiskers,
ours highlighted) and an overview of our ratios to each peer."""
from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from bench.measure import fmt_seconds  # noqa: E402
from bench.workloads import WORKLOADS  # noqa: E402

OURS, PEER = "#d62728", "#7f7f7f"


def _ok(doc, wid):
    return [c for c in doc["cases"].values() if c["workload"] == wid and c.get("status") == "ok"]


def workload_plot(doc: dict, wid: str, out: str) -> str | None:
    cases = _ok(doc, wid)
    if not cases:
        return None
    labels = [c["label"] for c in cases]
    med = [c["summary"]["median"] for c in cases]
    lo = [c["summary"]["median"] - c["summary"]["min"] for c in cases]
    hi = [c["summary"]["max"] - c["summary"]["median"] for c in cases]
    fig, ax = plt.subplots(figsize=(8, 0.55 * len(cases) + 1.6))
    y = range(len(cases))
    ax.barh(y, med, xerr=[lo, hi], color=[OURS if c["ours"] else PEER for c in cases], capsize=3,
            error_kw={"elinewidth": 1})
    ax.set_yticks(list(y), labels)
    ax.invert_yaxis()
    ax.set_xlabel("seconds (median; whiskers: min - max)")
    ax.set_title(f"{WORKLOADS[wid].title}: scale {doc.get('scale')}, {doc.get('data', {}).get('rows')} rows",
                 fontsize=10)
    top = max(m + h for m, h in zip(med, hi))
    for i, c in enumerate(cases):
        files = c.get("info", {}).get("files")
        if isinstance(files, list) and files:
            files = f"{min(files)}-{max(files)}" if min(files) != max(files) else files[0]
        note = fmt_seconds(med[i]) + (f"  ({files} files)" if files is not None else "")
        ax.text(med[i] + hi[i] + top * 0.01, i, note, va="center", fontsize=8)
    ax.set_xlim(0, top * 1.35)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    path = os.path.join(out, f"{wid}.png")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def overview_plot(doc: dict, out: str) -> str | None:
    """Every (our case, peer case) ratio of medians on a log scale, per workload."""
    bars = []
    for wid in WORKLOADS:
        cases = _ok(doc, wid)
        for o in (c for c in cases if c["ours"]):
            for p in (c for c in cases if not c["ours"]):
                bars.append((f"{wid}: {o['label']} / {p['label']}", o["summary"]["median"] / p["summary"]["median"]))
    if not bars:
        return None
    fig, ax = plt.subplots(figsize=(9, 0.28 * len(bars) + 1.5))
    y = range(len(bars))
    ax.barh(y, [r for _, r in bars], color=["#2ca02c" if r < 1 else OURS for _, r in bars])
    ax.set_xscale("log")
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(list(y), [n for n, _ in bars], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("ratio of medians, ours / peer (log scale; left of 1 = ours faster)")
    ax.set_title(f"pyhudi + hudi-meta against peers: scale {doc.get('scale')}", fontsize=10)
    for i, (_, r) in enumerate(bars):
        ax.text(r, i, f" {r:.2f}x", va="center", fontsize=7)
    ax.grid(axis="x", alpha=0.3, which="both")
    fig.tight_layout()
    path = os.path.join(out, "overview.png")
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def write_all(doc: dict, out: str) -> list[str]:
    os.makedirs(out, exist_ok=True)
    paths = [workload_plot(doc, wid, out) for wid in WORKLOADS] + [overview_plot(doc, out)]
    paths = [p for p in paths if p]
    if paths:  # the report links the plots: write it again now that they exist
        from bench import report

        report.write_markdown(doc, out)
    return paths
