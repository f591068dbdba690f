"""Literature search for the judges: Semantic Scholar and the leakage filter."""
