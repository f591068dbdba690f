"""The shared core every layer stands on: atomic files and Parquet tables, Markdown tables, job
logs, prompt templates and the templates of a user's custom model, answer reading, the seeded
bootstrap and the cards' Markdown both studies share, provenance, prices, pinned upstream files
and downloads, model references, the model registry and site file with their schemas, and the
published numbers."""
