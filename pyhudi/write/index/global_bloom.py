"""The global bloom index (Apache Hudi's GLOBAL_BLOOM): the bloom index over every partition. A key lives in one
partition of the table, so each incoming key is looked for in the latest slices of all of them, by their key
ranges and bloom filters; an upsert whose partition changed moves the record there
(hoodie.bloom.index.update.partition.path, true by default as in Hudi) or updates it where it lives."""
from __future__ import annotations

from pyhudi.write.index.bloom import BloomIndex


class GlobalBloomIndex(BloomIndex):
    name = "GLOBAL_BLOOM"
    is_global = True
    tags_in_driver = False  # its keys may live in any partition: the driver reads only the batch's

    @property
    def moves_records(self) -> bool:
        return self.cfg.bloom_update_partition_path
