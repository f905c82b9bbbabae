"""Table services: compaction, cleaning, archival, clustering, savepoint and restore.

Each service is a timeline action with Apache Hudi's instant names and Avro plan/metadata
(requested -> inflight -> completed), commits the metadata table at its own instant (`instant`),
runs on its own (`pyhudi <service> PATH`, `HudiTable.<service>()`) or inline after a write
(`inline`), and leaves a crash at any step to the next run, which rolls back or resumes.
"""
