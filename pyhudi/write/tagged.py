"""The tagged batch's column contract: the helper columns a write adds to its records on the way from
tagging (where each key lives) through placement (which file group takes it) to the executors (which merge
and write each group). Indexes, placement, services and the executor all read and write these names."""

FG = "_hudi_fg"  # the record's file group (null: a new key not yet placed)
OP = "_hudi_op"  # what the write does with it: INSERT, UPDATE, DELETE, or OLD (a base-file row kept as it was)
BASE = "_hudi_base"  # the file group's latest base file, which the executor merges with
SORT = "_hudi_sort"  # the order clustering writes a group's rows in
# a log compaction's rows: the instants it merged (the connector's LogCompactionReader fills it)
COMPACTED = "_hudi_compacted"
INSERT, UPDATE, DELETE, OLD = "I", "U", "D", "O"
SQL_DELETE = "_hoodie_sql_delete"  # SQL MERGE INTO's per-row delete flag (the connector's MergePlan.DELETE_FLAG)
HELPER_COLUMNS = (FG, OP, BASE, SORT, COMPACTED)
