"""Building the studies' benchmarks from raw sources (OpenReview notes, papers and reviews)."""
