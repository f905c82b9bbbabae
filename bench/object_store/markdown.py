"""report.md of the object-store benchmark, from results.json: settings, the goal, every measured figure
(seconds as median and min - max, requests by op), the extrapolated ones in a section of their own, RFC-15's
figures beside, the upsert, the server's costs and the requests of the metadata-table plans."""
from __future__ import annotations

import collections

from bench import results
from bench.measure import fmt_seconds
from bench.object_store import report

OPS = ("LIST", "HEAD", "GET", "PUT", "POST", "DELETE")


def _ops(by_op: dict) -> str:
    return " ".join(f"{op} {round(by_op[op]):,}" for op in OPS if by_op.get(op)) or "-"


def _x_latency(seconds: list[float], ms: str) -> str:
    return "-" if float(ms) == 0 else fmt_seconds(max(seconds))


def _spread(summary: dict) -> str:
    return (f"{fmt_seconds(summary['median'])} ({fmt_seconds(summary['min'])} - {fmt_seconds(summary['max'])})")


def _setup(doc: dict) -> list[str]:
    env, code = doc.get("env", {}), doc.get("code", {})
    pk = env.get("packages", {})
    tables = "; ".join(f"{n}: {t['files']:,} files = {t['partitions']:,} partitions x {t['files_per_partition']:,}"
                       + (" (real: data objects uploaded)" if t["objects"] else
                          f" (.hoodie/ only, {t['load_commits']} load commits)") for n, t in doc["tables"].items())
    up = doc["upsert"]["table"]
    return [
        f"Command: `{doc.get('command')}` (scale `{doc['scale']}`), {doc.get('started_at')} - "
        f"{doc.get('finished_at')}, wall time {doc.get('wall_seconds')} s.",
        f"Code: commit `{code.get('commit')}`" + (f", modified: {', '.join(code['modified'])}" if code.get("modified")
                                                  else "") + f"; connector jar {code.get('connector_jar_sha256')}.",
        f"Machine: {env.get('cpu')}, {env.get('cores')} cores, {env.get('memory_gib')} GiB; {env.get('platform')}; "
        f"Python {env.get('python')}, {env.get('java')}, pyspark {pk.get('pyspark')}, pyarrow {pk.get('pyarrow')}.",
        "",
        f"- Tables: {tables}. Upsert table: {up['files']:,} files = {up['partitions']} partitions x "
        f"{up['files_per_partition']:,} (real), a fresh copy per latency; the same upsert's requests also on "
        f"`{doc['upsert']['tenx_table']}` (10x the files, same files per partition).",
        f"- Latencies (per request, the server sleeps before serving; requests are served concurrently): "
        f"{', '.join(f'{x:g} ms' for x in doc['latencies_ms'])} (5 ms ~ S3 Express One Zone, 30 ms ~ S3 Standard).",
        f"- Runs: {doc['reps']} cold + {doc['warm_reps']} warm per case and latency; JVM warm-up "
        f"{doc.get('jvm_warmup_seconds')} s before the first. Cold: the connector's caches dropped and a new S3A file "
        "system instance before each run (what a fresh session's first plan does); warm: the same plan again.",
        "- Spark: `pyhudi.spark_session(s3_tables=True)`, local[2], 6 GB driver; hudi-meta read options at the "
        "defaults (the metadata table on) except `hoodie.metadata.enable=false` for the listing mode.",
        f"- Buckets: one per table; S3A per bucket: {', '.join(f'{k}={v}' for k, v in doc['bucket_settings'].items())}"
        " (paging.maximum=1000: S3's own page size; moto would return S3A's default 5,000 per page).",
        "- Uploads: boto3 from 32 threads, untimed by the cases.", ""]


def _goal(doc: dict) -> list[str]:
    out = ["## Goal", ""]
    for t in doc.get("targets", []):
        verdict = "**met**" if t["met"] else "**missed**" if t["met"] is False else "not measured"
        out += [f"- {t['text']}: {verdict}. {t['detail']}.", ""]
    return out


