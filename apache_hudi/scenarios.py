"""Scenarios: a table written step by step by pyhudi (or Apache Hudi), both readers set against the model
after every step, then Apache Hudi's read-optimized, time-travel and incremental answers against ours, and its
metadata-table reader against the files (apache_hudi.validate)."""
from __future__ import annotations

from dataclasses import dataclass, field

from apache_hudi import listings
from apache_hudi.listings import timeline_instants
from apache_hudi.model import Model, row, table
from apache_hudi.process import HudiError
from apache_hudi.releases import NEWEST
from apache_hudi.validate import table_properties, validate

WRITES = ("upsert", "insert", "bulk_insert", "delete", "insert_overwrite", "insert_overwrite_table",
          "delete_partition")
# Apache Hudi's own failures on tables it wrote itself: (release, text of the failure, reference). A read that
# fails so is listed in Outcome.known and not counted as a difference; hudi-meta's answer is still checked.
KNOWN_HUDI_BUGS = (
    ("1.0.2", "java.lang.Integer cannot be cast to class java.lang.Long",
     "apache/hudi#19901: a delete's default ordering value (Integer 0) compared with a long ordering field when "
     "the key is written again in a later log block; fixed after 1.0.2"),
)
SERVICES = ("compact", "log_compact", "cluster", "clean", "archive", "savepoint", "restore")
SECONDARY_INDEX = "secondary_index"  # a step: pyhudi builds secondary_index_name_idx on `name` (indexing action)


@dataclass(frozen=True)
class Step:
    op: str
    keys: tuple = ()
    by: str = "pyhudi"  # or a release of Apache Hudi ("1.0.2", "1.2.0")
    partitions: tuple = ()  # delete_partition


@dataclass(frozen=True)
class Scenario:
    name: str
    options: dict
    steps: tuple

    @property
    def partitioned(self) -> bool:
        return bool(self.options.get("hoodie.datasource.write.partitionpath.field"))


def options(name: str, table_type: str = "COPY_ON_WRITE", partitioned: bool = True, **extra: str) -> dict:
    base = {"hoodie.table.name": name, "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts",
            "hoodie.datasource.write.table.type": table_type,
            "hoodie.datasource.write.partitionpath.field": "city" if partitioned else "",
            "hoodie.datasource.write.keygenerator.class": "org.apache.hudi.keygen.SimpleKeyGenerator"
            if partitioned else "org.apache.hudi.keygen.NonpartitionedKeyGenerator"}
    return {**base, **{k.replace("__", "."): v for k, v in extra.items()}}


@dataclass
class Outcome:
    """What a scenario found: one line per difference, empty when everything agreed."""
    scenario: str
    steps: int = 0
    differences: list = field(default_factory=list)
    checked: list = field(default_factory=list)  # what was compared, for the report
    known: list = field(default_factory=list)  # Apache Hudi failures of KNOWN_HUDI_BUGS met on the way

    @property
    def ok(self) -> bool:
        return not self.differences


