"""results.json: every case's samples and summary, the run's settings, data shape and versions.

Runs accumulate: a run with --only replaces the cases it ran and keeps the others (each case
records when it ran); data of another fingerprint is dropped."""
from __future__ import annotations

import json
import os

SCHEMA_VERSION = 1


def load(path: str, fingerprint: str) -> dict:
    if os.path.exists(path):
        with open(path) as f:
            doc = json.load(f)
        if doc.get("schema_version") == SCHEMA_VERSION and doc.get("fingerprint") == fingerprint:
            return doc
    return {"schema_version": SCHEMA_VERSION, "fingerprint": fingerprint, "runs": [], "cases": {}}


def save(path: str, doc: dict) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=False, default=str)  # dates and paths as text
        f.write("\n")
    os.replace(tmp, path)


def write_report(out: str, lines: list[str]) -> str:
    """report.md of a sub-bench (planning, latency): `lines`, then the hand-written analysis.md of `out`
    when there is one; its path."""
    analysis = os.path.join(out, "analysis.md")
    if os.path.exists(analysis):
        with open(analysis) as f:
            lines = lines + [f.read().rstrip(), ""]
    path = os.path.join(out, "report.md")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return path


def rewrite_report(report, out: str) -> None:
    """A sub-bench's `report` command: report.md, plot and summary again from `out`/results.json, with
    that sub-bench's report module (targets, write_markdown, write_plot, summary_table)."""
    from rich.console import Console

    with open(os.path.join(out, "results.json")) as f:
        doc = json.load(f)
    doc["targets"] = report.targets(doc)
    report.write_markdown(doc, out)
    report.write_plot(doc, out)
    Console(width=160).print(report.summary_table(doc))
