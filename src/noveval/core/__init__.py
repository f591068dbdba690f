"""The shared core every layer stands on: atomic files and Parquet tables, Markdown tables, job
logs, prompt templates, answer reading, provenance, prices, pinned upstream files and downloads,
model references, the model registry and site file with their schemas, and the published
numbers."""
