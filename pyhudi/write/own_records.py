"""How a write, a service or an index build reads its own table's records through the connector."""
from __future__ import annotations

from pyspark.sql import Column
from pyspark.sql import functions as F

from pyhudi.config import read_keys

# without the lost-file check of storage listings, which reads every commit on the timeline (the writer's view
# lists partitions the same unchecked way), and without data skipping (its filters are on partition paths and
# file names, which planning prunes by already)
READ_OPTIONS = {read_keys.CHECK_LISTED_FILES: "false", "hoodie.enable.data.skipping": "false"}


def file_id_of(file_name: Column) -> Column:
    """File id from _hoodie_file_name: base files are <fileId>_<token>_<instant>.<ext>; log
    records already hold the file id."""
    return F.when(file_name.rlike(r"_\d+-\d+-\d+_\d+\.[a-z]+$"),
                  F.substring_index(file_name, "_", 1)).otherwise(file_name)
