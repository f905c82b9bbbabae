"""Apache Hudi in the loop: its published Spark bundles, run here beside pyhudi, as the oracle for the tables we
write and the writer of tables we read.

    python -m apache_hudi install                       # fetch the bundles, make the pyspark 3.5 virtualenv
    python -m apache_hudi sql "CALL show_commits(table => 'trips')" --table trips=/data/trips
    python -m apache_hudi read /data/trips --option hoodie.datasource.query.type=read_optimized
    python -m apache_hudi validate /data/trips          # Hudi's metadata-table reader against the files
    python -m apache_hudi matrix                        # every scenario; results in apache_hudi/results/
    python -m apache_hudi --release 1.0.2 ...           # the last release writing table version 8

From code: `with ApacheHudi("1.2.0") as hudi: hudi.read(path)` (apache_hudi.process).
"""
