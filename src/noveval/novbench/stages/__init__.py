"""NovBench's stages: one module per rule (rule novbench_<stage> runs stage <stage>'s run)."""
