"""Step 1: read a corpus (news.ts, JSONL, CSV, Parquet; STS pair files) into items."""
