"""The benchmarks' construction stages: one module per rule (rule construction_<stage>)."""
