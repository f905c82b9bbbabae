"""pyhudi command line: table maintenance. Only the commands that rewrite files start Spark (compact,
log-compact, cluster, index create), and those only when the timeline says there may be work; their
Spark tasks are drawn as one bar (pyhudi.cli.progress). One module of this package a concern, each
registering its subcommands.

  pyhudi timeline PATH [--archived]          the instants of a table (and those archived)
  pyhudi rollback PATH                       roll back writes that never completed (a writer that died)
  pyhudi metadata create|delete PATH         build (from one listing, writers need not stop) or drop it
  pyhudi metadata validate PATH              check every metadata partition against the data
  pyhudi metadata repair PATH                build the partitions that differ again (--partition P: that one)
  pyhudi metadata stats PATH                 what the metadata table holds
  pyhudi metadata perf PATH                  partitions/files lookups: metadata table vs listing
  pyhudi clean PATH [--policy P] [--retain-commits N]
                                             delete file versions no reader needs any more (cleaning)
  pyhudi archive PATH [--min-commits N] [--max-commits N]
                                             move old instants into the timeline history (archival)
  pyhudi savepoint create|list|delete PATH [--instant T] [--user U] [--comments C]
                                             keep a commit's files, so the table can be restored to it
  pyhudi restore PATH --to T                 roll the table back to its savepoint at T
  pyhudi index create PATH [--type record_index | --type secondary --column C [--name N]
                           | --type column_stats | bloom_filters | partition_stats]
                                             build an index while writers go on (the indexing action; Spark)
  pyhudi index list PATH                     the metadata table's index partitions (built or being built)
  pyhudi index lookup PATH KEY...            where the record index says each record key lives
  pyhudi index lookup --name N PATH VALUE... the record keys secondary index N holds for each value
  pyhudi index drop PATH [--type record_index | column_stats | ... | --name N]
                                             drop an index partition (writes that enable it build it again)
  pyhudi compact|log-compact|cluster PATH [--instant T] [--schedule] [--option K=V]
                                             run pending plans of a service, or schedule one and run it
  pyhudi timeline-server PATH --port N       serve the table's file-system view to writers (Hudi RFC-03;
                                             runs a JVM, not Spark), until killed
"""
from __future__ import annotations

import argparse

from rich.console import Console

from pyhudi.cli import index, metadata, server, services, timeline
from pyhudi.errors import HudiError


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="pyhudi", description="pyhudi table maintenance")
    sub = ap.add_subparsers(dest="command", required=True)
    for commands in (timeline, metadata, index, server, services):  # each module registers its subcommands
        commands.register(sub)
    args = ap.parse_args(argv)
    console = Console()
    try:
        return args.fn(args, console)
    except (HudiError, ValueError, OSError) as e:
        console.print(f"[red]error:[/red] {e}")
        return 2
