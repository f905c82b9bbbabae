"""Apache Hudi's listing procedures on our timeline: show_commits, show_compaction, show_clustering, show_cleans
(1.1+) and show_archived_commits must list exactly the instants the timeline folder holds."""
from __future__ import annotations

from pathlib import Path

from apache_hudi.process import ApacheHudi
from apache_hudi.validate import table_properties

COMMIT_ACTIONS = ("commit", "deltacommit", "replacecommit")
EARLIEST, LATEST = "19700101000000000", "99991231235959999"


def differences(hudi: ApacheHudi, path: str) -> list[str]:
    name = hudi.register(path)
    ours = timeline_instants(path)
    problems = []
    for procedure, column, want in (("show_commits", "commit_time", ours["commits"]),
                                    ("show_compaction", "timestamp", ours["compaction"]),
                                    ("show_clustering", "timestamp", ours["clustering"]),
                                    ("show_cleans", "clean_time", ours["clean"])):
        if procedure == "show_cleans" and hudi.release.version < "1.1":
            continue  # show_cleans came with Apache Hudi 1.1
        if procedure == "show_compaction" and not _merge_on_read(path):
            continue  # refused on copy-on-write tables ("Cannot show compaction on a Non Merge On Read table")
        listed = set(hudi.sql(f"CALL {procedure}(table => '{name}', limit => 10000)").column(column).to_pylist())
        if listed != want:
            problems.append(f"{procedure} lists {sorted(listed - want)[:3]} beyond the timeline and misses "
                            f"{sorted(want - listed)[:3]}")
    # without a range Hudi lists none of the archived instants (of its own tables too): ask for all of them
    archived = set(hudi.sql(f"CALL show_archived_commits(table => '{name}', limit => 10000, "
                            f"start_ts => '{EARLIEST}', end_ts => '{LATEST}')").column("commit_time").to_pylist())
    if ours["archived"] and not archived:
        problems.append("show_archived_commits lists nothing though the LSM history holds archived instants")
    if archived & ours["commits"]:
        problems.append(f"show_archived_commits lists active instants {sorted(archived & ours['commits'])[:3]}")
    return problems


def _merge_on_read(path: str) -> bool:
    return table_properties(path).get("hoodie.table.type") == "MERGE_ON_READ"


def timeline_instants(path: str) -> dict:
    """The instants of the active timeline by kind, from the file names (`<requested>_<completed>.<action>`)."""
    folder = Path(path) / ".hoodie" / "timeline"
    names = [p.name for p in folder.iterdir() if p.is_file()]
    done = [(n.split(".")[0], n.split(".", 1)[1]) for n in names if "_" in n.split(".")[0]]
    return {"commits": {t.split("_")[0] for t, action in done if action in COMMIT_ACTIONS},
            "clean": {t.split("_")[0] for t, action in done if action == "clean"},
            "compaction": {n.split(".")[0] for n in names if n.endswith(".compaction.requested")},
            "clustering": {n.split(".")[0] for n in names if n.endswith(".clustering.requested")},
            "archived": any((folder / "history").glob("*")) if (folder / "history").is_dir() else False}
