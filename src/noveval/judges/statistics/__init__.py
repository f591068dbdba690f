"""The judge study's numbers: votes to verdicts, measures and tests, the metrics table, the tables
and figures, and the output-token calibration."""
