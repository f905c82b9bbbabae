"""Base files as Hudi writes them: Parquet with Hudi's meta columns and footer (record-key range,
bloom filter, Avro schema), and the bloom filters themselves (also kept by the metadata table)."""
