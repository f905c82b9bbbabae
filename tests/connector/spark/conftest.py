"""The SQL tests' session: spark.sql with Hudi's table services off, and the tables a test made dropped."""
import pytest

# services off, so the timeline holds exactly the statements' instants (Hudi's SQL reads SET hoodie.*)
QUIET = {"hoodie.compact.inline": "false", "hoodie.clean.automatic": "false", "hoodie.archive.automatic": "false"}
SET_BY_TESTS = ("spark.sql.sources.partitionOverwriteMode", "hoodie.spark.sql.insert.into.operation")


@pytest.fixture
def sql(spark):
    """spark.sql(statement, table=None); a statement naming `table` makes it (any older one dropped first)
    and the table is dropped afterwards, as are the settings the tests change."""
    for k, v in QUIET.items():
        spark.conf.set(k, v)
    made = []

    def run(statement, table=None):
        if table:
            spark.sql(f"DROP TABLE IF EXISTS {table}")
            made.append(table)
        return spark.sql(statement)

    yield run
    for t in made:
        spark.sql(f"DROP TABLE IF EXISTS {t}")
    for k in (*QUIET, *SET_BY_TESTS):
        spark.conf.unset(k)
