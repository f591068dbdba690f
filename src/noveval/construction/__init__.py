"""Building the benchmarks from raw papers and reviews."""
