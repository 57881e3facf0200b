"""war: seeded games of War and its variants as Parquet event logs: generate, replay, validate, query."""