def _planning(doc: dict, kind: str) -> list[str]:
    title = {"cold": "cold (a fresh session's first plan)", "warm": "warm (the same plan again)"}[kind]
    out = [f"## Planning a full snapshot query, {title}: measured", "",
           "| table | bucket | mode | latency | seconds, median (min - max) | requests | by op | requests x latency |",
           "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for c in doc["planning"].values():
        for ms, res in c["by_latency"].items():
            r = res.get(kind)
            if not r:
                continue
            files = {x["files"] for x in r["runs"]}
            flag = "" if files == {c["files_expected"]} else f" **files planned {sorted(files)}**"
            same = "" if r["same_requests"] else " (requests differ between runs)"
            out.append(f"| {c['table']} | {'data + .hoodie' if c['layout'] == 'full' else '.hoodie only'} | "
                       f"{report.LABELS[c['mode']]} | {ms} ms | {_spread(r['summary'])}{flag} | "
                       f"{r['requests']['total']:,}{same} | {_ops(r['requests']['by_op'])} | "
                       f"{_x_latency(r['requests_x_latency_s'], ms)} |")
    return out + ["", "requests x latency: the requests of a run times the latency, as if served one after "
                  "another (an upper bound of the latency's share: S3A, Spark and the connector overlap some).", ""]


def _extrapolated(doc: dict) -> list[str]:
    ext = doc.get("extrapolated") or {}
    if not ext.get("cases"):
        return []
    out = ["## Listing at the sizes not uploaded: EXTRAPOLATED (not measured)", "",
           f"From the measured cold runs on `{ext['from_table']}`: its LIST requests of the data folders (and the "
           "table root) times the ratio of files, its other requests unchanged. 'measured wall x ratio' scales the "
           "measured cold median linearly (moto's LIST cost grows with the bucket too, so at 0 ms this understates "
           "what moto itself would take).", "",
           "| table | mode | latency | requests (extrapolated) | by op | requests x latency (extrapolated) | "
           "measured wall x ratio (extrapolated) |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for e in ext["cases"].values():
        for ms, x in e["by_latency"].items():
            out.append(f"| {e['table']} | {report.LABELS[e['mode']]} | {ms} ms | {x['requests']:,} | "
                       f"{_ops(x['requests_by_op'])} | {_x_latency([x['requests_x_latency_s']], ms)} | "
                       f"{fmt_seconds(x['wall_x_factor_s'])} |")
    for target, w in ext.get("why_not_real", {}).items():
        out += ["", f"Why `{target}` was not uploaded: the server held {w['server_kib_per_object']} KiB per object "
                f"at `{ext['from_table']}` (measured), so {w['objects']:,} objects would need ~{w['server_rss_gib']} GiB "
                f"in one process; PUTs ran at {w['put_per_s']:,}/s, ~{w['upload_minutes']} min of upload; and moto "
                f"scans every key of a bucket for each LIST: {w['list_ms_measured']} ms per LIST at "
                f"`{ext['from_table']}` (measured), ~{w['list_ms_scaled']} ms at {w['objects']:,} (scaled)."]
    return out + [""]


def _rfc15(doc: dict) -> list[str]:
    out = ["## Beside RFC-15's figures", "", f"{report.RFC15['text']}.", "",
           "| figure | RFC-15 | here (measured, cold median) |", "| --- | --- | --- |"]
    for ms in map(lambda x: f"{x:g}", doc["latencies_ms"]):
        for c in doc["planning"].values():
            res = c["by_latency"].get(ms)
            if res and (c["layout"] == "hoodie" or c["mode"] != "hudi-meta-mdt"):
                rfc = ("~100-500 ms" if c["mode"] == "hudi-meta-mdt" else "~9.9 s (LIST of 100k objects)")
                out.append(f"| {c['table']} files, {report.LABELS[c['mode']]}, {ms} ms | {rfc} | "
                           f"{fmt_seconds(res['cold']['summary']['median'])} |")
    return out + [""]


def _upsert(doc: dict) -> list[str]:
    up = doc["upsert"]
    t = up["table"]
    out = ["## The small upsert (100 rows, one partition, SIMPLE index, copy-on-write): measured", "",
           f"On `{t['name']}` ({t['files']:,} real files), a fresh copy per latency: one warm-up upsert (commit 2), "
           f"then {doc['reps']} timed (commits 3 ...).", "",
           "| table | latency | seconds, median (min - max) | requests per run | by op (first run) | by area "
           "(first run) | requests x latency | partition check |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    rows = [(t["name"], ms, r) for ms, r in up["by_latency"].items()]
    if up.get("tenx"):
        rows.append((f"{up['tenx_table']} (10x)", f"{up['tenx']['latency_ms']:g}", up["tenx"]))
    for name, ms, r in rows:
        out.append(f"| {name} | {ms} ms | {_spread(r['summary'])} | {', '.join(map(str, r['requests_total_per_run']))}"
                   f" | {_ops(r['requests']['by_op'])} | {r['requests']['by_area']} | "
                   f"{_x_latency(r['requests_x_latency_s'], ms)} | {'ok' if r['partition_check']['ok'] else 'FAILED'} |")
    if up.get("tenx") and "0" in up["by_latency"]:
        a, b = up["by_latency"]["0"]["runs"], up["tenx"]["runs"]
        out += ["", "Same commit numbers at 0 ms, 10x the files: " + "; ".join(
            f"commit {x['seq']}: {x['requests']['total']} vs {y['requests']['total']} requests "
            f"({y['requests']['total'] / x['requests']['total']:.2f}x)" for x, y in zip(a, b)) + "."]
    return out + [""]


def _server(doc: dict) -> list[str]:
    out = ["## The server", "", "| bucket | objects | MiB | upload s |", "| --- | --- | --- | --- |"]
    for entry in list(doc["tables"].values()) + [doc["upsert"]]:
        for b in entry["buckets"].values():
            u = b["upload"]
            out.append(f"| {b['bucket']} | {u['objects']:,} | {u['bytes'] / 2**20:.1f} | {u['seconds']} |")
    out += ["", "Server RSS (MiB): " + ", ".join(f"{k} {v}" for k, v in doc["server"]["rss_mib"].items()) + ".", "",
            "moto's own time per LIST at latency 0 (median of 5): " + "; ".join(
                f"{b}: " + ", ".join(f"`{c['prefix']}` {c['median_ms']} ms" for c in cs)
                for b, cs in doc["server"]["list_cost"].items()) + ". Every LIST of a bucket pays this on top of the "
            "latency, single-threaded in the server; listing figures on the buckets with data objects include it.", ""]
    return out


def _mdt_requests(doc: dict) -> list[str]:
    out = ["## The requests of the metadata-table plans (first cold run, grouped; in order of first use)", ""]
    for cid, c in doc["planning"].items():
        if c["mode"] != "hudi-meta-mdt":
            continue
        for res in list(c["by_latency"].values())[:1]:
            rows = collections.Counter((op, key, rng is not None) for op, key, rng, _ in res["cold"]["request_log"])
            out += [f"`{cid}` ({res['cold']['requests']['total']} requests):", "", "```"]
            out += [f"{n:>3} x {op:5s} {key}{' (ranged)' if ranged else ''}" for (op, key, ranged), n in rows.items()]
            out += ["```", ""]
    return out


def write_markdown(doc: dict, out: str) -> str:
    lines = ["# Planning and a small upsert on an object store, by simulation (S3 server with latency)", ""]
    lines += _setup(doc) + _goal(doc) + _planning(doc, "cold") + _planning(doc, "warm") + _extrapolated(doc)
    lines += _rfc15(doc) + _upsert(doc) + _server(doc) + _mdt_requests(doc)
    return results.write_report(out, lines)
