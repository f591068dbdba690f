"""The reproduction report: every published number of both papers beside the pipeline's own."""