class Runner:
    def __init__(self, spark, hudis: dict):
        self.spark, self.hudis = spark, hudis  # release -> running ApacheHudi

    def run(self, scenario: Scenario, path: str) -> Outcome:
        from tests.canonical import canon

        out, model, history = Outcome(scenario.name), Model(partitioned=scenario.partitioned), []
        savepoints: dict = {}
        for number, step in enumerate(scenario.steps, start=1):
            try:
                instant = self._apply(scenario, step, path, model, savepoints, number)
            except HudiError as exc:  # Apache Hudi refused to write on the table: a finding, the scenario ends
                out.differences.append(f"step {number} {step.op} by {step.by}: Apache Hudi fails: {_cause(exc)}")
                return out
            out.steps = number
            if instant:
                history.append((instant, model.canon()))
            want = model.canon()
            self._compare(out, f"step {number} {step.op} by {step.by}", want, canon(self._ours(path)),
                          self._theirs(path))
        self._after(out, scenario, path, model, history)
        return out

    def _apply(self, scenario: Scenario, step: Step, path: str, model: Model, savepoints: dict, number: int):
        from pyhudi import HudiTable

        rows = table([row(k, number) for k in step.keys])
        if step.by != "pyhudi":
            return self._hudi_step(scenario, step, path, model, rows, number)
        t = HudiTable(self.spark, path, scenario.options)
        if step.op in WRITES:
            df = self.spark.createDataFrame(rows) if step.keys else None
            instant = t.delete_partition(list(step.partitions)) if step.op == "delete_partition" \
                else getattr(t, step.op)(df)
            model.apply(step.op, step.keys, number, step.partitions)
            return instant
        if step.op == "savepoint":
            savepoints[t.savepoint()] = dict(model.rows)
            return None
        if step.op == "restore":
            instant, rows_then = max(savepoints.items())
            t.restore(instant)
            model.rows = dict(rows_then)
            return None
        if step.op == SECONDARY_INDEX:
            from pyhudi.services import indexing
            return indexing.create(self.spark, path, "secondary_index_name_idx", column="name").requested_time
        getattr(t, step.op)()
        return None

    def _hudi_step(self, scenario: Scenario, step: Step, path: str, model: Model, rows, number: int):
        hudi = self.hudis[step.by]
        opts = {**scenario.options, "hoodie.datasource.write.operation": step.op,
                "hoodie.write.table.version": _table_version(path, hudi.release.table_version)}
        if step.op == "delete_partition":
            opts["hoodie.datasource.write.partitions.to.delete"] = ",".join(step.partitions)
            rows = table([])
        if step.op in WRITES:
            hudi.write(path, rows, **opts)
            model.apply(step.op, step.keys, number, step.partitions)
            return _latest_commit(path)
        name = hudi.register(path)
        hudi.sql({"compact": f"CALL run_compaction(op => 'scheduleandexecute', table => '{name}')",
                  "cluster": f"CALL run_clustering(table => '{name}')",
                  "clean": f"CALL run_clean(table => '{name}')",
                  "archive": f"CALL archive_commits(table => '{name}')"}[step.op])
        return None

    def _ours(self, path: str, **read_options):
        return self.spark.read.format("hudi-meta").options(**read_options).load(path).toArrow()

    def _ours_unless_cleaned(self, out: Outcome, what: str, path: str, **read_options) -> dict | None:
        """Our answer, or None when a clean removed the files of the instant asked for: hudi-meta refuses such
        a read with the reason (docs/format.md), so there is nothing to compare."""
        from tests.canonical import canon

        try:
            return canon(self._ours(path, **read_options))
        except Exception as exc:
            if "earliest instant still readable" not in str(exc):
                raise
            out.checked.append(f"{what}: cleaned, refused by hudi-meta with the reason")
            return None

    def _theirs(self, path: str, **read_options) -> dict:
        """release -> a call reading the table through that Apache Hudi, in canonical form."""
        from tests.canonical import canon

        return {v: (lambda h=h: canon(h.read(path, **read_options))) for v, h in self.hudis.items()}

    @staticmethod
    def _compare(out: Outcome, what: str, want, ours, theirs: dict) -> None:
        out.checked.append(what)
        if want is not None and ours != want:
            out.differences.append(f"{what}: hudi-meta {_diff(ours, want)}")
        for release, read in theirs.items():
            try:
                got = read()
            except HudiError as exc:
                known = [ref for r, text, ref in KNOWN_HUDI_BUGS if r == release and text in str(exc)]
                (out.known if known else out.differences).append(
                    f"{what}: Apache Hudi {release} fails: {known[0] if known else _cause(exc)}")
                continue
            if got != (want if want is not None else ours):
                out.differences.append(f"{what}: Apache Hudi {release} {_diff(got, want or ours)}")

    def _after(self, out: Outcome, scenario: Scenario, path: str, model: Model, history: list) -> None:
        from tests.canonical import canon

        ro = {"hoodie.datasource.query.type": "read_optimized"}
        self._compare(out, "read_optimized", None, canon(self._ours(path, **ro)),
                      self._theirs(path, **ro))
        for instant, want in history[-3:]:
            tt = {"as.of.instant": instant}
            ours = self._ours_unless_cleaned(out, f"time travel to {instant}", path, **tt)
            if ours is not None:
                self._compare(out, f"time travel to {instant}", want if _still_in_timeline(path, instant) else None,
                              ours, self._theirs(path, **tt))
        if len(history) >= 2:
            begin = history[-2][0]
            inc = {"hoodie.datasource.query.type": "incremental", "hoodie.datasource.read.begin.instanttime": begin}
            ours = self._ours_unless_cleaned(out, f"incremental after {begin}", path, **inc)
            if ours is not None:
                self._compare(out, f"incremental after {begin}", None, ours, self._theirs(path, **inc))
        if scenario.options.get("hoodie.table.cdc.enabled") == "true" and len(history) >= 2:
            cdc = {"hoodie.datasource.query.type": "incremental", "hoodie.datasource.query.incremental.format": "cdc",
                   "hoodie.datasource.read.begin.instanttime": history[0][0]}
            ours = self._ours_unless_cleaned(out, "cdc", path, **cdc)
            if ours is not None:  # against the newest release: 1.0.2 leaves out some copy-on-write deletes
                theirs = {v: read for v, read in self._theirs(path, **cdc).items() if v == NEWEST}
                self._compare(out, f"cdc after {history[0][0]}", None, ours, theirs)
        for release, hudi in self.hudis.items():
            out.checked.append(f"validator {release}")
            out.differences += [f"validator {release}: {p}" for p in validate(hudi, path)]
            out.checked.append(f"listing procedures {release}")
            out.differences += [f"procedures {release}: {p}" for p in listings.differences(hudi, path)]


def _cause(exc: Exception) -> str:
    """The innermost message of a Hudi failure and where it was raised (the outer ones are Spark's wrappers)."""
    lines = str(exc).splitlines()
    causes = [ln for ln in lines if not ln.startswith("    at ")]
    frames = [ln.strip() for ln in lines if ln.startswith("    at ")][:2]
    return " ".join([causes[-1].strip()[:400]] + frames)


def _diff(got: dict, want: dict) -> str:
    if got.get("columns") != want.get("columns"):
        return f"columns {got.get('columns')} != {want.get('columns')}"
    g, w = [tuple(r) for r in got["rows"]], [tuple(r) for r in want["rows"]]
    extra, missing = sorted(set(g) - set(w), key=str), sorted(set(w) - set(g), key=str)
    return f"{len(g)} rows (want {len(w)}): extra {extra[:2]}, missing {missing[:2]}"


def _latest_commit(path: str) -> str:
    return max(timeline_instants(path)["commits"])


def _still_in_timeline(path: str, instant: str) -> bool:
    return instant in timeline_instants(path)["commits"]


def _table_version(path: str, new_table: int) -> str:
    """The table's version (a release writing on our table keeps it), or `new_table` for a table not made yet."""
    from pathlib import Path

    if not (Path(path) / ".hoodie" / "hoodie.properties").exists():
        return str(new_table)
    return table_properties(path)["hoodie.table.version"]
