"""Column statistics of data files: from Parquet footers and from Arrow data, and which columns
are indexed."""
import datetime as dt
import decimal
import io
import json

import pyarrow.parquet as pq

from pyhudi.metadata.stats import column_stats_json, columns_to_index, parse_column_stats
from pyhudi.metadata.wrappers import DECIMAL, Wrapped
from tests.pyhudi.metadata.synthetic import STAT_COLUMNS, rows


def test_columns_to_index():
    schema = {"type": "record", "name": "r", "fields": [
        {"name": "id", "type": ["null", "string"]},
        {"name": "tags", "type": ["null", {"type": "array", "items": "string"}]},
        {"name": "big", "type": ["null", {"type": "fixed", "name": "f", "size": 16, "logicalType": "decimal",
                                          "precision": 38, "scale": 10}]},
        {"name": "ok", "type": ["null", {"type": "fixed", "name": "g", "size": 5, "logicalType": "decimal",
                                         "precision": 10, "scale": 2}]},
        {"name": "_hoodie_commit_time", "type": ["null", "string"]}]}
    assert columns_to_index(schema) == ["_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key",
                                        "id", "ok"]
    assert columns_to_index(schema, populate_meta_fields=False) == ["id", "ok"]
    many = {"type": "record", "name": "r", "fields": [{"name": f"c{i}", "type": "int"} for i in range(40)]}
    assert len(columns_to_index(many)) == 3 + 32


def test_column_stats_json_footer_and_arrow_agree():
    data = rows(list(range(0, 12)), "x")
    buf = io.BytesIO()
    pq.write_table(data, buf, row_group_size=5)  # several row groups: combined like Hudi does
    md = pq.ParquetFile(io.BytesIO(buf.getvalue())).metadata
    footer = json.loads(column_stats_json(data, md))
    arrow = json.loads(column_stats_json(data))
    assert "tags" not in footer and "tags" not in arrow
    for col in STAT_COLUMNS:
        f, a = footer[col], arrow[col]
        assert (f["min"], f["max"], f["null_count"], f["value_count"], f["type"]) == \
            (a["min"], a["max"], a["null_count"], a["value_count"], a["type"]), col
        assert f["total_size"] > 0 and a["total_size"] == 0
    assert footer["qty"]["null_count"] == 3 and footer["qty"]["value_count"] == 12
    assert footer["day"]["min"] == (dt.date(2024, 1, 1) - dt.date(1970, 1, 1)).days
    assert footer["price"]["max"] == "2.75" and footer["flag"]["min"] is False
    assert parse_column_stats("f", footer, ["price"])[0].max_value == Wrapped(DECIMAL, decimal.Decimal("2.75"))
