"""The conformance vectors (tests/conformance/*.json) through pyhudi's owner of each rule; the Java
side runs the same files (test_java.py), so the two cannot drift apart unnoticed."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
DOCS = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(HERE.glob("*.json"))}


def instant_file_names(given):
    from pyhudi.table.timeline import parse_instant_file

    inst = parse_instant_file(given["fileName"], given["layoutVersion"])
    if inst is None:
        return None
    return {"requestedTime": inst.requested_time, "action": inst.action, "state": inst.state.upper(),
            "completionTime": inst.completion_time}


def base_file_names(given):
    from pyhudi.table import file_names

    name = given["fileName"]
    if not file_names.is_base(name):
        return None
    b = file_names.parse_base(name)
    return {"fileId": b.file_id, "writeToken": b.write_token, "instantTime": b.instant, "extension": b.ext}


def log_file_names(given):
    from pyhudi.table import file_names

    name = given["fileName"]
    if not file_names.is_log(name):
        return None
    log = file_names.parse_log(name)
    return {"fileId": log.file_id, "instantTime": log.instant, "version": log.version,
            "writeToken": log.write_token, "cdcSuffix": log.cdc_suffix}


def metadata_keys(given):
    from pyhudi.metadata import keys

    args = {k: v for k, v in given.items() if k != "function"}
    run = {"hashId64": lambda value: keys.hash_id64(value),
           "hashId128": lambda value: keys.hash_id128(value),
           "filesKey": lambda partition: keys.files_key(partition),
           "columnStatsKey": lambda column, partition, fileName: keys.column_stats_key(column, partition, fileName),
           "partitionStatsKey": lambda column, partition: keys.partition_stats_key(column, partition),
           "bloomFilterKey": lambda partition, fileName: keys.bloom_filter_key(partition, fileName),
           "fileGroupIndex": lambda key, fileGroupCount: keys.file_group_index(key, fileGroupCount)}
    return run[given["function"]](**args)


def metadata_block_validity(given):
    from pyhudi.metadata.validity import block_is_valid

    return block_is_valid(given["instant"], log_compacted=given["logCompacted"], mdt_action=given["mdtAction"],
                          data=given["data"], first_data_instant=given["firstDataInstant"])


def file_slices(given):
    from pyhudi.table.file_slices import build_slices, committed_rule
    from pyhudi.table.timeline import Instant

    instants = [Instant(i["requestedTime"], i["action"], i["state"].lower(), i["completionTime"])
                for i in given["instants"]]
    done = {i.requested_time: i.completion_time for i in instants if i.is_completed}
    slices = build_slices(given["files"], committed_rule(instants), done.get, base_format="parquet")
    return {fid: [{"baseInstantTime": s.base_instant, "baseFile": s.base, "logFiles": s.logs} for s in group]
            for fid, group in slices.items()}


def timeline_state(given):
    from pyhudi.table.timeline import collapse, last_write, parse_instant_file, timeline_hash

    found = (parse_instant_file(n, given["layoutVersion"]) for n in given["fileNames"])
    instants = collapse([i for i in found if i])
    return {"lastInstant": last_write(instants), "timelineHash": timeline_hash(instants)}


def read_option_keys(given):
    from pyhudi.config import read_keys

    return getattr(read_keys, given["name"])


def secondary_index_keys(given):
    from pyhudi.metadata import secondary_index as si

    if given["function"] == "splitKey":
        try:
            value, key = si.split_key(given["key"])
        except si.SecondaryIndexNameError:
            return "error"
        return {"value": value, "recordKey": key}
    run = {"escape": lambda text: si.escape(text), "unescape": lambda text: si.unescape(text),
           "entryKey": lambda value, recordKey: si.entry_key(value, recordKey),
           "valuePrefix": lambda value: si.value_prefix(value)}
    return run[given["function"]](**{k: v for k, v in given.items() if k != "function"})


def bloom_filters(given):
    """Written as the writers write a footer's filter (add_all), read back as the bloom index reads one."""
    import hashlib

    from pyhudi.basefile import bloom

    written = bloom.create_bloom_filter(given["type"], given["numEntries"], given["fpp"], given["maxEntries"])
    written.add_all(given["keys"])
    text = written.serialize()
    read = bloom.parse_bloom_filter(text, given["type"])
    return {"serialized": text if len(text) <= 200 else None,
            "sha256": hashlib.sha256(text.encode("ascii")).hexdigest(),
            "mightContain": dict(zip(given["probe"], read.might_contain_all(given["probe"])))}


def table_config(given):
    import tempfile

    from pyhudi.storage import Storage
    from pyhudi.table import properties

    with tempfile.TemporaryDirectory() as tmp:
        meta = Path(tmp) / ".hoodie"
        if given["metaFolder"]:
            meta.mkdir()
        for name, text in given["files"].items():
            (meta / name).write_bytes(text.encode("latin-1"))
        storage, base = Storage.for_uri(tmp)
        out: dict = {"exists": properties.exists(storage, base)}
        try:
            props = properties.load(storage, base)
        except properties.TableNotFoundError:
            return {**out, "error": "not found"}
        except properties.TablePropertiesError:
            return {**out, "error": "invalid"}
        return {**out, "properties": {k: props.get(k) for k in given["keys"]}}


RUNNERS = {"instant_file_names": instant_file_names, "base_file_names": base_file_names,
           "log_file_names": log_file_names, "metadata_keys": metadata_keys,
           "metadata_block_validity": metadata_block_validity, "file_slices": file_slices,
           "timeline_state": timeline_state, "read_option_keys": read_option_keys,
           "secondary_index_keys": secondary_index_keys, "bloom_filters": bloom_filters,
           "table_config": table_config}


def _cases():
    return [pytest.param(doc["rule"], c["input"], c["expected"], id=f"{doc['rule']}: {c['id']}")
            for doc in DOCS.values() for c in doc["cases"]]


def test_every_rule_file_has_a_runner():
    assert {doc["rule"] for doc in DOCS.values()} == set(RUNNERS)
    assert all(name == doc["rule"] for name, doc in DOCS.items())


@pytest.mark.parametrize(("rule", "given", "expected"), _cases())
def test_case(rule, given, expected):
    assert RUNNERS[rule](given) == expected


def test_parse_and_predicate_agree():
    """parse_base/parse_log reject exactly the names is_base/is_log reject."""
    from pyhudi.table import file_names

    for rule, parse, accepts in (("base_file_names", file_names.parse_base, file_names.is_base),
                                 ("log_file_names", file_names.parse_log, file_names.is_log)):
        for c in DOCS[rule]["cases"]:
            if not accepts(c["input"]["fileName"]):
                with pytest.raises(ValueError):
                    parse(c["input"]["fileName"])
