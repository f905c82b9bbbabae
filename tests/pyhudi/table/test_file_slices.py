"""File slices from file names and the instants that are committed, and the committed files of a
table's storage."""
from pyhudi.storage import Storage
from pyhudi.table.file_names import BaseFileName, LogFileName
from pyhudi.table.file_slices import FileSlice, build_slices, committed_rule, file_id_and_instant, listing_from_storage
from pyhudi.table.timeline import Instant
from tests.pyhudi.metadata.synthetic import two_partition_table

T1, T2, T3, T4 = "20250101000000001", "20250101000000002", "20250101000000003", "20250101000000004"


def base(fid, t, token="0-1-0"):
    return str(BaseFileName(fid, token, t))


def log(fid, t, version=1, token="0-1-0"):
    return str(LogFileName(fid, t, version, token))


def test_file_names():
    assert file_id_and_instant(base("f1", T1)) == ("f1", T1, False)
    assert file_id_and_instant(log("f1", T2)) == ("f1", T2, True)
    assert file_id_and_instant(".hoodie_partition_metadata") is None
    assert file_id_and_instant("notes.txt") is None


def test_slices_of_committed_files():
    done = {T1: T1, T2: T2, T4: T4}  # T3 is pending
    names = [base("f1", T1), log("f1", T2), base("f1", T3), log("f1", T4, 1, "1-1-1"), log("f1", T4),
             base("f2", T2, "0-1-0"), base("f2", T2, "1-1-0"), log("f3", T2), "junk"]
    slices = build_slices(names, done.__contains__, done.get)
    assert slices == {
        "f1": [FileSlice("f1", T1, base("f1", T1), [log("f1", T2), log("f1", T4), log("f1", T4, 1, "1-1-1")])],
        "f2": [FileSlice("f2", T2, base("f2", T2, "1-1-0"))],  # of two bases of one instant, the greater name
        "f3": [FileSlice("f3", T2, None, [log("f3", T2)])]}  # a log without a base opens its own slice
    assert slices["f1"][0].files()[0] == base("f1", T1)


def test_cdc_logs_join_their_slice_apart_from_its_data():
    """Change-data log files are read by CDC queries only: never among a slice's data files (Hudi's and
    the connector's file-system view leave them out too), but among its files, so cleaning the slice
    takes them along; alone they open no slice."""
    done = {T1: T1, T2: T2}
    cdc = str(LogFileName("f1", T2, 1, "0-1-0", ".cdc"))
    only_cdc = str(LogFileName("f2", T2, 1, "0-1-0", ".cdc"))
    assert file_id_and_instant(cdc) == ("f1", T2, True)
    slices = build_slices([base("f1", T1), base("f1", T2), cdc, log("f1", T2), only_cdc], done.__contains__,
                          done.get)
    assert slices == {"f1": [FileSlice("f1", T1, base("f1", T1)),
                             FileSlice("f1", T2, base("f1", T2), [log("f1", T2)], cdc_logs=[cdc])]}
    assert slices["f1"][1].data_files() == [base("f1", T2), log("f1", T2)]
    assert slices["f1"][1].files() == [base("f1", T2), log("f1", T2), cdc]


def test_logs_join_the_slice_by_completion_time():
    """A log requested before a compaction but completed after it belongs to the compacted slice;
    a pending compaction opens an empty slice."""
    completion = {T1: T1, T2: T4, T3: T3}
    names = [base("f1", T1), log("f1", T2), base("f1", T3)]
    slices = build_slices(names, completion.__contains__, completion.get)
    assert [(s.base_instant, s.logs) for s in slices["f1"]] == [(T1, []), (T3, [log("f1", T2)])]
    pending = build_slices([base("f1", T1)], {T1: T1}.__contains__, {T1: T1}.get, pending_compactions={"f1": T3})
    assert [(s.base_instant, s.base) for s in pending["f1"]] == [(T1, base("f1", T1)), (T3, None)]


def test_committed_rule():
    committed = committed_rule([Instant(T2, "commit", "completed", T2), Instant(T3, "commit", "inflight")])
    assert [committed(t) for t in (T1, T2, T3, T4)] == [True, True, False, False]  # T1: archived
    assert not committed_rule([])(T1)


def test_listing_from_storage(tmp_path):
    t, fids = two_partition_table(tmp_path / "t")
    storage, b = Storage.for_uri(t.base)
    listing = listing_from_storage(storage, b)
    assert sorted(listing) == ["city=a", "city=b"]
    assert len(listing["city=a"]) == 2 and {n.split("_")[0] for n, _, _ in listing["city=b"]} == {fids["b"]}
    pending = t.timeline.create_requested("commit")
    t.write_base(pending.requested_time, "b", range(50, 52))  # files of a write still in flight do not count
    assert listing_from_storage(storage, b) == listing
