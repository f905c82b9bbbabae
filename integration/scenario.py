"""The table and rows the crash harness writes (shared by the test and the writer process)."""
SCHEMA = "id string, ts long, region string, val string"


def options(table_type: str) -> dict[str, str]:
    return {"hoodie.table.name": "crash", "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.precombine.field": "ts", "hoodie.datasource.write.partitionpath.field": "region",
            "hoodie.datasource.write.hive_style_partitioning": "true", "hoodie.datasource.write.table.type": table_type}


def rows(first: int, n: int, ts: int) -> list[tuple]:
    return [(f"k{i:05d}", ts, ("eu", "us")[i % 2], f"v{i}-{ts}") for i in range(first, first + n)]
