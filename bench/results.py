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
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(tmp, path)
